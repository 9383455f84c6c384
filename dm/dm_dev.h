/* device-mapper devices: the one owner of every dm operation slowpath
 * does (create, reload, table, status, message, info, list, remove).
 * sp_dm_lib_ops does them in process through libdevmapper; nothing else
 * execs dmsetup (in the lab an exec costs 0.4-1.5 s over 9p under TCG,
 * which made `status` and `fault ... restore` slow). Callers take the
 * ops from struct sp_sys_ops, so unit tests hand in a mock. */
#ifndef SP_DM_DEV_H
#define SP_DM_DEV_H

#include <stddef.h>

struct sp_dm_info {
	char name[128], uuid[160];
	unsigned int major, minor;
	int open_count;
};

struct sp_dm_ops {
	/* A map of one target from table ("START LEN TYPE PARAMS"), with
	 * uuid, and its /dev/mapper node. 0 or -errno. */
	int (*create)(void *ctx, const char *name, const char *uuid,
		      const char *table);
	/* A new table swapped in: loaded, then resumed (suspended only
	 * around the swap). A refused table leaves the live one. */
	int (*reload)(void *ctx, const char *name, const char *table);
	/* The map's one target as "START LEN TYPE PARAMS", the text
	 * `dmsetup table` / `dmsetup status` print for it. */
	int (*table)(void *ctx, const char *name, char *buf, size_t len);
	int (*status)(void *ctx, const char *name, char *buf, size_t len);
	/* A target message to sector 0 ("reinstate_path 8:16"). */
	int (*message)(void *ctx, const char *name, const char *msg);
	/* 0, or -ENXIO when there is no map of that name. */
	int (*info)(void *ctx, const char *name, struct sp_dm_info *info);
	/* Every map as "NAME UUID" lines (UUID "" when it has none). */
	int (*list)(void *ctx, char *buf, size_t len);
	/* Removed, retried a moment while a closing opener lets go;
	 * -EBUSY while it is open. */
	int (*remove)(void *ctx, const char *name);
	void *ctx;
};

extern const struct sp_dm_ops sp_dm_lib_ops;

#endif
