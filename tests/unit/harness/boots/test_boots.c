/* Unit tests of harness/boots/boots.c: what each lab boot of run
 * --kernels/--jobs runs (the host's own options left out, the caller's
 * replaced, the values as arguments, never in the script), what it
 * refuses up front, and the merge of the boots' cases into one folder,
 * which never writes over a case already there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/exitcodes.h"
#include "harness/boots/boots.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_guest_argv_drops_host_options(void **state)
{
	struct sp_run_cli cli = { .topology = "skew4", .unit = "2ms" };
	char *argv[] = { "run", "--kernels", "6.1,6.12", "--topology=skew4",
			 "--rw", "randread", "--out", "/r", "--lab-cpus", "3",
			 "--unit", "2ms", "--ios", "100", NULL };
	char **v;
	int n;

	(void)state;
	v = sp_run_boot_guest_argv(&cli, "/b/slowpath", 14, argv, NULL, NULL,
				   "/r/6.1", &n);
	assert_non_null(v);
	assert_int_equal(n, 13);
	assert_string_equal(v[0], "/bin/sh");
	assert_string_equal(v[1], "-c");
	/* the script names no value of ours: they come as $1.. */
	assert_null(strstr(v[2], "skew4"));
	assert_string_equal(v[4], "/b/slowpath");
	assert_string_equal(v[5], "skew4");
	assert_string_equal(v[6], "2ms");
	assert_string_equal(v[7], "--rw");
	assert_string_equal(v[8], "randread");
	assert_string_equal(v[9], "--ios");
	assert_string_equal(v[10], "100");
	assert_string_equal(v[11], "--out");
	assert_string_equal(v[12], "/r/6.1");
	assert_null(v[13]);
	free(v);
}

static void test_guest_argv_replaces_skip(void **state)
{
	struct sp_run_cli cli = { .topology = "skew4" };
	char *argv[] = { "run", "--jobs", "2", "--rw=read,write", "--bs", "4k", NULL };
	const char *extra[] = { "--rw", "write", NULL };
	char **v;
	int n;

	(void)state;
	v = sp_run_boot_guest_argv(&cli, "/b/s", 6, argv, "--rw", extra, "/o", &n);
	assert_non_null(v);
	assert_int_equal(n, 13);
	assert_string_equal(v[6], "");		/* no --unit */
	assert_string_equal(v[7], "--bs");
	assert_string_equal(v[8], "4k");
	assert_string_equal(v[9], "--rw");
	assert_string_equal(v[10], "write");
	assert_string_equal(v[12], "/o");
	free(v);
}

static void test_refuses_what_is_not_merged(void **state)
{
	struct sp_run_cli cli = { 0 };

	(void)state;
	assert_int_equal(sp_run_boot_refuse(&cli, "--jobs"), 0);
	cli.timeline = 1;
	assert_int_equal(sp_run_boot_refuse(&cli, "--jobs"), SP_EXIT_USAGE);
	cli.timeline = 0;
	cli.verify = 1;
	assert_int_equal(sp_run_boot_refuse(&cli, "--kernels"), SP_EXIT_USAGE);
	cli.verify = 0;
	cli.n_faults = 1;
	assert_int_equal(sp_run_boot_refuse(&cli, "--kernels"), SP_EXIT_USAGE);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_merge_prefixes_and_never_overwrites(void **state)
{
	char out[] = "/tmp/test_boots.XXXXXX", dir[256], path[300], buf[16];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(out));
	snprintf(dir, sizeof(dir), "%s/cases", out);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/6.1", out);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/6.1/cases", out);
	assert_int_equal(mkdir(dir, 0755), 0);
	put(dir, "a.json", "{\"a\":1}");
	put(dir, "b.json", "{\"b\":2}");
	put(dir, "notes.txt", "not a case");
	put(dir, ".hidden.json", "{}");
	assert_int_equal(sp_run_boot_merge(out, "6.1", "6.1-"), 2);
	snprintf(path, sizeof(path), "%s/cases/6.1-a.json", out);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "{\"a\":1}");
	/* a second merge of the same boot would overwrite: refused */
	assert_true(sp_run_boot_merge(out, "6.1", "6.1-") < 0);
	/* a boot that left no cases folder merges none */
	assert_int_equal(sp_run_boot_merge(out, "6.12", "6.12-"), 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", out);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guest_argv_drops_host_options),
		cmocka_unit_test(test_guest_argv_replaces_skip),
		cmocka_unit_test(test_refuses_what_is_not_merged),
		cmocka_unit_test(test_merge_prefixes_and_never_overwrites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
