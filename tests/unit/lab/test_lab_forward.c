/* Which commands run in the running lab and what happens with none up
 * (lab/lab_forward.c), through mock forwarding ops: the kernel-stack
 * commands go to the lab only on a host without the kernel stack, not
 * for --help, not in the guest, not in their host-side forms; with no
 * lab, a command whose arguments can be checked alone is checked first
 * (bad input stays exit 1), then exit 2. The run folder is an empty
 * temporary one, so no lab is ever found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/exitcodes.h"
#include "lab/lab_life.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
	int native;
	int checks;
	int check_code;
	const char *checked;
	int boots_own, asked_boots;
} mock;

static int mock_native(void)
{
	return mock.native;
}

static int mock_check(int argc, char **argv)
{
	(void)argc;
	mock.checks++;
	mock.checked = argv[0];
	return mock.check_code;
}

static int mock_boots_own(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	mock.asked_boots++;
	return mock.boots_own;
}

static const struct sp_lab_forward_ops ops = { mock_native, mock_check,
					       mock_boots_own };
static char run_dir[] = "/tmp/test_lab_forward.XXXXXX";

static int reset(void **state)
{
	(void)state;
	memset(&mock, 0, sizeof(mock));
	unsetenv("SLOWPATH_IN_LAB");
	return 0;
}

/* 1 when sp_lab_forward took the command, *code its exit code. */
static int forward(int *code, int argc, ...)
{
	char *argv[16];
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	*code = -1;
	return sp_lab_forward(argc, argv, &ops, code);
}

static void test_runs_here(void **state)
{
	int code;

	(void)state;
	assert_int_equal(forward(&code, 2, "topo", "list"), 0);	/* no kernel stack */
	assert_int_equal(forward(&code, 2, "up", "--help"), 0);
	assert_int_equal(forward(&code, 3, "selector", "build", "x.c"), 0);
	assert_int_equal(forward(&code, 2, "reproduce", "--report-only"), 0);
	assert_int_equal(forward(&code, 3, "run", "--jobs", "2"), 0);
	assert_int_equal(forward(&code, 2, "run", "--kernels=6.1"), 0);
	assert_int_equal(forward(&code, 1, "doctor"), 0);	/* only --guest goes */
	mock.native = 1;
	assert_int_equal(forward(&code, 2, "up", "u10"), 0);
	mock.native = 0;
	setenv("SLOWPATH_IN_LAB", "1", 1);
	assert_int_equal(forward(&code, 2, "up", "u10"), 0);
	assert_int_equal(mock.checks, 0);
}

static void test_no_lab_checks_arguments_first(void **state)
{
	int code;

	(void)state;
	assert_int_equal(forward(&code, 2, "up", "u10"), 1);
	assert_int_equal(code, SP_EXIT_ENV);
	assert_int_equal(mock.checks, 1);
	assert_string_equal(mock.checked, "up");
	/* bad input is exit 1 even with no lab */
	mock.check_code = SP_EXIT_USAGE;
	assert_int_equal(forward(&code, 3, "fault", "2", "bogus"), 1);
	assert_int_equal(code, SP_EXIT_USAGE);
	/* down's arguments are not checked alone */
	assert_int_equal(forward(&code, 1, "down"), 1);
	assert_int_equal(code, SP_EXIT_ENV);
	assert_int_equal(mock.checks, 2);
	assert_int_equal(forward(&code, 2, "doctor", "--guest"), 1);
	assert_int_equal(code, SP_EXIT_ENV);
}

/* --jobs N (N not 0) boots its guests here; --jobs 0 asks for none and
 * goes where the command goes; with no --jobs and no lab, a command
 * that boots its own by default (boots_own) runs here, else no_lab */
static void test_jobs_default_runs_here(void **state)
{
	int code;

	(void)state;
	assert_int_equal(forward(&code, 3, "reproduce", "--jobs=3"), 0);
	assert_int_equal(forward(&code, 3, "run", "--jobs", "0"), 1);
	assert_int_equal(code, SP_EXIT_ENV);
	assert_int_equal(forward(&code, 2, "reproduce", "--jobs=0"), 1);
	assert_int_equal(code, SP_EXIT_ENV);
	assert_int_equal(mock.asked_boots, 0);
	mock.boots_own = 1;
	assert_int_equal(forward(&code, 3, "run", "--topology", "u10"), 0);
	assert_int_equal(mock.asked_boots, 1);
	/* an explicit --jobs 0 is not overridden by the default */
	assert_int_equal(forward(&code, 5, "run", "--topology", "u10", "--jobs",
				 "0"), 1);
	assert_int_equal(mock.asked_boots, 1);
	mock.boots_own = 0;
	assert_int_equal(forward(&code, 2, "reproduce", "nvme-latency-2025"), 1);
	assert_int_equal(code, SP_EXIT_ENV);
}

static void test_bad_run_folder_is_usage(void **state)
{
	int code;

	(void)state;
	setenv("SLOWPATH_LAB_RUN", "relative/run", 1);
	assert_int_equal(forward(&code, 2, "up", "u10"), 1);
	assert_int_equal(code, SP_EXIT_USAGE);
	assert_int_equal(mock.checks, 0);
	setenv("SLOWPATH_LAB_RUN", run_dir, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_runs_here, reset),
		cmocka_unit_test_setup(test_no_lab_checks_arguments_first, reset),
		cmocka_unit_test_setup(test_jobs_default_runs_here, reset),
		cmocka_unit_test_setup(test_bad_run_folder_is_usage, reset),
	};
	int failed;

	if (!mkdtemp(run_dir))
		return 1;
	setenv("SLOWPATH_LAB_RUN", run_dir, 1);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(run_dir);
	return failed;
}
