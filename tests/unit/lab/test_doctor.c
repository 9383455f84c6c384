#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lab/doctor_check.h"

/* A pretend machine: some files with contents, some paths that exist. */
struct fake_file {
	const char *path;
	const char *text;	/* NULL: exists but is not read */
};

struct fake_machine {
	const struct fake_file *files;
	int root;
	const char *release;
};

static const struct fake_file *fake_find(const struct fake_machine *m,
					 const char *path)
{
	const struct fake_file *f;

	for (f = m->files; f && f->path; f++) {
		if (!strcmp(f->path, path))
			return f;
	}
	return NULL;
}

static int fake_read_file(void *ctx, const char *path, char **text)
{
	const struct fake_file *f = fake_find(ctx, path);

	if (!f || !f->text)
		return -ENOENT;
	*text = strdup(f->text);
	return *text ? 0 : -ENOMEM;
}

static int fake_access(void *ctx, const char *path, int mode)
{
	(void)mode;
	return fake_find(ctx, path) ? 0 : -ENOENT;
}

static int fake_is_root(void *ctx)
{
	return ((struct fake_machine *)ctx)->root;
}

static int fake_release(void *ctx, char *buf, size_t len)
{
	const struct fake_machine *m = ctx;

	if (!m->release)
		return -ENOSYS;
	strncpy(buf, m->release, len - 1);
	buf[len - 1] = '\0';
	return 0;
}

static struct sp_doctor_ops fake_ops(struct fake_machine *m)
{
	struct sp_doctor_ops ops = {
		.read_file = fake_read_file,
		.access = fake_access,
		.is_root = fake_is_root,
		.kernel_release = fake_release,
		.ctx = m,
	};
	return ops;
}

static const struct sp_doc_item *item(const struct sp_doctor_report *r,
				      const char *label)
{
	size_t i;

	for (i = 0; i < r->n_items; i++) {
		if (!strcmp(r->items[i].label, label))
			return &r->items[i];
	}
	fail_msg("no item '%s'", label);
	return NULL;
}

/* Debian 6.1 guest: dm_multipath loaded, sd_mod built in, the rest
 * loadable from compressed and plain .ko files. */
static const char guest_proc_modules[] =
	"dm_service_time 16384 0 - Live 0x0000000000000000\n"
	"dm_multipath 45056 1 dm_service_time, Live 0x0000000000000000\n"
	"dm_mod 184320 3 dm_multipath, Live 0x0000000000000000\n";
static const char guest_builtin[] =
	"kernel/drivers/scsi/sd_mod.ko\n"
	"kernel/net/unix/unix.ko\n";
static const char guest_dep[] =
	"kernel/drivers/md/dm-multipath.ko.xz: kernel/drivers/md/dm-mod.ko.xz\n"
	"kernel/drivers/md/dm-service-time.ko.xz: kernel/drivers/md/dm-multipath.ko.xz kernel/drivers/md/dm-mod.ko.xz\n"
	"kernel/drivers/md/dm-queue-length.ko.xz: kernel/drivers/md/dm-multipath.ko.xz kernel/drivers/md/dm-mod.ko.xz\n"
	"kernel/drivers/md/dm-round-robin.ko.zst: kernel/drivers/md/dm-multipath.ko.xz\n"
	"updates/dm-historical-service-time.ko: kernel/drivers/md/dm-multipath.ko.xz\n"
	"kernel/drivers/scsi/iscsi_tcp.ko.xz: kernel/drivers/scsi/libiscsi_tcp.ko.xz\n"
	"kernel/net/sched/sch_netem.ko.xz:\n"
	"kernel/drivers/net/veth.ko.xz:\n"
	"kernel/drivers/net/ifb.ko:\n";

#define PROGRAMS(dir) \
	{ dir "/tgtd", NULL }, { dir "/tgtadm", NULL }, { dir "/iscsid", NULL }, \
	{ dir "/iscsiadm", NULL }, { "/usr/bin/fio", NULL }, \
	{ dir "/dmsetup", NULL }, { dir "/multipath", NULL }

