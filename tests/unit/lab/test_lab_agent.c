/* issue 23 item 7: the environment the lab agent gives a forwarded
 * command (lab/lab_agent.c): the forwarding caller's, with the names
 * its SLOWPATH_LAB_ENV lists, and nothing of the agent's own but what
 * the guest sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_agent.h"
#include "lab/lab_frame.h"
#include "lab/lab_vm.h"

#include <string.h>

static int has(const struct sp_strv *sv, const char *entry)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], entry))
			return 1;
	return 0;
}

static int has_name(const struct sp_strv *sv, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], name, n) && sv->v[i][n] == '=')
			return 1;
	return 0;
}

static void test_lab_env_names_reach_the_command(void **state)
{
	char *env[] = { "SLOWPATH_LAB_ENV=MYVAR, OTHER_1", "MYVAR=x y",
			"OTHER_1=2", "UNLISTED=3", "SLOWPATH_DEBUG=1", NULL };
	char *own[] = { NULL };
	struct sp_lab_req req = { .env = env };
	struct sp_strv out = { 0 };

	(void)state;
	assert_int_equal(sp_lab_agent_env(own, &req, &out), 0);
	assert_true(has(&out, "MYVAR=x y"));
	assert_true(has(&out, "OTHER_1=2"));
	assert_true(has(&out, "SLOWPATH_DEBUG=1"));
	assert_false(has_name(&out, "UNLISTED"));
	assert_true(has(&out, "SLOWPATH_IN_LAB=1"));
	sp_strv_free(&out);
}

static void test_bad_lab_env_list_passes_nothing_extra(void **state)
{
	char *env[] = { "SLOWPATH_LAB_ENV=MYVAR LD_PRELOAD", "MYVAR=x",
			"LD_PRELOAD=/x.so", "PATH=/evil", NULL };
	char *own[] = { NULL };
	struct sp_lab_req req = { .env = env };
	struct sp_strv out = { 0 };

	(void)state;
	assert_int_equal(sp_lab_agent_env(own, &req, &out), 0);
	assert_false(has_name(&out, "MYVAR"));
	assert_false(has_name(&out, "LD_PRELOAD"));
	assert_false(has(&out, "PATH=/evil"));
	sp_strv_free(&out);
}

static void test_agent_own_env_stays_out(void **state)
{
	char *env[] = { "TERM=xterm", NULL };
	char *own[] = { "SLOWPATH_BAKED=1", "LANG=de_DE.UTF-8", "MYVAR=old",
			"SLOWPATH_LAB_ENGINE=qemu", "SLOWPATH_LAB_TIME=real", NULL };
	struct sp_lab_req req = { .env = env, .rows = 40, .cols = 100 };
	struct sp_strv out = { 0 };

	(void)state;
	assert_int_equal(sp_lab_agent_env(own, &req, &out), 0);
	assert_false(has_name(&out, "SLOWPATH_BAKED"));
	assert_false(has_name(&out, "LANG"));
	assert_false(has_name(&out, "MYVAR"));
	assert_true(has(&out, "SLOWPATH_LAB_ENGINE=qemu"));
	assert_true(has(&out, "SLOWPATH_LAB_TIME=real"));
	assert_true(has(&out, "TERM=xterm"));
	assert_true(has(&out, "LINES=40"));
	assert_true(has(&out, "COLUMNS=100"));
	sp_strv_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_env_names_reach_the_command),
		cmocka_unit_test(test_bad_lab_env_list_passes_nothing_extra),
		cmocka_unit_test(test_agent_own_env_stays_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
