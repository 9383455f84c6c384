/* Which engine a lab command takes and what it refuses before any boot
 * (lab/lab_engine.c, lab_start.c), through mock engines: --engine, then
 * $SLOWPATH_LAB_ENGINE, then uml where prepared, else qemu; one CPU on
 * uml; exact time only on uml; the prepared tree looked up only once
 * the request is sound, the host checked only once the tree is found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/exitcodes.h"
#include "lab/lab_engine.h"
#include "lab/lab_life.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the mocks were asked and answer. */
static struct {
	int uml_prepared;
	int find_ret, check_ret;
	int finds, checks;
	const char *found_series;
	enum sp_lab_engine found_engine;
} mock;

static int mock_prepared(const char *lab, const char *series)
{
	(void)lab;
	(void)series;
	return mock.uml_prepared;
}

static int mock_find(struct sp_lab_paths *lp, const char *series)
{
	mock.finds++;
	mock.found_series = series;
	mock.found_engine = lp->engine;
	snprintf(lp->dir, sizeof(lp->dir), "/lab/tree");
	snprintf(lp->kernel, sizeof(lp->kernel), "/lab/tree/kernel");
	return mock.find_ret;
}

static int mock_check(struct sp_lab_paths *lp)
{
	(void)lp;
	mock.checks++;
	return mock.check_ret;
}

static const struct sp_lab_engine_ops qemu_mock = {
	.engine = SP_LAB_ENGINE_QEMU, .default_cpus = 2,
	.prepared = mock_prepared, .find_tree = mock_find, .host_check = mock_check,
};
static const struct sp_lab_engine_ops uml_mock = {
	.engine = SP_LAB_ENGINE_UML, .default_cpus = 1, .max_cpus = 1,
	.prepared = mock_prepared, .find_tree = mock_find, .host_check = mock_check,
};
static const struct sp_lab_engines engines = { &qemu_mock, &uml_mock };

static int reset(void **state)
{
	(void)state;
	memset(&mock, 0, sizeof(mock));
	unsetenv("SLOWPATH_LAB_ENGINE");
	setenv("SLOWPATH_LAB_DIR", "/nonexistent/lab", 1);
	return 0;
}

static void test_named_engine_first(void **state)
{
	enum sp_lab_engine e;

	(void)state;
	mock.uml_prepared = 1;
	setenv("SLOWPATH_LAB_ENGINE", "uml", 1);
	assert_int_equal(sp_lab_pick_engine(&engines, "qemu", NULL, &e), 0);
	assert_int_equal(e, SP_LAB_ENGINE_QEMU);
	assert_int_equal(sp_lab_pick_engine(&engines, "kvm", NULL, &e), -EINVAL);
}

static void test_env_before_prepared(void **state)
{
	enum sp_lab_engine e;

	(void)state;
	mock.uml_prepared = 1;
	setenv("SLOWPATH_LAB_ENGINE", "qemu", 1);
	assert_int_equal(sp_lab_pick_engine(&engines, NULL, NULL, &e), 0);
	assert_int_equal(e, SP_LAB_ENGINE_QEMU);
	setenv("SLOWPATH_LAB_ENGINE", "bogus", 1);
	assert_int_equal(sp_lab_pick_engine(&engines, "", NULL, &e), -EINVAL);
}

static void test_uml_where_prepared_else_qemu(void **state)
{
	enum sp_lab_engine e;

	(void)state;
	mock.uml_prepared = 1;
	assert_int_equal(sp_lab_pick_engine(&engines, NULL, "6.12", &e), 0);
	assert_int_equal(e, SP_LAB_ENGINE_UML);
	mock.uml_prepared = 0;
	assert_int_equal(sp_lab_pick_engine(&engines, NULL, "6.12", &e), 0);
	assert_int_equal(e, SP_LAB_ENGINE_QEMU);
}