static const struct fake_file guest_files[] = {
	{ "/proc/modules", guest_proc_modules },
	{ "/lib/modules/6.1.0-28-amd64/modules.builtin", guest_builtin },
	{ "/lib/modules/6.1.0-28-amd64/modules.dep", guest_dep },
	{ "/dev/mapper/control", NULL },
	{ "/proc/self/ns/net", NULL },
	{ "/sys/module/dm_multipath", NULL },
	{ "/sys/module/dm_multipath/initstate", NULL },
	PROGRAMS("/usr/sbin"),
	{ "/work/main/build/tgt-backend/bs_delay.so", NULL },
	{ "/work/main/build/lab/current/ready", NULL },
	{ NULL, NULL },
};

static const struct sp_doctor_env guest_env = {
	.path_env = "/usr/local/bin:/usr/bin:/bin",
	.build_dir = "/work/main/build",
};

static void guest_runs_natively(void **state)
{
	struct fake_machine m = { guest_files, 1, "6.1.0-28-amd64" };
	struct sp_doctor_ops ops = fake_ops(&m);
	struct sp_doctor_report r;
	char line[512];

	(void)state;
	assert_int_equal(sp_doctor_run(&ops, &guest_env, &r), 0);
	assert_int_equal(item(&r, "dm-multipath")->state, SP_DOC_LOADED);
	assert_int_equal(item(&r, "device-mapper")->state, SP_DOC_LOADED);
	assert_int_equal(item(&r, "service-time")->state, SP_DOC_LOADED);
	assert_int_equal(item(&r, "sd_mod")->state, SP_DOC_BUILTIN);
	assert_int_equal(item(&r, "round-robin")->state, SP_DOC_LOADABLE);
	assert_int_equal(item(&r, "historical-service-time")->state, SP_DOC_LOADABLE);
	assert_int_equal(item(&r, "ifb")->state, SP_DOC_LOADABLE);
	/* sbin is searched even when PATH lacks it */
	assert_string_equal(item(&r, "tgtd")->where, "/usr/sbin/tgtd");
	assert_string_equal(item(&r, "tgt module bs_delay")->where,
			    "/work/main/build/tgt-backend/bs_delay.so");
	assert_int_equal(item(&r, "lab VM prepared")->state, SP_DOC_PRESENT);
	/* qemu is only for the lab, so its absence does not matter here */
	assert_int_equal(item(&r, "qemu-system-x86_64")->state, SP_DOC_MISSING);
	assert_int_equal(r.mode, SP_MODE_NATIVE);
	assert_true(r.ready);
	sp_doctor_format_verdict(&r, line, sizeof(line));
	assert_string_equal(line, "verdict: slowpath runs natively");
}

static void not_root_means_lab(void **state)
{
	struct fake_machine m = { guest_files, 0, "6.1.0-28-amd64" };
	struct sp_doctor_ops ops = fake_ops(&m);
	struct sp_doctor_report r;
	char line[512];

	(void)state;
	assert_int_equal(sp_doctor_run(&ops, &guest_env, &r), 0);
	assert_int_equal(r.mode, SP_MODE_LAB);
	/* the lab needs qemu, which this machine lacks */
	assert_false(r.ready);
	sp_doctor_format_verdict(&r, line, sizeof(line));
	assert_non_null(strstr(line, "in the lab"));
	assert_non_null(strstr(line, "missing: qemu-system-x86_64"));
	sp_doctor_format_item(item(&r, "root"), line, sizeof(line));
	assert_non_null(strstr(line, "NO"));
}

/* The build machine: no /lib/modules, no /proc/modules, no device
 * mapper; everything else is there, so the lab is ready. */
static const struct fake_file host_files[] = {
	{ "/proc/self/ns/net", NULL },
	{ "/sys/module/loop", NULL },
	PROGRAMS("/usr/sbin"),
	{ "/usr/bin/qemu-system-x86_64", NULL },
	{ "/usr/lib/tgt/backing-store/bs_delay.so", NULL },
	{ NULL, NULL },
};

