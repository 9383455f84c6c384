/* The live selector reload `run` does before every case, in process
 * through libdevmapper: the same table change as `slowpath selector
 * set` (sp_bringup_selector_set: the map's own paths, ST's per-path
 * weights from the journal, journaled afterwards), without its five
 * dmsetup/modprobe execs. In the lab every exec costs 0.4-1.5 s over
 * 9p under TCG, which made the reload most of run's own time per case.
 * When libdevmapper cannot read the table, the dmsetup path is used. */
#include "harness/run/run_exec.h"

#include "common/log.h"
#include "harness/bringup/bringup.h"

#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The live table as `dmsetup table` prints it. */
static int table_of(const char *name, char *line, size_t len)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_TABLE);
	uint64_t start, length;
	char *type = NULL, *params = NULL;
	void *next;
	int ret = -EIO;

	if (!dmt)
		return -ENOMEM;
	if (dm_task_set_name(dmt, name) && dm_task_run(dmt)) {
		next = dm_get_next_target(dmt, NULL, &start, &length, &type,
					  &params);
		/* one multipath target, nothing after it */
		if (!next && type && params &&
		    (size_t)snprintf(line, len, "%" PRIu64 " %" PRIu64 " %s %s",
				     start, length, type, params) < len)
			ret = 0;
	}
	dm_task_destroy(dmt);
	return ret;
}

static int dm_simple(int task, const char *name, const char *table)
{
	struct dm_task *dmt = dm_task_create(task);
	unsigned long long start, length;
	char type[32];
	int used = 0, ok;

	if (!dmt)
		return -ENOMEM;
	ok = dm_task_set_name(dmt, name);
	if (ok && table) {
		ok = sscanf(table, "%llu %llu %31s %n", &start, &length, type,
			    &used) == 3 && used &&
		     dm_task_add_target(dmt, start, length, type, table + used);
	}
	ok = ok && dm_task_run(dmt);
	dm_task_destroy(dmt);
	return ok ? 0 : -EIO;
}

/* dm_<selector module>, loaded once; modprobe only when it is not. */
static void load_module(enum sp_selector kind)
{
	const char *mod = sp_selector_module(kind);
	char path[96];

	snprintf(path, sizeof(path), "/sys/module/%s", mod);
	if (access(path, F_OK) && sp_sys_runv(&sp_sys_real, NULL, 0,
					      "modprobe", "-q", mod, NULL))
		sp_debug("modprobe %s failed; the reload will tell", mod);
}

int sp_run_reload(struct sp_state *st, const struct sp_dm_selector *sel,
		  const char *state_dir, char *err, size_t errlen)
{
	static char line[8192], table[8192];
	char dmerr[SP_DM_ERRLEN], rec[96];
	struct sp_dm_map map;
	int ret, fd;

	if (!st->complete) {
		snprintf(err, errlen, "topology %s is not fully up",
			 st->topology);
		return -EINVAL;
	}
	if (table_of(st->map_name, line, sizeof(line)) ||
	    sp_dm_table_parse(line, &map, dmerr, sizeof(dmerr))) {
		sp_debug("libdevmapper cannot read %s; reloading with dmsetup",
			 st->map_name);
		return sp_bringup_selector_set(&sp_sys_real, st, sel,
					       state_dir, err, errlen);
	}
	sp_bringup_retarget(&map, st, sel);
	ret = sp_dm_table_build(&map, table, sizeof(table), dmerr,
				sizeof(dmerr));
	if (ret) {
		snprintf(err, errlen, "%s", dmerr);
		return ret;
	}
	load_module(sel->kind);
	dm_udev_set_sync_support(0);	/* as dmsetup --noudevsync */
	/* resume swaps in the loaded table, suspending around the swap */
	if (dm_simple(DM_DEVICE_RELOAD, st->map_name, table)) {
		snprintf(err, errlen, "loading %s into %s failed",
			 sp_selector_kernel_name(sel->kind), st->map_name);
		dm_simple(DM_DEVICE_CLEAR, st->map_name, NULL);
		return -EIO;
	}
	if (dm_simple(DM_DEVICE_RESUME, st->map_name, NULL)) {
		snprintf(err, errlen, "resuming %s failed", st->map_name);
		return -EIO;
	}
	st->sel = *sel;
	sp_state_fmt_selector(sel, rec, sizeof(rec));
	ret = sp_state_open_append(state_dir, &fd);
	if (!ret) {
		ret = sp_state_append(fd, rec);
		close(fd);
	}
	if (ret)
		snprintf(err, errlen, "%s has %s but the journal could not "
			 "record it: %s", st->map_name,
			 sp_selector_kernel_name(sel->kind), strerror(-ret));
	return ret;
}
