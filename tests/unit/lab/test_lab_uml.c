/* The uml guest's command line (lab/lab_uml.c). */
#include "lab/lab_uml.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const struct sp_lab_vm base = {
	.mode = SP_LAB_RUN, .kernel = "/b/lab/uml-x/linux",
	.lab_dir = "/b/lab/uml-x", .uml_init = "/b/lab/uml-x/uml-init",
	.xchg_dir = "/b/lab/run/1-abc", .console_log = "/b/lab/logs/x.log",
	.cpus = 1, .mem_bytes = 2ULL << 30, .engine = SP_LAB_ENGINE_UML,
	.time = SP_LAB_TIME_EXACT,
};

static int has(const struct sp_strv *sv, const char *word)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], word))
			return 1;
	return 0;
}

static void test_exact_run(void **state)
{
	struct sp_strv sv = { 0 };

	(void)state;
	assert_int_equal(sp_lab_uml_argv(&base, &sv), 0);
	assert_string_equal(sv.v[0], "/b/lab/uml-x/linux");
	assert_true(has(&sv, "mem=2048M"));
	assert_true(has(&sv, "time-travel=inf-cpu"));
	assert_true(has(&sv, "rootfstype=hostfs"));
	assert_true(has(&sv, "init=/b/lab/uml-x/uml-init"));
	assert_true(has(&sv, "con=null"));
	assert_true(has(&sv, "ssl=null"));
	assert_true(has(&sv, "con0=null,fd:1"));
	assert_true(has(&sv, "con1=null,fd:3"));
	assert_true(has(&sv, "con2=null,fd:4"));
	assert_true(has(&sv, "LAB_XCHG=/b/lab/run/1-abc"));
	assert_true(has(&sv, "LAB_DIR=/b/lab/uml-x"));
	/* no NIC of any kind */
	for (size_t i = 0; i < sv.n; i++)
		assert_null(strstr(sv.v[i], "eth"));
	sp_strv_free(&sv);
}

static void test_real_time_and_shell(void **state)
{
	struct sp_lab_vm vm = base;
	struct sp_strv sv = { 0 };

	(void)state;
	vm.time = SP_LAB_TIME_REAL;
	vm.mode = SP_LAB_SHELL;
	vm.console_log = NULL;
	assert_int_equal(sp_lab_uml_argv(&vm, &sv), 0);
	assert_false(has(&sv, "time-travel=inf-cpu"));
	assert_true(has(&sv, "con0=fd:0,fd:1"));
	assert_false(has(&sv, "con1=null,fd:3"));
	sp_strv_free(&sv);
}

/* lab start: the control line is console 3 on fds 5 and 6; a run
 * has none. */
static void test_agent_control_line(void **state)
{
	struct sp_lab_vm vm = base;
	struct sp_strv sv = { 0 };

	(void)state;
	assert_int_equal(sp_lab_uml_argv(&base, &sv), 0);
	for (size_t i = 0; i < sv.n; i++)
		assert_null(strstr(sv.v[i], "con3"));
	sp_strv_free(&sv);
	vm.mode = SP_LAB_AGENT;
	assert_int_equal(sp_lab_uml_argv(&vm, &sv), 0);
	assert_true(has(&sv, "con3=fd:5,fd:6"));
	assert_true(has(&sv, "con1=null,fd:3"));
	assert_true(has(&sv, "con2=null,fd:4"));
	assert_true(has(&sv, "con0=null,fd:1"));
	assert_true(has(&sv, "time-travel=inf-cpu"));
	sp_strv_free(&sv);
	/* and still none without its console log */
	vm.console_log = NULL;
	assert_int_equal(sp_lab_uml_argv(&vm, &sv), -EINVAL);
}

/* A path that would split into two kernel words, or smuggle an
 * init= or a KEY=value of its own, is refused, as are 2 CPUs. */
static void test_refuses_what_would_not_be_one_word(void **state)
{
	const char *bad[] = { "/b/a b", "/b/a\tb", "/b/a\"b", "/b/\xc3\xa9", "", "rel/x" };
	struct sp_lab_vm vm;
	struct sp_strv sv = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vm = base;
		vm.xchg_dir = bad[i];
		assert_int_equal(sp_lab_uml_argv(&vm, &sv), -EINVAL);
		vm = base;
		vm.lab_dir = bad[i];
		assert_int_equal(sp_lab_uml_argv(&vm, &sv), -EINVAL);
	}
	vm = base;
	vm.cpus = 2;
	assert_int_equal(sp_lab_uml_argv(&vm, &sv), -EINVAL);
	vm = base;
	vm.uml_init = NULL;
	assert_int_equal(sp_lab_uml_argv(&vm, &sv), -EINVAL);
	assert_int_equal(sv.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_run),
		cmocka_unit_test(test_real_time_and_shell),
		cmocka_unit_test(test_agent_control_line),
		cmocka_unit_test(test_refuses_what_would_not_be_one_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