static void bare_host_goes_to_the_lab(void **state)
{
	struct fake_machine m = { host_files, 1, "6.18.44" };
	struct sp_doctor_ops ops = fake_ops(&m);
	struct sp_doctor_env env = { .path_env = "/usr/bin:/usr/sbin", .build_dir = NULL };
	struct sp_doctor_report r;
	char line[512];

	(void)state;
	assert_int_equal(sp_doctor_run(&ops, &env, &r), 0);
	assert_int_equal(item(&r, "dm-multipath")->state, SP_DOC_MISSING);
	assert_int_equal(item(&r, "device-mapper")->state, SP_DOC_MISSING);
	assert_int_equal(item(&r, "netns")->state, SP_DOC_PRESENT);
	/* the installed module wins over a built one */
	assert_string_equal(item(&r, "tgt module bs_delay")->where,
			    "/usr/lib/tgt/backing-store/bs_delay.so");
	assert_int_equal(r.mode, SP_MODE_LAB);
	/* an unprepared lab VM is listed but make lab builds it on demand */
	assert_int_equal(item(&r, "lab VM prepared")->state, SP_DOC_MISSING);
	assert_true(r.ready);
	sp_doctor_format_verdict(&r, line, sizeof(line));
	assert_null(strstr(line, "missing"));
}

static void missing_program_makes_native_not_ready(void **state)
{
	static const struct fake_file files[] = {
		{ "/proc/modules", guest_proc_modules },
		{ "/lib/modules/6.1.0-28-amd64/modules.builtin", guest_builtin },
		{ "/lib/modules/6.1.0-28-amd64/modules.dep", guest_dep },
		{ "/dev/mapper/control", NULL },
		{ "/proc/self/ns/net", NULL },
		{ "/usr/sbin/tgtd", NULL }, { "/usr/sbin/tgtadm", NULL },
		{ "/usr/sbin/iscsid", NULL }, { "/usr/bin/iscsiadm", NULL },
		{ "/usr/sbin/dmsetup", NULL }, { "/usr/sbin/multipath", NULL },
		{ "/work/main/build/tgt-backend/bs_delay.so", NULL },
		{ NULL, NULL },
	};
	struct fake_machine m = { files, 1, "6.1.0-28-amd64" };
	struct sp_doctor_ops ops = fake_ops(&m);
	struct sp_doctor_report r;
	char line[512];

	(void)state;
	assert_int_equal(sp_doctor_run(&ops, &guest_env, &r), 0);
	assert_int_equal(r.mode, SP_MODE_NATIVE);
	assert_false(r.ready);
	sp_doctor_format_verdict(&r, line, sizeof(line));
	assert_string_equal(line, "verdict: slowpath runs natively; missing: fio");
	sp_doctor_format_item(item(&r, "fio"), line, sizeof(line));
	assert_non_null(strstr(line, "MISSING"));
}

static void unknown_release_still_sees_loaded_modules(void **state)
{
	struct fake_machine m = { guest_files, 1, NULL };
	struct sp_doctor_ops ops = fake_ops(&m);
	struct sp_doctor_report r;

	(void)state;
	assert_int_equal(sp_doctor_run(&ops, &guest_env, &r), 0);
	assert_int_equal(item(&r, "dm-multipath")->state, SP_DOC_LOADED);
	assert_int_equal(item(&r, "veth")->state, SP_DOC_MISSING);
	assert_int_equal(r.mode, SP_MODE_LAB);
}

/* A fresh guest: nothing loaded yet, so no /dev/mapper/control either;
 * that is fine as long as dm_mod can be loaded. Loaded without the node
 * is not. */
static void device_mapper_needs_its_node_only_once_loaded(void **state)
{
	static const char dep[] = "kernel/drivers/md/dm-mod.ko:\n";
	static const struct fake_file fresh[] = {
		{ "/lib/modules/6.1.0-57-amd64/modules.dep", dep },
		{ NULL, NULL },
	};
	static const struct fake_file no_node[] = {
		{ "/proc/modules", guest_proc_modules },
		{ NULL, NULL },
	};
	struct fake_machine m = { fresh, 1, "6.1.0-57-amd64" };
	struct sp_doctor_ops ops = fake_ops(&m);
	struct sp_doctor_report r;
	char line[512];

	(void)state;
	assert_int_equal(sp_doctor_run(&ops, &guest_env, &r), 0);
	assert_int_equal(item(&r, "device-mapper")->state, SP_DOC_LOADABLE);
	m.files = no_node;
	assert_int_equal(sp_doctor_run(&ops, &guest_env, &r), 0);
	assert_int_equal(item(&r, "device-mapper")->state, SP_DOC_MISSING);
	sp_doctor_format_item(item(&r, "device-mapper"), line, sizeof(line));
	assert_non_null(strstr(line, "dmsetup mknodes"));
}

