/* Unit tests of harness/measure/case_env.c: CPU busy fraction from
 * /proc/stat, the lab-shaped flag, shares' standard error, the JSON
 * round trip and older case files without the record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure/case_env.h"
#include "tests/unit/harness/measure/case_fixture.h"

static void cpu_busy_from_proc_stat(void **state)
{
	struct sp_cpustat a, b;

	(void)state;
	assert_int_equal(sp_cpustat_parse("intr 1\ncpu  10 0 10 70 10 0 0 0 0 0\n"
					  "cpu0 5 0 5 35 5 0 0 0 0 0\n", &a), 0);
	assert_int_equal(a.total, 100);
	assert_int_equal(a.busy, 20);
	assert_int_equal(sp_cpustat_parse("cpu  30 5 25 90 20 2 3 0 0 0\n", &b), 0);
	/* busy 65 - 20 = 45 of 175 - 100 = 75 */
	assert_true(fabs(sp_cpustat_busy(&a, &b) - 0.6) < 1e-9);
	assert_true(sp_cpustat_busy(&b, &a) < 0);
	assert_true(sp_cpustat_busy(&a, &a) < 0);
	assert_int_equal(sp_cpustat_parse("cpu0 1 2 3 4\n", &a), -EINVAL);
	assert_int_equal(sp_cpustat_parse("cpu  1 2\n", &a), -EINVAL);
}

