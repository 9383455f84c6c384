/* device-mapper devices through libdevmapper (dm_dev.h): every dm
 * operation in process, none through dmsetup. */
#include "dm/dm_dev.h"

#include "common/log.h"

#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* libdevmapper prints its errors to stderr unless told; a library of
 * ours speaks only through the log hook, and the callers name the
 * failure themselves. */
static void dm_log_hook(int level, const char *file, int line, int dm_errno,
			const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	(void)level;
	(void)file;
	(void)line;
	(void)dm_errno;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sp_debug("libdevmapper: %s", msg);
}

/* A task on name, quiet and without udev (the lab has none: as dmsetup
 * --noudevsync); NULL when out of memory or the name is refused. */
static struct dm_task *task_on(int type, const char *name)
{
	struct dm_task *dmt;

	dm_log_with_errno_init(dm_log_hook);
	dm_udev_set_sync_support(0);
	dmt = dm_task_create(type);
	if (dmt && name && !dm_task_set_name(dmt, name)) {
		dm_task_destroy(dmt);
		return NULL;
	}
	return dmt;
}

/* Destroys dmt whose run failed: the ioctl's -errno (-EIO when none). */
static int task_failed(struct dm_task *dmt)
{
	int e = dm_task_get_errno(dmt);

	dm_task_destroy(dmt);
	return -(e > 0 ? e : EIO);
}

/* Runs dmt when its setup went ok, and destroys it: 0 or -errno. */
static int task_finish(struct dm_task *dmt, int ok)
{
	if (!ok) {
		dm_task_destroy(dmt);
		return -EIO;
	}
	if (!dm_task_run(dmt))
		return task_failed(dmt);
	dm_task_destroy(dmt);
	return 0;
}

/* "START LEN TYPE PARAMS" into dmt as its one target. */
static int add_target(struct dm_task *dmt, const char *table)
{
	unsigned long long start, length;
	char type[32];
	int used = 0;

	return sscanf(table, "%llu %llu %31s %n", &start, &length, type,
		      &used) == 3 && used &&
	       dm_task_add_target(dmt, start, length, type, table + used);
}

/* The one target of a map: its table (DM_DEVICE_TABLE) or its status
 * (DM_DEVICE_STATUS). */
static int dm_line(int type, const char *name, char *buf, size_t len)
{
	struct dm_task *dmt = task_on(type, name);
	uint64_t start, length;
	char *target = NULL, *params = NULL;
	void *next;
	int ret;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_run(dmt))
		return task_failed(dmt);
	next = dm_get_next_target(dmt, NULL, &start, &length, &target,
				  &params);
	/* one target, nothing after it */
	ret = -EIO;
	if (!next && target && params &&
	    (size_t)snprintf(buf, len, "%" PRIu64 " %" PRIu64 " %s %s", start,
			     length, target, params) < len)
		ret = 0;
	dm_task_destroy(dmt);
	return ret;
}

static int lib_table(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	return dm_line(DM_DEVICE_TABLE, name, buf, len);
}

static int lib_status(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	return dm_line(DM_DEVICE_STATUS, name, buf, len);
}

static int lib_create(void *ctx, const char *name, const char *uuid,
		      const char *table)
{
	struct dm_task *dmt = task_on(DM_DEVICE_CREATE, name);
	int ret;

	(void)ctx;
	if (!dmt)
		return -ENOMEM;
	ret = task_finish(dmt, (!uuid || dm_task_set_uuid(dmt, uuid)) &&
			  add_target(dmt, table));
	if (ret)
		return ret;
	/* no udev makes the node: libdevmapper does, as dmsetup mknodes */
	dm_task_update_nodes();
	dm_mknodes(name);
	return 0;
}

