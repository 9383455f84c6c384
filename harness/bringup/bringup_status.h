/* `slowpath status`: the journal plus what the kernel says now, shown
 * the way `multipath -ll` shows a map, one extra column group per path
 * (label, portal, delay, mechanism). Gathering is an effect; rendering
 * is pure. */
#ifndef SP_BRINGUP_STATUS_H
#define SP_BRINGUP_STATUS_H

#include <stddef.h>

#include "harness/bringup/bringup.h"

struct sp_status_path {
	char hctl[32];		/* "2:0:0:1", or "#:#:#:#" when unknown */
	char dm_state[16];	/* "active", "failed", "undef"; nvme-tcp:
				 * the ANA state, "optimized" ... */
	char dev_state[16];	/* sysfs device/state: "running" ... */
};

struct sp_status {
	const struct sp_state *st;
	int map_present;
	char dm_name[16];		/* "dm-3" */
	char vendor[16], model[32];
	int has_table;
	struct sp_dm_map table;		/* the live table, when has_table */
	struct sp_status_path paths[SP_TOPO_MAX_PATHS];
	char hst[32];			/* HST loaded now: "stock", ... */
};

/* "0 4194304 multipath 2 0 0 0 1 1 A 0 3 2 8:0 A 0 0 1 ..." : sets
 * dm_state of the paths whose maj:min it names. */
void sp_status_parse_dm(struct sp_status *s, const char *dm_status);

int sp_status_gather(const struct sp_sys_ops *ops, const struct sp_state *st,
		     struct sp_status *s);

/* 0, or -ENOSPC when buf is too small. */
int sp_status_render(const struct sp_status *s, char *buf, size_t len);

#endif
