/* The lab folder's names (lab/lab_layout.c): which link a series' qemu
 * and uml preparations go by, and where the lab folder is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_layout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void test_uml_link_of_series(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(sp_lab_uml_link("6.12", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "current-uml-6.12");
	assert_int_equal(sp_lab_uml_link(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "current-uml");
	/* a series is a name in the lab folder: nothing else gets there */
	assert_int_equal(sp_lab_uml_link("../6.1", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sp_lab_uml_link("6.12", buf, 12), -ENAMETOOLONG);
}

static void test_lab_dir_env_first(void **state)
{
	char buf[64];

	(void)state;
	setenv("SLOWPATH_LAB_DIR", "/srv/lab", 1);
	assert_int_equal(sp_lab_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/srv/lab");
	assert_int_equal(sp_lab_dir(buf, 4), -ENAMETOOLONG);
	/* empty is unset: lab/ beside this binary */
	setenv("SLOWPATH_LAB_DIR", "", 1);
	assert_int_equal(sp_lab_dir(buf, sizeof(buf)), 0);
	assert_true(strlen(buf) > 4);
	assert_string_equal(buf + strlen(buf) - 4, "/lab");
	unsetenv("SLOWPATH_LAB_DIR");
}

static void test_file_in_dir(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(sp_lab_file(buf, sizeof(buf), "/l/x", SP_LAB_READY), 0);
	assert_string_equal(buf, "/l/x/ready");
	/* a cut path is an error, never a shorter name */
	assert_int_equal(sp_lab_file(buf, 8, "/l/x", SP_LAB_READY), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uml_link_of_series),
		cmocka_unit_test(test_lab_dir_env_first),
		cmocka_unit_test(test_file_in_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