static void flag_says_why(void **state)
{
	struct sp_case_env e;
	char why[256];

	(void)state;
	memset(&e, 0, sizeof(e));
	e.cpu_util = 0.9;
	/* an old case file: nothing recorded, nothing flagged */
	assert_int_equal(sp_case_env_flagged(&e, 4, why, sizeof(why)), 0);
	e.recorded = 1;
	e.cpu_util = 0.49;
	e.has_resid[3] = 1;
	e.resid[3] = -0.029;
	assert_int_equal(sp_case_env_flagged(&e, 4, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	e.cpu_util = 0.83;
	assert_int_equal(sp_case_env_flagged(&e, 4, why, sizeof(why)), 1);
	assert_string_equal(why, "lab saturated: CPU 83% > 50%");
	e.has_resid[1] = 1;
	e.resid[1] = 0.04;
	e.resid[3] = -0.051;
	assert_int_equal(sp_case_env_flagged(&e, 4, why, sizeof(why)), 1);
	assert_string_equal(why, "lab saturated: CPU 83% > 50%; calibration "
			    "off: path 4 -5.1% (bound +-3%)");
	e.cpu_util = -1;	/* not sampled is not saturated */
	assert_int_equal(sp_case_env_flagged(&e, 4, why, sizeof(why)), 1);
	assert_string_equal(why, "calibration off: path 4 -5.1% (bound +-3%)");
	/* a residual beyond the case's paths is not looked at */
	assert_int_equal(sp_case_env_flagged(&e, 1, why, sizeof(why)), 0);
}

static void share_standard_error(void **state)
{
	uint64_t ios[4] = { 7500, 7500, 7500, 2500 };
	double se[4];

	(void)state;
	/* p = 0.3 of 25000: sqrt(0.21 / 25000) = 0.002898 */
	assert_true(fabs(sp_share_se(ios, 4, se) - sqrt(0.21 / 25000)) < 1e-12);
	assert_true(fabs(se[3] - sqrt(0.09 / 25000)) < 1e-12);
	ios[0] = ios[1] = ios[2] = ios[3] = 0;
	assert_true(sp_share_se(ios, 4, se) == 0);
	/* 0.5 pp needs about 10000 I/Os at an even split of two */
	ios[0] = ios[1] = 5000;
	assert_true(sp_share_se(ios, 2, NULL) <= SP_ENV_SHARE_SE_MAX);
	ios[0] = ios[1] = 4000;
	assert_true(sp_share_se(ios, 2, NULL) > SP_ENV_SHARE_SE_MAX);
}

static void json_round_trip_and_old_files(void **state)
{
	(void)filled_pair;
	struct sp_case_result c, back;
	char *text = NULL, *old = NULL;

	(void)state;
	filled_case(&c, "service-time");
	assert_int_equal(sp_case_to_json(&c, &old), 0);
	assert_null(strstr(old, "environment"));
	assert_int_equal(sp_case_from_json(old, "old", &back), 0);
	assert_int_equal(back.env.recorded, 0);
	assert_int_equal(back.env.scale, 1);
	assert_int_equal(back.env.warmup_s, 0);
	c.env.recorded = 1;
	c.env.scale = 16;
	c.env.cpu_util = 0.61;
	snprintf(c.env.mode, sizeof(c.env.mode), "lab");
	snprintf(c.env.hst, sizeof(c.env.hst), "bucket_shift 28");
	snprintf(c.env.kernel, sizeof(c.env.kernel), "6.1.0-28-amd64");
	c.env.has_resid[2] = 1;
	c.env.resid[2] = 0.012;
	c.env.warmup_s = 20;
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	assert_non_null(strstr(text, "\"lab_shaped\": \"lab saturated: CPU 61% > 50%\""));
	assert_non_null(strstr(text, "\"share_se_max\""));
	assert_int_equal(sp_case_from_json(text, "new", &back), 0);
	assert_int_equal(back.env.recorded, 1);
	assert_int_equal(back.env.scale, 16);
	assert_true(fabs(back.env.cpu_util - 0.61) < 1e-9);
	assert_string_equal(back.env.mode, "lab");
	assert_string_equal(back.env.hst, "bucket_shift 28");
	assert_string_equal(back.env.kernel, "6.1.0-28-amd64");
	assert_int_equal(back.env.has_resid[0], 0);
	assert_int_equal(back.env.has_resid[2], 1);
	assert_true(fabs(back.env.resid[2] - 0.012) < 1e-9);
	assert_int_equal(back.env.warmup_s, 20);
	/* a hostile file's warm-up is none, never a wrapped count */
	{
		static const char *bad[] = { "-5", "\"20\"", "99999999999",
					     "2.5", "null" };
		char *at = strstr(text, "\"warmup_s\": 20"), *edited;
		size_t i, head;

		assert_non_null(at);
		head = (size_t)(at - text) + strlen("\"warmup_s\": ");
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			edited = malloc(strlen(text) + 32);
			assert_non_null(edited);
			memcpy(edited, text, head);
			strcpy(edited + head, bad[i]);
			strcat(edited, at + strlen("\"warmup_s\": 20"));
			assert_int_equal(sp_case_from_json(edited, "bad", &back), 0);
			assert_int_equal(back.env.warmup_s, 0);
			free(edited);
		}
	}
	free(text);
	free(old);
}

/* The exact-time lab: engine and clock round-trip and are said in the
 * ran-under line; its CPU, however busy, shaped no latency, so it is
 * never "saturated"; a calibration miss still flags. A case file from
 * before the engine was recorded reads as it did. */
static void exact_time_is_recorded_and_never_saturated(void **state)
{
	struct sp_case_result c, back;
	char *text = NULL, why[256], machine[512];

	(void)state;
	filled_case(&c, "service-time");
	c.env.recorded = 1;
	c.env.cpu_util = 0.97;
	snprintf(c.env.mode, sizeof(c.env.mode), "lab");
	snprintf(c.env.engine, sizeof(c.env.engine), "uml");
	snprintf(c.env.time, sizeof(c.env.time), "exact");
	assert_int_equal(sp_case_env_flagged(&c.env, 4, why, sizeof(why)), 0);
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	assert_int_equal(sp_case_from_json(text, "uml", &back), 0);
	assert_string_equal(back.env.engine, "uml");
	assert_string_equal(back.env.time, "exact");
	assert_string_equal(back.env.patches, "");
	sp_case_env_machine(&back.env, machine, sizeof(machine));
	assert_string_equal(machine, "lab uml, time exact: the testbed's own CPU costs nothing");
	/* an exact delay off by 2 % is off; on real time it is within 3 % */
	back.env.has_resid[1] = 1;
	back.env.resid[1] = 0.02;
	assert_int_equal(sp_case_env_flagged(&back.env, 4, why, sizeof(why)), 1);
	assert_string_equal(why, "calibration off: path 2 +2.0% (bound +-1%)");
	snprintf(back.env.time, sizeof(back.env.time), "real");
	back.env.cpu_util = 0.2;
	assert_int_equal(sp_case_env_flagged(&back.env, 4, why, sizeof(why)), 0);
	back.env.cpu_util = 0.97;
	back.env.has_resid[1] = 0;
	assert_int_equal(sp_case_env_flagged(&back.env, 4, why, sizeof(why)), 1);
	sp_case_env_machine(&back.env, machine, sizeof(machine));
	assert_string_equal(machine, "lab uml, time real");
	snprintf(back.env.patches, sizeof(back.env.patches), "%s",
		 "3f2a... hst-clock.patch");
	sp_case_env_machine(&back.env, machine, sizeof(machine));
	assert_string_equal(machine, "lab uml, time real, patches 3f2a... hst-clock.patch");
	back.env.engine[0] = '\0';
	back.env.patches[0] = '\0';
	sp_case_env_machine(&back.env, machine, sizeof(machine));
	assert_string_equal(machine, "lab");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_time_is_recorded_and_never_saturated),
		cmocka_unit_test(cpu_busy_from_proc_stat),
		cmocka_unit_test(flag_says_why),
		cmocka_unit_test(share_standard_error),
		cmocka_unit_test(json_round_trip_and_old_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