static void proc_modules_matches_whole_names(void **state)
{
	(void)state;
	assert_true(sp_kmod_in_proc_modules(guest_proc_modules, "dm_mod"));
	assert_true(sp_kmod_in_proc_modules(guest_proc_modules, "dm-multipath"));
	/* a prefix of a loaded module is not loaded */
	assert_false(sp_kmod_in_proc_modules(guest_proc_modules, "dm_multi"));
	assert_false(sp_kmod_in_proc_modules(guest_proc_modules, "dm_service_time_x"));
	assert_false(sp_kmod_in_proc_modules("", "dm_mod"));
	/* only the first field is a name: "Live" is not a module */
	assert_false(sp_kmod_in_proc_modules(guest_proc_modules, "Live"));
}

static void path_lists_name_modules_by_basename(void **state)
{
	char name[64];

	(void)state;
	sp_kmod_name_from_path("kernel/drivers/md/dm-round-robin.ko.zst", 39,
			       name, sizeof(name));
	assert_string_equal(name, "dm_round_robin");
	sp_kmod_name_from_path("extra/sd_mod.ko", 15, name, sizeof(name));
	assert_string_equal(name, "sd_mod");
	/* ".ko" inside a name is not the suffix */
	sp_kmod_name_from_path("kernel/x/foo.kobj.ko", 20, name, sizeof(name));
	assert_string_equal(name, "foo.kobj");
	assert_true(sp_kmod_in_path_list(guest_dep, "dm_queue_length"));
	/* a dependency on the right of ':' is not a module of its own line */
	assert_false(sp_kmod_in_path_list(guest_dep, "libiscsi_tcp"));
	assert_false(sp_kmod_in_path_list(guest_dep, "dm_mod"));
	assert_true(sp_kmod_in_path_list(guest_builtin, "sd-mod"));
	assert_false(sp_kmod_in_path_list(guest_builtin, "sd"));
}

static void which_prefers_path_then_sbin(void **state)
{
	static const struct fake_file files[] = {
		{ "/opt/tgt/sbin/tgtd", NULL },
		{ "/usr/sbin/tgtd", NULL },
		{ "tgtd", NULL },
		{ NULL, NULL },
	};
	struct fake_machine m = { files, 0, NULL };
	struct sp_doctor_ops ops = fake_ops(&m);
	char out[256];

	(void)state;
	assert_int_equal(sp_doctor_which(&ops, "/opt/tgt/sbin:/bin", "tgtd",
					 out, sizeof(out)), 0);
	assert_string_equal(out, "/opt/tgt/sbin/tgtd");
	assert_int_equal(sp_doctor_which(&ops, NULL, "tgtd", out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/sbin/tgtd");
	/* an empty PATH entry (the current directory) is not searched */
	assert_int_equal(sp_doctor_which(&ops, ":", "fio", out, sizeof(out)), -ENOENT);
	assert_int_equal(sp_doctor_which(&ops, ":", "tgtd", out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/sbin/tgtd");
	assert_int_equal(sp_doctor_which(&ops, "", "/opt/tgt/sbin/tgtd", out,
					 sizeof(out)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(guest_runs_natively),
		cmocka_unit_test(not_root_means_lab),
		cmocka_unit_test(bare_host_goes_to_the_lab),
		cmocka_unit_test(missing_program_makes_native_not_ready),
		cmocka_unit_test(unknown_release_still_sees_loaded_modules),
		cmocka_unit_test(device_mapper_needs_its_node_only_once_loaded),
		cmocka_unit_test(proc_modules_matches_whole_names),
		cmocka_unit_test(path_lists_name_modules_by_basename),
		cmocka_unit_test(which_prefers_path_then_sbin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
