#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "common/units.h"
#include "tgt-backend/jitter.h"

#define N 200000
#define J 1000000	/* 1 ms of jitter */

struct moments {
	double mean, sd, min, max;
};

static struct moments sample(uint64_t seed, enum sp_dist dist)
{
	struct jitter_rng rng;
	struct moments m = { .min = INFINITY, .max = -INFINITY };
	double sum = 0, sumsq = 0, x;
	int i;

	jitter_seed(&rng, seed);
	for (i = 0; i < N; i++) {
		x = jitter_sample_ns(&rng, dist, J);
		sum += x;
		sumsq += x * x;
		if (x < m.min)
			m.min = x;
		if (x > m.max)
			m.max = x;
	}
	m.mean = sum / N;
	m.sd = sqrt(sumsq / N - m.mean * m.mean);
	return m;
}

static void same_seed_same_sequence(void **state)
{
	struct jitter_rng a, b, c;
	int i, differ = 0;

	(void)state;
	jitter_seed(&a, 42);
	jitter_seed(&b, 42);
	jitter_seed(&c, 43);
	for (i = 0; i < 1000; i++) {
		uint64_t x = jitter_next_u64(&a);

		assert_true(x == jitter_next_u64(&b));
		differ += x != jitter_next_u64(&c);
	}
	assert_true(differ > 990);
	/* and the delays built on it */
	jitter_seed(&a, 7);
	jitter_seed(&b, 7);
	for (i = 0; i < 1000; i++)
		assert_int_equal(jitter_delay_ns(&a, SP_DIST_PARETO, 500000, J),
				 jitter_delay_ns(&b, SP_DIST_PARETO, 500000, J));
}

static void unit_interval_is_open(void **state)
{
	struct jitter_rng rng;
	double sum = 0, u;
	int i;

	(void)state;
	jitter_seed(&rng, 0);
	for (i = 0; i < N; i++) {
		u = jitter_next_unit(&rng);
		assert_true(u > 0.0 && u < 1.0);
		sum += u;
	}
	assert_true(fabs(sum / N - 0.5) < 0.01);
}

static void uniform_spread(void **state)
{
	struct moments m = sample(1, SP_DIST_UNIFORM);

	(void)state;
	assert_true(m.min >= -J && m.max <= J);
	assert_true(fabs(m.mean) < 0.02 * J);
	/* sd of uniform on [-J, J] is J / sqrt(3) */
	assert_true(fabs(m.sd - J / sqrt(3.0)) < 0.03 * J);
	/* and it reaches near both ends */
	assert_true(m.min < -0.99 * J && m.max > 0.99 * J);
}

static void normal_spread(void **state)
{
	struct moments m = sample(2, SP_DIST_NORMAL);

	(void)state;
	assert_true(fabs(m.mean) < 0.02 * J);
	assert_true(fabs(m.sd - J) < 0.03 * J);
	/* 200k draws: beyond 3 sd on both sides, below 6 sd */
	assert_true(m.min < -3.0 * J && m.max > 3.0 * J);
	assert_true(m.min > -6.0 * J && m.max < 6.0 * J);
}

static void pareto_spread(void **state)
{
	struct jitter_rng rng;
	struct moments m = sample(3, SP_DIST_PARETO);
	int i, below_median = 0;

	(void)state;
	assert_true(m.min >= 0.0);
	assert_true(fabs(m.mean - J) < 0.05 * J);
	/* shape 3: variance 3 J^2, but the sample sd of a heavy tail
	 * converges slowly, so only a wide band */
	assert_true(m.sd > 1.2 * J && m.sd < 2.4 * J);
	/* median (shape-1) (2^(1/shape) - 1) J = 0.52 J */
	jitter_seed(&rng, 4);
	for (i = 0; i < N; i++)
		below_median += jitter_sample_ns(&rng, SP_DIST_PARETO, J) < 0.52 * J;
	assert_true(fabs((double)below_median / N - 0.5) < 0.01);
	/* heavy tail: some sample beyond 8 J */
	assert_true(m.max > 8.0 * J);
}

static void delay_clamps_at_zero(void **state)
{
	struct jitter_rng rng;
	int i, zeros = 0;
	int64_t d;

	(void)state;
	jitter_seed(&rng, 5);
	for (i = 0; i < 10000; i++) {
		d = jitter_delay_ns(&rng, SP_DIST_NORMAL, 0, J);
		assert_true(d >= 0);
		zeros += d == 0;
	}
	assert_true(zeros > 4500 && zeros < 5500);
	/* a base well above the spread is never clamped */
	for (i = 0; i < 10000; i++) {
		d = jitter_delay_ns(&rng, SP_DIST_UNIFORM, 5 * J, J);
		assert_true(d >= 4 * J && d <= 6 * J);
	}
}

static void no_jitter_is_exact_and_draws_nothing(void **state)
{
	struct jitter_rng a, b;

	(void)state;
	jitter_seed(&a, 9);
	jitter_seed(&b, 9);
	assert_int_equal(jitter_delay_ns(&a, SP_DIST_NORMAL, 123456, 0), 123456);
	assert_int_equal(jitter_delay_ns(&a, SP_DIST_PARETO, 0, 0), 0);
	assert_true(jitter_next_u64(&a) == jitter_next_u64(&b));
}

/* dist=pareto with jitter=60s once held a command for about a year:
 * every draw, however far in the tail, stays within the one bound. */
static void delay_never_exceeds_the_bound(void **state)
{
	static const enum sp_dist dists[] = {
		SP_DIST_UNIFORM, SP_DIST_NORMAL, SP_DIST_PARETO,
	};
	struct jitter_rng rng;
	int64_t d, most = 0;
	size_t k;
	int i;

	(void)state;
	jitter_seed(&rng, 1);
	for (k = 0; k < 3; k++)
		for (i = 0; i < 200000; i++) {
			d = jitter_delay_ns(&rng, dists[k], SP_DELAY_MAX_NS,
					    SP_DELAY_MAX_NS);
			assert_true(d >= 0 && d <= SP_DELAY_MAX_NS);
			if (d > most)
				most = d;
		}
	/* the clamp was reached, so the test saw the tail it is about */
	assert_int_equal(most, SP_DELAY_MAX_NS);
	for (i = 0; i < 200000; i++)
		assert_true(jitter_delay_ns(&rng, SP_DIST_PARETO, 0,
					    INT64_MAX / 4) <= SP_DELAY_MAX_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_seed_same_sequence),
		cmocka_unit_test(unit_interval_is_open),
		cmocka_unit_test(uniform_spread),
		cmocka_unit_test(normal_spread),
		cmocka_unit_test(pareto_spread),
		cmocka_unit_test(delay_clamps_at_zero),
		cmocka_unit_test(no_jitter_is_exact_and_draws_nothing),
		cmocka_unit_test(delay_never_exceeds_the_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
