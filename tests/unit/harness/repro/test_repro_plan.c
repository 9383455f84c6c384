#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "harness/repro/repro_plan.h"

static void everything_by_default(void **state)
{
	struct sp_repro_plan plan;
	char err[256], qds[32];

	(void)state;
	assert_int_equal(sp_repro_plan_parse(NULL, &plan, err, sizeof(err)), 0);
	assert_int_equal(sp_repro_plan_points(&plan), 48);
	assert_int_equal(sp_repro_plan_parse("all", &plan, err, sizeof(err)), 0);
	assert_int_equal(sp_repro_plan_points(&plan), 48);
	assert_int_equal(sp_repro_plan_iodepths(&plan, 2, SP_REF_RANDWRITE, qds,
						sizeof(qds)), 4);
	assert_string_equal(qds, "1,2,32,64");
}

static void a_ci_subset(void **state)
{
	struct sp_repro_plan plan;
	char err[256], qds[32];

	(void)state;
	assert_int_equal(sp_repro_plan_parse("skew4/randread/1", &plan, err,
					     sizeof(err)), 0);
	assert_int_equal(sp_repro_plan_points(&plan), 1);
	assert_false(sp_repro_plan_has_topology(&plan, 0));
	assert_true(sp_repro_plan_has_topology(&plan, 1));
	assert_int_equal(sp_repro_plan_iodepths(&plan, 1, SP_REF_RANDREAD, qds,
						sizeof(qds)), 1);
	assert_string_equal(qds, "1");
	assert_int_equal(sp_repro_plan_iodepths(&plan, 1, SP_REF_READ, qds,
						sizeof(qds)), 0);
}

static void sets_and_several_items(void **state)
{
	struct sp_repro_plan plan;
	char err[256], qds[32];

	(void)state;
	assert_int_equal(sp_repro_plan_parse("u10/read+randread/1+64,equal3/write",
					     &plan, err, sizeof(err)), 0);
	assert_int_equal(sp_repro_plan_points(&plan), 2 * 2 + 4);
	sp_repro_plan_iodepths(&plan, 2, SP_REF_RANDREAD, qds, sizeof(qds));
	assert_string_equal(qds, "1,64");
	sp_repro_plan_iodepths(&plan, 0, SP_REF_WRITE, qds, sizeof(qds));
	assert_string_equal(qds, "1,2,32,64");
}

static void each_bad_form_names_its_part(void **state)
{
	static const struct {
		const char *spec, *must_mention;
	} bad[] = {
		{ "skew5", "unknown topology 'skew5'" },
		{ "skew4/randrw", "unknown rw mode 'randrw'" },
		{ "skew4/read/8", "iodepth '8' was not published" },
		{ "skew4/read/1+", "was not published" },
		{ "skew4/read/1/2", "want TOPOLOGY" },
		{ ",", "names no case" },
	};
	struct sp_repro_plan plan;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(sp_repro_plan_parse(bad[i].spec, &plan, err,
						     sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, bad[i].must_mention));
	}
}

/* a case file's iodepth is only ever looked up, never trusted */
static void only_published_iodepths_have_an_index(void **state)
{
	static const int others[] = { 0, -1, 3, 8, 128, 1 << 30 };
	size_t i;

	(void)state;
	for (i = 0; i < SP_REPRO_N_QD; i++)
		assert_int_equal(sp_repro_qd_index(sp_repro_iodepths[i]), (int)i);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		assert_int_equal(sp_repro_qd_index(others[i]), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(everything_by_default),
		cmocka_unit_test(a_ci_subset),
		cmocka_unit_test(sets_and_several_items),
		cmocka_unit_test(each_bad_form_names_its_part),
		cmocka_unit_test(only_published_iodepths_have_an_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
