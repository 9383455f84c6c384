/* Unit tests of dm/dm_dev.c, every dm operation through libdevmapper,
 * against a fake libdevmapper (-Wl,--wrap, dm/module.mk) that holds
 * one kernel of maps and logs each task. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <libdevmapper.h>
#include <stdio.h>
#include <string.h>

#include "dm/dm_dev.h"

#define NMAPS 2

struct fake_map {
	const char *name, *uuid;
	char table[256], status[256];	/* "TYPE PARAMS" after "0 LEN " */
	uint64_t len;
	int open_count;
	unsigned int minor;
};

struct fake_task {
	int type, retry, sector_set;
	char name[128], uuid[160], message[128];
	char target[256];		/* what add_target was given */
	uint64_t start, len;
	int ran;
	struct fake_map *map;
	char names_buf[512];
};

static struct {
	struct fake_map maps[NMAPS];
	int nmaps;
	int fail_errno;		/* the next task's ioctl fails so */
	int fail_type;		/* ... when it is of this type */
	char log[1024];
	int mknodes;
	struct fake_task task;
	int tasks_alive;
} K;

static void log_task(const char *fmt, ...)
{
	size_t n = strlen(K.log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(K.log + n, sizeof(K.log) - n, fmt, ap);
	va_end(ap);
}

static struct fake_map *find_map(const char *name)
{
	int i;

	for (i = 0; i < K.nmaps; i++)
		if (!strcmp(K.maps[i].name, name))
			return &K.maps[i];
	return NULL;
}

struct dm_task *__wrap_dm_task_create(int type);
struct dm_task *__wrap_dm_task_create(int type)
{
	/* dm_dev.c has one task open at a time */
	assert_int_equal(K.tasks_alive, 0);
	K.tasks_alive++;
	memset(&K.task, 0, sizeof(K.task));
	K.task.type = type;
	return (struct dm_task *)&K.task;
}

void __wrap_dm_task_destroy(struct dm_task *dmt);
void __wrap_dm_task_destroy(struct dm_task *dmt)
{
	assert_ptr_equal(dmt, &K.task);
	K.tasks_alive--;
}

int __wrap_dm_task_set_name(struct dm_task *dmt, const char *name);
int __wrap_dm_task_set_name(struct dm_task *dmt, const char *name)
{
	(void)dmt;
	snprintf(K.task.name, sizeof(K.task.name), "%s", name);
	return 1;
}

int __wrap_dm_task_set_uuid(struct dm_task *dmt, const char *uuid);
int __wrap_dm_task_set_uuid(struct dm_task *dmt, const char *uuid)
{
	(void)dmt;
	snprintf(K.task.uuid, sizeof(K.task.uuid), "%s", uuid);
	return 1;
}

int __wrap_dm_task_add_target(struct dm_task *dmt, uint64_t start,
			      uint64_t size, const char *ttype,
			      const char *params);
int __wrap_dm_task_add_target(struct dm_task *dmt, uint64_t start,
			      uint64_t size, const char *ttype,
			      const char *params)
{
	(void)dmt;
	K.task.start = start;
	K.task.len = size;
	snprintf(K.task.target, sizeof(K.task.target), "%s %s", ttype,
		 params);
	return 1;
}

int __wrap_dm_task_set_sector(struct dm_task *dmt, uint64_t sector);
int __wrap_dm_task_set_sector(struct dm_task *dmt, uint64_t sector)
{
	(void)dmt;
	K.task.sector_set = sector == 0;
	return 1;
}

int __wrap_dm_task_set_message(struct dm_task *dmt, const char *message);
int __wrap_dm_task_set_message(struct dm_task *dmt, const char *message)
{
	(void)dmt;
	snprintf(K.task.message, sizeof(K.task.message), "%s", message);
	return 1;
}

int __wrap_dm_task_retry_remove(struct dm_task *dmt);
int __wrap_dm_task_retry_remove(struct dm_task *dmt)
{
	(void)dmt;
	K.task.retry = 1;
	return 1;
}

static const char *type_name(int type)
{
	switch (type) {
	case DM_DEVICE_CREATE: return "create";
	case DM_DEVICE_RELOAD: return "reload";
	case DM_DEVICE_CLEAR: return "clear";
	case DM_DEVICE_RESUME: return "resume";
	case DM_DEVICE_REMOVE: return "remove";
	case DM_DEVICE_TABLE: return "table";
	case DM_DEVICE_STATUS: return "status";
	case DM_DEVICE_INFO: return "info";
	case DM_DEVICE_LIST: return "list";
	case DM_DEVICE_TARGET_MSG: return "message";
	default: return "other";
	}
}

/* What the kernel does with the task; 0 or an errno. */
static int kernel_do(struct fake_task *t)
{
	struct fake_map *m = find_map(t->name);

	if (t->type == DM_DEVICE_LIST || t->type == DM_DEVICE_INFO)
		return 0;
	if (t->type == DM_DEVICE_CREATE) {
		if (m || K.nmaps == NMAPS)
			return EEXIST;
		m = &K.maps[K.nmaps++];
		m->name = "created";
		m->uuid = "";
		snprintf(m->table, sizeof(m->table), "%s", t->target);
		m->len = t->len;
		return 0;
	}
	if (!m)
		return ENXIO;
	if (t->type == DM_DEVICE_REMOVE && m->open_count)
		return EBUSY;
	if (t->type == DM_DEVICE_REMOVE)
		K.nmaps--;
	t->map = m;
	return 0;
}

int __wrap_dm_task_run(struct dm_task *dmt);
int __wrap_dm_task_run(struct dm_task *dmt)
{
	struct fake_task *t = (struct fake_task *)dmt;
	int e = 0;

	log_task("%s %s%s%s;", type_name(t->type), t->name,
	     t->message[0] ? " " : "", t->message);
	if (K.fail_errno && K.fail_type == t->type) {
		e = K.fail_errno;
		K.fail_errno = 0;
	} else {
		e = kernel_do(t);
	}
	t->ran = e ? -e : 1;
	return !e;
}

int __wrap_dm_task_get_errno(struct dm_task *dmt);
int __wrap_dm_task_get_errno(struct dm_task *dmt)
{
	struct fake_task *t = (struct fake_task *)dmt;

	return t->ran < 0 ? -t->ran : 0;
}

void *__wrap_dm_get_next_target(struct dm_task *dmt, void *next,
				uint64_t *start, uint64_t *length,
				char **target_type, char **params);
void *__wrap_dm_get_next_target(struct dm_task *dmt, void *next,
				uint64_t *start, uint64_t *length,
				char **target_type, char **params)
{
	static char text[256];
	struct fake_task *t = (struct fake_task *)dmt;
	char *sp;

	assert_null(next);
	snprintf(text, sizeof(text), "%s", t->type == DM_DEVICE_STATUS ?
		 t->map->status : t->map->table);
	sp = strchr(text, ' ');
	*sp = '\0';
	*start = 0;
	*length = t->map->len;
	*target_type = text;
	*params = sp + 1;
	return NULL;		/* the one target */
}

int __wrap_dm_task_get_info(struct dm_task *dmt, struct dm_info *dmi);
int __wrap_dm_task_get_info(struct dm_task *dmt, struct dm_info *dmi)
{
	struct fake_task *t = (struct fake_task *)dmt;
	struct fake_map *m = find_map(t->name);

	memset(dmi, 0, sizeof(*dmi));
	dmi->exists = m != NULL;
	if (m) {
		dmi->major = 253;
		dmi->minor = m->minor;
		dmi->open_count = m->open_count;
	}
	return 1;
}

const char *__wrap_dm_task_get_uuid(const struct dm_task *dmt);
const char *__wrap_dm_task_get_uuid(const struct dm_task *dmt)
{
	const struct fake_map *m = find_map(((const struct fake_task *)dmt)->name);

	return m ? m->uuid : "";
}

const char *__wrap_dm_task_get_name(const struct dm_task *dmt);
const char *__wrap_dm_task_get_name(const struct dm_task *dmt)
{
	return ((const struct fake_task *)dmt)->name;
}

/* The kernel's list: struct dm_names one after another, each next an
 * offset from itself, 0 on the last; dev 0 for no maps at all. */
struct dm_names *__wrap_dm_task_get_names(struct dm_task *dmt);
struct dm_names *__wrap_dm_task_get_names(struct dm_task *dmt)
{
	static union {
		struct dm_names n;
		char bytes[512];
	} buf;
	size_t at = 0, step;
	struct dm_names *n = NULL;
	int i;

	(void)dmt;
	memset(&buf, 0, sizeof(buf));
	for (i = 0; i < K.nmaps; i++) {
		n = (struct dm_names *)(buf.bytes + at);
		n->dev = 1;
		strcpy(n->name, K.maps[i].name);
		step = (offsetof(struct dm_names, name) +
			strlen(K.maps[i].name) + 1 + 7) & ~(size_t)7;
		n->next = (uint32_t)step;
		at += step;
	}
	if (n)
		n->next = 0;
	return &buf.n;
}

void __wrap_dm_task_update_nodes(void);
void __wrap_dm_task_update_nodes(void)
{
}

int __wrap_dm_mknodes(const char *name);
int __wrap_dm_mknodes(const char *name)
{
	(void)name;
	K.mknodes++;
	return 1;
}

void __wrap_dm_udev_set_sync_support(int sync);
void __wrap_dm_udev_set_sync_support(int sync)
{
	assert_int_equal(sync, 0);	/* the lab has no udev */
}

void __wrap_dm_log_with_errno_init(dm_log_with_errno_fn fn);
void __wrap_dm_log_with_errno_init(dm_log_with_errno_fn fn)
{
	assert_non_null(fn);		/* never libdevmapper's stderr */
}

static int setup(void **state)
{
	(void)state;
	memset(&K, 0, sizeof(K));
	K.nmaps = 2;
	K.maps[0].name = "slowpath-equal3";
	K.maps[0].uuid = "slowpath-equal3-3fa2";
	K.maps[0].len = 4194304;
	K.maps[0].minor = 3;
	snprintf(K.maps[0].table, sizeof(K.maps[0].table), "multipath 0 0 1 "
		 "1 service-time 0 3 2 8:0 1 1 8:16 1 1 8:32 1 1");
	snprintf(K.maps[0].status, sizeof(K.maps[0].status), "multipath 2 0 "
		 "0 0 1 1 A 0 3 2 8:0 A 0 0 1 8:16 F 1 0 1 8:32 A 0 0 1");
	K.maps[1].name = "mpatha";
	K.maps[1].uuid = "mpath-3600";
	K.maps[1].len = 8;
	snprintf(K.maps[1].table, sizeof(K.maps[1].table), "linear 8:0 0");
	return 0;
}

/* The text parsed is what `dmsetup table` / `status` print for the
 * one target: "START LEN TYPE PARAMS". */
static void table_and_status_as_dmsetup_prints(void **state)
{
	const struct sp_dm_ops *dm = &sp_dm_lib_ops;
	char buf[512];

	(void)state;
	assert_int_equal(dm->status(dm->ctx, "slowpath-equal3", buf,
				    sizeof(buf)), 0);
	assert_string_equal(buf, "0 4194304 multipath 2 0 0 0 1 1 A 0 3 2 "
			    "8:0 A 0 0 1 8:16 F 1 0 1 8:32 A 0 0 1");
	assert_int_equal(dm->table(dm->ctx, "slowpath-equal3", buf,
				   sizeof(buf)), 0);
	assert_string_equal(buf, "0 4194304 multipath 0 0 1 1 service-time 0 "
			    "3 2 8:0 1 1 8:16 1 1 8:32 1 1");
	assert_int_equal(dm->table(dm->ctx, "slowpath-equal3", buf, 20),
			 -EIO);		/* never a cut line */
	assert_int_equal(dm->status(dm->ctx, "gone", buf, sizeof(buf)),
			 -ENXIO);
	assert_int_equal(K.tasks_alive, 0);
}

static void reload_loads_then_resumes(void **state)
{
	const struct sp_dm_ops *dm = &sp_dm_lib_ops;

	(void)state;
	assert_int_equal(dm->reload(dm->ctx, "slowpath-equal3", "0 4194304 "
				    "multipath 0 0 1 1 queue-length 0 3 1 "
				    "8:0 1 8:16 1 8:32 1"), 0);
	assert_string_equal(K.log, "reload slowpath-equal3;resume "
			    "slowpath-equal3;");
	/* a refused table is cleared, the live one keeps running */
	K.log[0] = '\0';
	K.fail_type = DM_DEVICE_RELOAD;
	K.fail_errno = EINVAL;
	assert_int_equal(dm->reload(dm->ctx, "slowpath-equal3", "0 8 bad x"),
			 -EINVAL);
	assert_string_equal(K.log, "reload slowpath-equal3;clear "
			    "slowpath-equal3;");
	assert_int_equal(dm->reload(dm->ctx, "slowpath-equal3", "no table"),
			 -EIO);
	assert_int_equal(K.tasks_alive, 0);
}

static void create_message_info_remove(void **state)
{
	const struct sp_dm_ops *dm = &sp_dm_lib_ops;
	struct sp_dm_info info;

	(void)state;
	K.nmaps = 1;
	assert_int_equal(dm->create(dm->ctx, "created", "slowpath-x-1", "0 16 "
				    "linear 8:0 0"), 0);
	assert_string_equal(K.task.uuid, "slowpath-x-1");
	assert_string_equal(K.task.target, "linear 8:0 0");
	assert_int_equal(K.task.len, 16);
	assert_int_equal(K.mknodes, 1);
	assert_int_equal(dm->create(dm->ctx, "created", "u", "0 16 linear "
				    "8:0 0"), -EEXIST);

	assert_int_equal(dm->message(dm->ctx, "slowpath-equal3",
				     "reinstate_path 8:16"), 0);
	assert_true(K.task.sector_set);
	assert_non_null(strstr(K.log, "message slowpath-equal3 reinstate_path "
			       "8:16;"));

	K.maps[0].open_count = 2;
	assert_int_equal(dm->info(dm->ctx, "slowpath-equal3", &info), 0);
	assert_string_equal(info.name, "slowpath-equal3");
	assert_string_equal(info.uuid, "slowpath-equal3-3fa2");
	assert_int_equal(info.major, 253);
	assert_int_equal(info.minor, 3);
	assert_int_equal(info.open_count, 2);
	assert_int_equal(dm->info(dm->ctx, "gone", &info), -ENXIO);

	assert_int_equal(dm->remove(dm->ctx, "slowpath-equal3"), -EBUSY);
	assert_true(K.task.retry);
	K.maps[0].open_count = 0;
	assert_int_equal(dm->remove(dm->ctx, "gone"), -ENXIO);
	assert_int_equal(K.tasks_alive, 0);
}

static void list_names_every_map_with_its_uuid(void **state)
{
	const struct sp_dm_ops *dm = &sp_dm_lib_ops;
	char buf[256];

	(void)state;
	assert_int_equal(dm->list(dm->ctx, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "slowpath-equal3 slowpath-equal3-3fa2\n"
			    "mpatha mpath-3600\n");
	assert_int_equal(dm->list(dm->ctx, buf, 10), -ENOSPC);
	K.nmaps = 0;
	assert_int_equal(dm->list(dm->ctx, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(K.tasks_alive, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(table_and_status_as_dmsetup_prints,
				       setup),
		cmocka_unit_test_setup(reload_loads_then_resumes, setup),
		cmocka_unit_test_setup(create_message_info_remove, setup),
		cmocka_unit_test_setup(list_names_every_map_with_its_uuid,
				       setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
