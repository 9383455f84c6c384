#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "harness/probe/probe_lat.h"

static void nearest_rank(void **state)
{
	const int64_t s[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };

	(void)state;
	assert_int_equal(probe_lat_percentile(s, 10, 50), 50);
	assert_int_equal(probe_lat_percentile(s, 10, 90), 90);
	assert_int_equal(probe_lat_percentile(s, 10, 91), 100);
	assert_int_equal(probe_lat_percentile(s, 10, 99.9), 100);
	assert_int_equal(probe_lat_percentile(s, 10, 100), 100);
	assert_int_equal(probe_lat_percentile(s, 10, 0.1), 10);
	assert_int_equal(probe_lat_percentile(s, 1, 50), 10);
	assert_int_equal(probe_lat_percentile(s, 0, 50), 0);
}

/* 1..1000 in scrambled order: every percentile is an exact rank, the
 * accuracy the probe promises rather than a bucket edge. */
static void summary_of_a_shuffled_set(void **state)
{
	struct probe_lat l;
	struct probe_lat_summary s;
	int64_t v;
	int i;

	(void)state;
	probe_lat_init(&l);
	for (i = 0; i < 1000; i++) {
		v = (int64_t)((i * 7919) % 1000) + 1;	/* a permutation */
		assert_int_equal(probe_lat_add(&l, v * 1000), 0);
	}
	probe_lat_summarize(&l, &s);
	assert_int_equal(s.n, 1000);
	assert_int_equal(s.min, 1000);
	assert_int_equal(s.p50, 500000);
	assert_int_equal(s.p90, 900000);
	assert_int_equal(s.p99, 990000);
	assert_int_equal(s.p999, 999000);
	assert_int_equal(s.max, 1000000);
	assert_float_equal(s.mean, 500500.0, 1e-6);
	probe_lat_free(&l);
}

static void growth_keeps_every_sample(void **state)
{
	struct probe_lat l;
	struct probe_lat_summary s;
	int i;

	(void)state;
	probe_lat_init(&l);
	for (i = 100000; i > 0; i--)
		assert_int_equal(probe_lat_add(&l, i), 0);
	assert_int_equal(probe_lat_add(&l, -5), 0);	/* clamped */
	probe_lat_summarize(&l, &s);
	assert_int_equal(s.n, 100001);
	assert_int_equal(s.min, 0);
	assert_int_equal(s.max, 100000);
	assert_int_equal(s.p50, 50000);
	probe_lat_free(&l);
}

static void empty_set_is_zero(void **state)
{
	struct probe_lat l;
	struct probe_lat_summary s;

	(void)state;
	probe_lat_init(&l);
	probe_lat_summarize(&l, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.p99, 0);
	assert_int_equal(s.max, 0);
	probe_lat_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nearest_rank),
		cmocka_unit_test(summary_of_a_shuffled_set),
		cmocka_unit_test(growth_keeps_every_sample),
		cmocka_unit_test(empty_set_is_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
