/* The dm ops of sp_sys_real through libdevmapper: a selector change
 * without dmsetup's execs. In the lab every exec costs 0.4-1.5 s over
 * 9p under TCG, which made `run`'s reload before every case most of
 * its own time per case. */
#include "harness/bringup/bringup.h"

#include "common/log.h"

#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdio.h>

/* The one target of a map as "START LEN TYPE PARAMS": its table
 * (DM_DEVICE_TABLE) or its status (DM_DEVICE_STATUS). */
static int dm_line(int task, const char *name, char *buf, size_t len)
{
	struct dm_task *dmt = dm_task_create(task);
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
		    (size_t)snprintf(buf, len, "%" PRIu64 " %" PRIu64 " %s %s",
				     start, length, type, params) < len)
			ret = 0;
	}
	dm_task_destroy(dmt);
	return ret;
}

int sp_sys_dm_table_get(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	return dm_line(DM_DEVICE_TABLE, name, buf, len);
}

/* For a multipath map: each path's state and fail count (run's
 * timeline reads it at 5 Hz, so in process, not through dmsetup). */
int sp_sys_dm_status_get(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	return dm_line(DM_DEVICE_STATUS, name, buf, len);
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

int sp_sys_dm_reload(void *ctx, const char *name, const char *table)
{
	(void)ctx;
	dm_udev_set_sync_support(0);	/* as dmsetup --noudevsync */
	/* resume swaps in the loaded table, suspending around the swap */
	if (dm_simple(DM_DEVICE_RELOAD, name, table)) {
		/* drop the refused inactive table; the live one stays */
		dm_simple(DM_DEVICE_CLEAR, name, NULL);
		return -EIO;
	}
	if (dm_simple(DM_DEVICE_RESUME, name, NULL)) {
		sp_debug("resuming %s failed", name);
		return -EIO;
	}
	return 0;
}