static int lib_reload(void *ctx, const char *name, const char *table)
{
	struct dm_task *dmt = task_on(DM_DEVICE_RELOAD, name);
	int ret;

	(void)ctx;
	if (!dmt)
		return -ENOMEM;
	ret = task_finish(dmt, add_target(dmt, table));
	if (ret) {
		/* drop the refused inactive table; the live one stays */
		dmt = task_on(DM_DEVICE_CLEAR, name);
		if (dmt)
			task_finish(dmt, 1);
		return ret;
	}
	dmt = task_on(DM_DEVICE_RESUME, name);
	if (!dmt)
		return -ENOMEM;
	ret = task_finish(dmt, 1);
	if (ret)
		sp_debug("resuming %s failed: %s", name, strerror(-ret));
	return ret;
}

static int lib_message(void *ctx, const char *name, const char *msg)
{
	struct dm_task *dmt = task_on(DM_DEVICE_TARGET_MSG, name);

	(void)ctx;
	if (!dmt)
		return -ENOMEM;
	return task_finish(dmt, dm_task_set_sector(dmt, 0) &&
			   dm_task_set_message(dmt, msg));
}

static int lib_info(void *ctx, const char *name, struct sp_dm_info *info)
{
	struct dm_task *dmt = task_on(DM_DEVICE_INFO, name);
	struct dm_info di;
	const char *uuid, *kname;
	int ret = -ENXIO;

	(void)ctx;
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_run(dmt))
		return task_failed(dmt);
	if (dm_task_get_info(dmt, &di) && di.exists) {
		uuid = dm_task_get_uuid(dmt);
		kname = dm_task_get_name(dmt);
		memset(info, 0, sizeof(*info));
		snprintf(info->name, sizeof(info->name), "%s",
			 kname ? kname : name);
		snprintf(info->uuid, sizeof(info->uuid), "%s",
			 uuid ? uuid : "");
		info->major = di.major;
		info->minor = di.minor;
		info->open_count = di.open_count;
		ret = 0;
	}
	dm_task_destroy(dmt);
	return ret;
}

/* The names, one a line: the list task ends before each name's info
 * (libdevmapper tasks are not nested). */
static int list_names(char *names, size_t len)
{
	struct dm_task *dmt = task_on(DM_DEVICE_LIST, NULL);
	struct dm_names *n;
	size_t at = 0;
	unsigned int next = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_run(dmt))
		return task_failed(dmt);
	names[0] = '\0';
	n = dm_task_get_names(dmt);
	if (n && n->dev) {
		do {
			n = (struct dm_names *)((char *)n + next);
			at += (size_t)snprintf(names + at, at < len ?
					       len - at : 0, "%s\n", n->name);
			next = n->next;
		} while (next && at < len);
	}
	dm_task_destroy(dmt);
	return at < len ? 0 : -ENOSPC;
}

static int lib_list(void *ctx, char *buf, size_t len)
{
	static char names[8192];
	struct sp_dm_info info;
	char *name, *save;
	size_t n = 0;
	int ret = list_names(names, sizeof(names));

	if (ret)
		return ret;
	buf[0] = '\0';
	for (name = strtok_r(names, "\n", &save); name && n < len;
	     name = strtok_r(NULL, "\n", &save)) {
		if (lib_info(ctx, name, &info))
			info.uuid[0] = '\0';
		n += (size_t)snprintf(buf + n, len - n, "%s %s\n", name,
				      info.uuid);
	}
	return n < len ? 0 : -ENOSPC;
}

static int lib_remove(void *ctx, const char *name)
{
	struct dm_task *dmt = task_on(DM_DEVICE_REMOVE, name);
	int ret;

	(void)ctx;
	if (!dmt)
		return -ENOMEM;
	/* as dmsetup remove --retry: a closing udev or blkid lets go */
	ret = task_finish(dmt, dm_task_retry_remove(dmt));
	if (!ret)
		dm_task_update_nodes();	/* the node goes now, not at exit */
	return ret;
}

const struct sp_dm_ops sp_dm_lib_ops = {
	.create = lib_create,
	.reload = lib_reload,
	.table = lib_table,
	.status = lib_status,
	.message = lib_message,
	.info = lib_info,
	.list = lib_list,
	.remove = lib_remove,
	.ctx = NULL,
};