static void test_defaults_per_engine(void **state)
{
	struct sp_lab_ask ask = { 0 };
	struct sp_lab_vm vm = { 0 };
	struct sp_lab_paths lp;

	(void)state;
	mock.uml_prepared = 1;
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), 0);
	assert_int_equal(vm.engine, SP_LAB_ENGINE_UML);
	assert_int_equal(vm.cpus, 1);
	assert_int_equal(vm.time, SP_LAB_TIME_EXACT);
	assert_string_equal(vm.kernel, "/lab/tree/kernel");
	assert_string_equal(vm.lab_dir, "/lab/tree");
	assert_int_equal(mock.found_engine, SP_LAB_ENGINE_UML);
	ask.engine = "qemu";
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), 0);
	assert_int_equal(vm.cpus, 2);
	assert_int_equal(vm.time, SP_LAB_TIME_REAL);
	assert_int_equal(mock.found_engine, SP_LAB_ENGINE_QEMU);
}

static void test_uml_refuses_cpus_before_lookup(void **state)
{
	struct sp_lab_ask ask = { .engine = "uml", .cpus = 2 };
	struct sp_lab_vm vm = { 0 };
	struct sp_lab_paths lp;

	(void)state;
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), SP_EXIT_USAGE);
	assert_int_equal(mock.finds, 0);
	/* qemu takes them */
	ask.engine = "qemu";
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), 0);
	assert_int_equal(vm.cpus, 2);
}

static void test_exact_time_needs_uml(void **state)
{
	struct sp_lab_ask ask = { .engine = "qemu", .time = "exact" };
	struct sp_lab_vm vm = { 0 };
	struct sp_lab_paths lp;

	(void)state;
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), SP_EXIT_USAGE);
	ask.time = "later";
	ask.engine = "uml";
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), SP_EXIT_USAGE);
	assert_int_equal(mock.finds, 0);
	ask.time = "real";
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), 0);
	assert_int_equal(vm.time, SP_LAB_TIME_REAL);
}

static void test_bad_series_is_usage(void **state)
{
	struct sp_lab_ask ask = { .engine = "qemu", .kernel = "../6.1" };
	struct sp_lab_vm vm = { 0 };
	struct sp_lab_paths lp;

	(void)state;
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), SP_EXIT_USAGE);
	assert_int_equal(mock.finds, 0);
	ask.kernel = "6.12";
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), 0);
	assert_string_equal(mock.found_series, "6.12");
}

static void test_missing_tree_is_env_and_host_unchecked(void **state)
{
	struct sp_lab_ask ask = { .engine = "uml" };
	struct sp_lab_vm vm = { 0 };
	struct sp_lab_paths lp;

	(void)state;
	mock.find_ret = -ENOENT;
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), SP_EXIT_ENV);
	assert_int_equal(mock.checks, 0);
	mock.find_ret = 0;
	mock.check_ret = SP_EXIT_ENV;
	assert_int_equal(sp_lab_setup(&engines, &ask, &vm, &lp), SP_EXIT_ENV);
	assert_int_equal(mock.checks, 1);
}

static void test_start_is_qemu_only(void **state)
{
	struct sp_lab_guest_opts o = { .ask = { .engine = "uml" }, .timeout = -1 };

	(void)state;
	/* refused before the run folder is touched or a tree looked up */
	setenv("SLOWPATH_LAB_RUN", "relative/not/allowed", 1);
	assert_int_equal(sp_lab_start(&engines, &o), SP_EXIT_USAGE);
	assert_int_equal(mock.finds, 0);
	unsetenv("SLOWPATH_LAB_RUN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_named_engine_first, reset),
		cmocka_unit_test_setup(test_env_before_prepared, reset),
		cmocka_unit_test_setup(test_uml_where_prepared_else_qemu, reset),
		cmocka_unit_test_setup(test_defaults_per_engine, reset),
		cmocka_unit_test_setup(test_uml_refuses_cpus_before_lookup, reset),
		cmocka_unit_test_setup(test_exact_time_needs_uml, reset),
		cmocka_unit_test_setup(test_bad_series_is_usage, reset),
		cmocka_unit_test_setup(test_missing_tree_is_env_and_host_unchecked, reset),
		cmocka_unit_test_setup(test_start_is_qemu_only, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
