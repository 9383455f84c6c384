/* Which host paths the uml guest (nobody) can read (lab/lab_sandbox.c):
 * the engine is chosen by it, so a checkout under a private folder
 * falls back to qemu instead of a guest that cannot find its init. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_sandbox.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void public_only_when_every_folder_is_searchable(void **state)
{
	char tmp[] = "/tmp/sp-sandbox-XXXXXX", p[PATH_MAX], bad[PATH_MAX];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	assert_int_equal(chmod(tmp, 0755), 0);
	snprintf(p, sizeof(p), "%s/open", tmp);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/open/file", tmp);
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(p, 0644), 0);
	assert_true(sp_lab_path_public(p, bad, sizeof(bad)));
	assert_int_equal(chmod(p, 0600), 0);
	assert_false(sp_lab_path_public(p, bad, sizeof(bad)));
	assert_string_equal(bad, p);
	assert_int_equal(chmod(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/open", tmp);
	assert_int_equal(chmod(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/open/file", tmp);
	assert_false(sp_lab_path_public(p, bad, sizeof(bad)));
	snprintf(p, sizeof(p), "%s/open", tmp);
	assert_string_equal(bad, p);
	assert_false(sp_lab_path_public("relative/path", NULL, 0));
	assert_false(sp_lab_path_public("/nonexistent/x", bad, sizeof(bad)));
	assert_string_equal(bad, "/nonexistent");
	assert_true(sp_lab_path_public("/", NULL, 0));
	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(public_only_when_every_folder_is_searchable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
