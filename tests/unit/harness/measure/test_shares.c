#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "harness/measure/shares.h"

static void shares_sum_to_one(void **state)
{
	/* three fast paths and one slow one that got less */
	const uint64_t ios[] = { 37640, 37684, 37707, 14969 };
	double f[4];

	(void)state;
	assert_int_equal(sp_shares(ios, 4, f), 0);
	assert_float_equal(f[0] + f[1] + f[2] + f[3], 1.0, 1e-12);
	assert_float_equal(f[3], 14969.0 / 128000.0, 1e-9);
}

static void nothing_counted_is_an_error(void **state)
{
	const uint64_t ios[] = { 0, 0 };
	double f[2];

	(void)state;
	assert_int_equal(sp_shares(ios, 2, f), -EINVAL);
}

static void distance_of_spreads(void **state)
{
	const double even[] = { 0.25, 0.25, 0.25, 0.25 };
	const double skew[] = { 0.30, 0.30, 0.30, 0.10 };
	const double all_one[] = { 1, 0, 0, 0 };
	const int slow[] = { 0, 0, 0, 1 };

	(void)state;
	assert_float_equal(sp_total_variation(even, even, 4), 0, 1e-12);
	assert_float_equal(sp_total_variation(even, skew, 4), 0.15, 1e-12);
	assert_float_equal(sp_total_variation(even, all_one, 4), 0.75, 1e-12);
	assert_float_equal(sp_share_of(skew, slow, 4), 0.10, 1e-12);
}

/* Slow means more delay than the fastest path, not "multiplier > 1":
 * a topology whose fastest path has multiplier 2 still has its slow
 * paths, and equal paths have none whatever their delay. */
static void slow_is_slower_than_the_fastest(void **state)
{
	const double skew4[] = { 1, 1, 1, 4 };
	const double lifted[] = { 2, 2, 8, 2 };
	const double equal[] = { 5e6, 5e6, 5e6 };
	const double u10_ns[] = { 5e5, 5e5, 5e5, 2e6, 4e6, 4e6, 8e6, 8e6,
				  5e5, 5e5 };
	const int u10_slow[] = { 0, 0, 0, 1, 1, 1, 1, 1, 0, 0 };
	int slow[10];

	(void)state;
	assert_int_equal(sp_slow_marks(skew4, 4, slow), 1);
	assert_true(slow[3] && !slow[0] && !slow[1] && !slow[2]);
	assert_int_equal(sp_slow_marks(lifted, 4, slow), 1);
	assert_true(slow[2] && !slow[0] && !slow[3]);
	assert_int_equal(sp_slow_marks(equal, 3, slow), 0);
	assert_true(!slow[0] && !slow[1] && !slow[2]);
	assert_int_equal(sp_slow_marks(u10_ns, 10, slow), 5);
	assert_memory_equal(slow, u10_slow, sizeof(u10_slow));
	assert_int_equal(sp_slow_marks(skew4, 1, slow), 0);	/* one path */
	assert_int_equal(sp_slow_marks(skew4, 0, slow), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares_sum_to_one),
		cmocka_unit_test(nothing_counted_is_an_error),
		cmocka_unit_test(distance_of_spreads),
		cmocka_unit_test(slow_is_slower_than_the_fastest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
