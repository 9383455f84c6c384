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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares_sum_to_one),
		cmocka_unit_test(nothing_counted_is_an_error),
		cmocka_unit_test(distance_of_spreads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
