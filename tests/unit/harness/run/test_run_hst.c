/* Unit tests of the run loop's HST builds: `run --hst` (or up's build
 * from the journal) names the table each HST case reloads with, and
 * every case records which build and which clock_skew_ns it ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/run_loop.h"
#include "harness/run/run_matrix.h"
#include "tests/unit/harness/run/run_mock.h"

/* The builds each selector_set was given, in order: "st/stock" ... */
static char reloads[512];
static int (*mock_set)(void *ctx, const struct sp_dm_selector *sel);

static int logging_set(void *ctx, const struct sp_dm_selector *sel)
{
	size_t n = strlen(reloads);

	snprintf(reloads + n, sizeof(reloads) - n, "%s%s/%s", n ? " " : "",
		 sp_selector_short_name(sel->kind),
		 sel->hst_build == SP_HST_BUILD_5_8 ? "5.8" : "stock");
	return mock_set(ctx, sel);
}

/* What /sys shows: the stock module's label, and 5.8's skew. */
static int64_t sys_skew = 200000000;

static void env_info(void *ctx, struct sp_case_env *env)
{
	(void)ctx;
	snprintf(env->hst, sizeof(env->hst), "stock");
	env->has_hst_skew = 1;
	env->hst_skew_ns = sys_skew;
}

static void setup(struct run_mock *m, struct sp_run_ops *ops,
		  struct sp_run_target *t, struct sp_run_plan *p)
{
	run_mock_init(m);
	*ops = run_mock_ops(m);
	mock_set = ops->selector_set;
	ops->selector_set = logging_set;
	ops->env_info = env_info;
	reloads[0] = '\0';
	memset(t, 0, sizeof(*t));
	strcpy(t->topology, "t");
	strcpy(t->map_name, "slowpath-t");
	strcpy(t->device, "/dev/mapper/slowpath-t");
	strcpy(t->dm_name, "dm-0");
	t->n_paths = 2;
	strcpy(t->path[0], "sda");
	strcpy(t->path[1], "sdb");
	t->slow[1] = 1;
	sp_dm_selector_init(&t->initial, SP_SEL_ST);
	run_mock_plan(p);
	p->iodepth[0] = 32;
}

static void run_hst_names_the_build_and_records_the_skew(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	struct sp_case_result back;
	char *dir = run_mock_tmpdir("test_run_hst"), *text = NULL;

	(void)state;
	setup(&m, &ops, &t, &p);
	p.hst_given = 1;
	p.hst_build = SP_HST_BUILD_5_8;
	p.hst_skew_ns = 200000000;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	/* st, hst, then up's selector restored with up's build */
	assert_string_equal(reloads, "st/5.8 hst/5.8 st/stock");
	assert_string_equal(s.cases[1].env.hst_build, "5.8");
	assert_string_equal(s.cases[1].env.hst, "5.8 skew 200ms");
	assert_int_equal(s.cases[1].env.has_hst_skew, 1);
	/* saved and read back */
	assert_int_equal(sp_case_to_json(&s.cases[1], &text), 0);
	assert_non_null(strstr(text, "\"hst_build\""));
	assert_non_null(strstr(text, "\"hst_clock_skew_ns\""));
	assert_int_equal(sp_case_from_json(text, "t", &back), 0);
	assert_string_equal(back.env.hst_build, "5.8");
	assert_string_equal(back.env.hst, "5.8 skew 200ms");
	assert_int_equal(back.env.has_hst_skew, 1);
	assert_true(back.env.hst_skew_ns == 200000000);
	free(text);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void without_hst_up_s_build_is_used(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_hst"), *text = NULL;

	(void)state;
	setup(&m, &ops, &t, &p);
	t.initial.hst_build = SP_HST_BUILD_5_8;	/* up --hst 5.8:-20ms */
	sys_skew = -20000000;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	assert_string_equal(reloads, "st/5.8 hst/5.8 st/5.8");
	assert_string_equal(s.cases[1].env.hst, "5.8 skew -20ms");
	/* and --hst stock overrides it */
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
	dir = run_mock_tmpdir("test_run_hst");
	setup(&m, &ops, &t, &p);
	t.initial.hst_build = SP_HST_BUILD_5_8;
	p.hst_given = 1;
	p.hst_build = SP_HST_BUILD_STOCK;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	assert_string_equal(reloads, "st/stock hst/stock st/5.8");
	assert_string_equal(s.cases[1].env.hst_build, "stock");
	assert_string_equal(s.cases[1].env.hst, "stock");
	assert_int_equal(s.cases[1].env.has_hst_skew, 0);
	/* a stock case's JSON names its build and no skew */
	assert_int_equal(sp_case_to_json(&s.cases[1], &text), 0);
	assert_non_null(strstr(text, "\"hst_build\""));
	assert_null(strstr(text, "hst_clock_skew_ns"));
	free(text);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
	sys_skew = 200000000;
}

/* run's option: parsed into the plan, a bad one refused naming it. */
static void run_option_parses_into_the_plan(void **state)
{
	struct sp_run_cli cli;
	struct sp_run_plan p;
	char err[256] = "";

	(void)state;
	memset(&cli, 0, sizeof(cli));
	sp_opt_set_defaults(sp_run_cli_table, &cli);
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)), 0);
	assert_int_equal(p.hst_given, 0);
	cli.hst = "5.8:1.5ms";
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)), 0);
	assert_int_equal(p.hst_given, 1);
	assert_int_equal(p.hst_build, SP_HST_BUILD_5_8);
	assert_true(p.hst_skew_ns == 1500000);
	cli.hst = "5.8:200";
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--hst '5.8:200'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_hst_names_the_build_and_records_the_skew),
		cmocka_unit_test(without_hst_up_s_build_is_used),
		cmocka_unit_test(run_option_parses_into_the_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
