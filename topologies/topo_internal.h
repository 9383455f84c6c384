/* What the topology parser's two halves share: the line-by-line reader
 * (topo_parse.c) and the checks that need the whole file
 * (topo_check.c). Not for use outside topologies/. */
#ifndef SP_TOPO_INTERNAL_H
#define SP_TOPO_INTERNAL_H

#include "topologies/topo.h"

#include <stdint.h>

static inline uint32_t sp_topo_mask(int len)
{
	return len ? 0xFFFFFFFFu << (32 - len) : 0;
}

enum sp_topo_section { SEC_NONE, SEC_TOPOLOGY, SEC_PATH };

struct sp_topo_parser {
	const char *file;
	int line;
	char *err;
	size_t errlen;
	enum sp_topo_section sec;
	int seen_topology;
	uint32_t seen;		/* keys set in this section, by table index */
	/* [topology] defaults that paths inherit unless they say otherwise */
	int mech;
	int dist;
	struct sp_jitter jitter;
	uint32_t path_set;	/* which of mech/dist/jitter a path set */
	struct sp_topo *topo;
	char addresses_buf[64];
	int addresses_line;
};

int sp_topo_perr(struct sp_topo_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* selector arguments, map name, address plan, subnets: 0 or -EINVAL */
int sp_topo_check_whole(struct sp_topo_parser *p);

#endif
