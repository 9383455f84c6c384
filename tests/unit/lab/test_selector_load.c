/* Unit tests of loading a built selector (issue 23 item 1): a rebuilt
 * selector whose module is loaded already replaces it (rmmod, insmod),
 * is kept when the loaded one is the same build (srcversion), and is
 * refused with a clear message while a map uses the old one; never is
 * the old module kept silently. The kernel is a mock behind the
 * sp_sys_ops struct; the store's srcversion comes from a .ko image
 * read by sp_selector_store_load_release. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "dm/selector.h"
#include "harness/bringup/bringup.h"
#include "harness/bringup/state.h"
#include "lab/selector_build.h"

#define MOD "dm_ps_latency_random"
#define KO "/s/6.1/latency-random.ko"

/* The kernel as the mock sees it: is MOD loaded, which build, who
 * holds it; every command run, one per line. */
static struct {
	int loaded;
	char srcversion[32];
	int refcnt;
	int rmmod_fails;
	char cmds[4096];
} K;

static char state_dir[64];
static const char table[] = "0 4194304 multipath 0 0 1 1 round-robin 0 "
			    "2 1 8:0 1 8:16 1\n";

static int m_run(void *ctx, const char *const *argv, char *out,
		 size_t outlen)
{
	size_t i;

	(void)ctx;
	if (out && outlen)
		out[0] = '\0';
	for (i = 0; argv[i]; i++) {
		strncat(K.cmds, argv[i], sizeof(K.cmds) - strlen(K.cmds) - 2);
		strcat(K.cmds, argv[i + 1] ? " " : "\n");
	}
	if (!strcmp(argv[0], "rmmod")) {
		if (K.rmmod_fails || K.refcnt)
			return 1;
		K.loaded = 0;
	}
	if (!strcmp(argv[0], "insmod")) {
		if (K.loaded)
			return 1;	/* "File exists" */
		K.loaded = 1;
		snprintf(K.srcversion, sizeof(K.srcversion), "NEW");
	}
	return 0;
}

static int m_exists(void *ctx, const char *path)
{
	(void)ctx;
	return K.loaded && !strcmp(path, "/sys/module/" MOD);
}

static int m_read_file(void *ctx, const char *path, char *buf, size_t len)
{
	(void)ctx;
	if (!K.loaded)
		return -ENOENT;
	if (!strcmp(path, "/sys/module/" MOD "/srcversion") && K.srcversion[0])
		snprintf(buf, len, "%s\n", K.srcversion);
	else if (!strcmp(path, "/sys/module/" MOD "/refcnt"))
		snprintf(buf, len, "%d\n", K.refcnt);
	else
		return -ENOENT;
	return 0;
}

static const char *m_last_error(void *ctx)
{
	(void)ctx;
	return "rmmod: ERROR: Module " MOD " is in use";
}

static int m_table_get(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	(void)name;
	snprintf(buf, len, "%s", table);
	return 0;
}

static int m_reload(void *ctx, const char *name, const char *text)
{
	(void)ctx;
	strncat(K.cmds, "reload ", sizeof(K.cmds) - strlen(K.cmds) - 1);
	strncat(K.cmds, name, sizeof(K.cmds) - strlen(K.cmds) - 1);
	strncat(K.cmds, strstr(text, "latency-random") ? " latency-random\n"
		: " other\n", sizeof(K.cmds) - strlen(K.cmds) - 1);
	return 0;
}

static const struct sp_dm_ops dm = {
	.table = m_table_get, .reload = m_reload,
};

static const struct sp_sys_ops ops = {
	.run = m_run, .exists = m_exists, .read_file = m_read_file,
	.last_error = m_last_error, .dm = &dm,
};

static enum sp_selector kind;

/* The store's build has srcversion stored ("" none); the kernel has
 * loaded (or not) the build loaded_sv with refcnt users. */
static void setup_kernel(const char *stored, int loaded,
			 const char *loaded_sv, int users)
{
	memset(&K, 0, sizeof(K));
	K.loaded = loaded;
	snprintf(K.srcversion, sizeof(K.srcversion), "%s", loaded_sv);
	K.refcnt = users;
	sp_selector_unregister_all();
	assert_int_equal(sp_selector_register("latency-random", MOD, KO,
					      &kind), 0);
	if (stored[0])
		assert_int_equal(sp_selector_set_srcversion(kind, stored), 0);
}

/* `selector set latency-random` on a map that is up. */
static int selector_set(char *err, size_t errlen)
{
	struct sp_state st;
	struct sp_dm_selector sel;

	sp_state_init(&st);
	st.complete = 1;
	snprintf(st.topology, sizeof(st.topology), "equal2");
	snprintf(st.map_name, sizeof(st.map_name), "slowpath-equal2");
	sp_dm_selector_init(&sel, kind);
	return sp_bringup_selector_set(&ops, &st, &sel, state_dir, err,
				       errlen);
}

