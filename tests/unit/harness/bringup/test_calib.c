/* Unit tests of the closed-loop calibration's controller
 * (harness/bringup/calib.c): from measured p50s and targets to the
 * next injected delays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "common/units.h"
#include "harness/bringup/calib.h"

#define MS SP_NSEC_PER_MSEC

/* A setup that adds own_ns to every I/O: what p50 a delay gives. */
static void simulate(struct sp_calib_path *p, size_t n, int64_t own_ns)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i].measured_ns = p[i].injected_ns + own_ns;
}

static void own_cost_is_paid_out_of_the_delay(void **state)
{
	/* skew4 at k = 8: 8 x (0.856 + 0.671 m) ms */
	struct sp_calib_path p[4] = {
		{ 12216000, 12216000, -1 }, { 12216000, 12216000, -1 },
		{ 12216000, 12216000, -1 }, { 28320000, 28320000, -1 },
	};
	int changed[4];

	(void)state;
	/* nothing measured yet: nothing to correct */
	assert_int_equal(sp_calib_step(p, 4, SP_CALIB_TOLERANCE, changed), 0);
	simulate(p, 4, 2500000);
	assert_int_equal(sp_calib_step(p, 4, SP_CALIB_TOLERANCE, changed), 4);
	assert_int_equal(changed[3], 1);
	assert_int_equal(p[0].injected_ns, 12216000 - 2500000);
	assert_int_equal(p[3].injected_ns, 28320000 - 2500000);
	simulate(p, 4, 2500000);
	assert_int_equal(sp_calib_step(p, 4, SP_CALIB_TOLERANCE, changed), 0);
	assert_true(fabs(sp_calib_residual(&p[3])) < 1e-12);
	assert_int_equal(changed[0] + changed[3], 0);
}

static void within_tolerance_is_left_alone(void **state)
{
	struct sp_calib_path p[2] = {
		{ 10 * MS, 7 * MS, 10 * MS + 290000 },	/* +2.9 % */
		{ 10 * MS, 7 * MS, 10 * MS + 310000 },	/* +3.1 % */
	};
	int changed[2];

	(void)state;
	assert_int_equal(sp_calib_step(p, 2, SP_CALIB_TOLERANCE, changed), 1);
	assert_int_equal(changed[0], 0);
	assert_int_equal(p[0].injected_ns, 7 * MS);
	assert_int_equal(changed[1], 1);
	assert_int_equal(p[1].injected_ns, 7 * MS - 310000);
	assert_true(fabs(sp_calib_residual(&p[0]) - 0.029) < 1e-9);
}

static void never_below_zero_nor_over_the_bound(void **state)
{
	/* the own cost alone is over the target: the best is no delay,
	 * and the residual stays to be reported */
	struct sp_calib_path p[2] = {
		{ 2 * MS, 1 * MS, 5 * MS },
		{ 59 * SP_NSEC_PER_SEC, 59 * SP_NSEC_PER_SEC, 1 * MS },
	};
	int changed[2];

	(void)state;
	assert_int_equal(sp_calib_step(p, 2, SP_CALIB_TOLERANCE, changed), 2);
	assert_int_equal(p[0].injected_ns, 0);
	assert_int_equal(p[1].injected_ns, SP_DELAY_MAX_NS);
	p[0].measured_ns = 4 * MS;
	assert_int_equal(sp_calib_step(p, 2, SP_CALIB_TOLERANCE, changed), 2);
	assert_int_equal(changed[0], 0);	/* already 0: nothing to set */
	assert_true(sp_calib_residual(&p[0]) > 0.99);
}

static void runtime_for_enough_samples(void **state)
{
	(void)state;
	/* 150 I/Os of 12.2 ms: 1.8 s, so the least asked for */
	assert_int_equal(sp_calib_runtime_s(12216000, 3), 3);
	/* of 113 ms: 17 s */
	assert_int_equal(sp_calib_runtime_s(113280000, 3), 17);
	assert_int_equal(sp_calib_runtime_s(2 * SP_NSEC_PER_SEC, 3),
			 SP_CALIB_RUNTIME_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_cost_is_paid_out_of_the_delay),
		cmocka_unit_test(within_tolerance_is_left_alone),
		cmocka_unit_test(never_below_zero_nor_over_the_bound),
		cmocka_unit_test(runtime_for_enough_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
