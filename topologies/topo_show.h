/* The topology as `slowpath topo` prints it (topo_show.c). Each returns
 * 0 or -errno, said through the log hook. */
#ifndef SP_TOPO_SHOW_H
#define SP_TOPO_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "topologies/topo.h"

/* The delays at both units the file names stay within the bound once
 * multiplied out, as `up` will resolve them. */
int sp_topo_check_resolves(const struct sp_topo *t);
/* Every path resolved at unit_ns (> 0), or the lab's unit (lab), or the
 * topology's: one table. */
int sp_topo_show(FILE *out, const struct sp_topo *t, int64_t unit_ns, int lab);
/* The dm multipath table line for t over devs ("MAJ:MIN,..."), with
 * another selector or size when not NULL / 0. */
int sp_topo_table(FILE *out, struct sp_topo *t, const char *devs,
		  const char *selector, uint64_t size_bytes);
/* The topologies in sp_topo_dir(): -EINVAL when one is broken. */
int sp_topo_list(FILE *out);

#endif