static int setup_dir(void **state)
{
	char path[96];
	int fd;

	(void)state;
	snprintf(state_dir, sizeof(state_dir), "/tmp/sp-selload-XXXXXX");
	if (!mkdtemp(state_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", state_dir, SP_STATE_FILE);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state_dir);
	return system(cmd) ? -1 : 0;
}

static void rebuilt_replaces_the_loaded_module(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	setup_kernel("NEW", 1, "OLD", 0);
	ret = selector_set(err, sizeof(err));
	if (ret)
		fail_msg("selector set: %s", err);
	assert_non_null(strstr(K.cmds, "rmmod " MOD "\n"));
	assert_non_null(strstr(K.cmds, "insmod " KO "\n"));
	assert_true(strstr(K.cmds, "rmmod ") < strstr(K.cmds, "insmod "));
	assert_true(strstr(K.cmds, "insmod ") <
		    strstr(K.cmds, "reload slowpath-equal2 latency-random"));
	assert_string_equal(K.srcversion, "NEW");
}

static void same_build_is_kept(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	setup_kernel("NEW", 1, "NEW", 1);
	assert_int_equal(selector_set(err, sizeof(err)), 0);
	assert_null(strstr(K.cmds, "rmmod"));
	assert_null(strstr(K.cmds, "insmod"));
	assert_non_null(strstr(K.cmds, "reload slowpath-equal2 latency-random"));
}

/* A map holds the old build: refused before the table is touched. */
static void old_build_in_use_is_refused(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	setup_kernel("NEW", 1, "OLD", 1);
	assert_int_equal(selector_set(err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, MOD));
	assert_non_null(strstr(err, "srcversion OLD, the store's NEW"));
	assert_non_null(strstr(err, "in use"));
	assert_null(strstr(K.cmds, "insmod"));
	assert_null(strstr(K.cmds, "reload"));
	assert_string_equal(K.srcversion, "OLD");
}

/* Without a srcversion on either side they cannot be told apart: the
 * stored one replaces the loaded one. */
static void unknown_build_is_replaced(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	setup_kernel("", 1, "", 0);
	ret = selector_set(err, sizeof(err));
	if (ret)
		fail_msg("selector set: %s", err);
	assert_non_null(strstr(K.cmds, "rmmod " MOD "\n"));
	assert_non_null(strstr(K.cmds, "insmod " KO "\n"));
}

static void failed_rmmod_is_refused(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	setup_kernel("NEW", 1, "OLD", 0);
	K.rmmod_fails = 1;
	assert_int_equal(selector_set(err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "cannot remove the loaded " MOD));
	assert_null(strstr(K.cmds, "insmod"));
	assert_null(strstr(K.cmds, "reload"));
}

static void not_loaded_is_insmodded(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	setup_kernel("NEW", 0, "", 0);
	assert_int_equal(selector_set(err, sizeof(err)), 0);
	assert_null(strstr(K.cmds, "rmmod"));
	assert_non_null(strstr(K.cmds, "insmod " KO "\n"));
}

/* The store's .ko carries the srcversion the comparison uses. */
static void store_load_records_srcversion(void **state)
{
	static const char ko[] = "\x7f" "ELF\0dm_register_path_selector\0"
		"latency-random\0srcversion=1DFCA07972794B38A7A81A6\0"
		"name=dm_ps_latency_random\0";
	char store[96], path[192];
	enum sp_selector k;

	(void)state;
	snprintf(store, sizeof(store), "%s/store", state_dir);
	snprintf(path, sizeof(path), "%s/6.1.0-test", store);
	assert_int_equal(mkdir(store, 0700), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	strcat(path, "/latency-random.ko");
	assert_int_equal(sp_file_write_atomic(path, ko, sizeof(ko), 0600), 0);
	setenv("SLOWPATH_SELECTOR_DIR", store, 1);
	sp_selector_unregister_all();
	assert_int_equal(sp_selector_store_load_release("6.1.0-test"), 1);
	assert_int_equal(sp_selector_parse("latency-random", &k), 0);
	assert_string_equal(sp_selector_info(k)->srcversion,
			    "1DFCA07972794B38A7A81A6");
	unsetenv("SLOWPATH_SELECTOR_DIR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rebuilt_replaces_the_loaded_module),
		cmocka_unit_test(same_build_is_kept),
		cmocka_unit_test(old_build_in_use_is_refused),
		cmocka_unit_test(unknown_build_is_replaced),
		cmocka_unit_test(failed_rmmod_is_refused),
		cmocka_unit_test(not_loaded_is_insmodded),
		cmocka_unit_test(store_load_records_srcversion),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
