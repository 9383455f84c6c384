#include "tgt-backend/jitter.h"

#include "common/units.h"

#include <math.h>

void jitter_seed(struct jitter_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

/* splitmix64 (Steele, Lea, Flood 2014): one add and a mix per draw,
 * every seed is a good seed. */
uint64_t jitter_next_u64(struct jitter_rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double jitter_next_unit(struct jitter_rng *rng)
{
	/* 53 random bits, shifted by half a step so 0 never comes out
	 * (log(0) in Box-Muller and pareto). */
	return ((double)(jitter_next_u64(rng) >> 11) + 0.5) * 0x1.0p-53;
}

double jitter_sample_ns(struct jitter_rng *rng, enum sp_dist dist,
			int64_t jitter_ns)
{
	double j = (double)jitter_ns, u, v;

	switch (dist) {
	case SP_DIST_UNIFORM:
		return (2.0 * jitter_next_unit(rng) - 1.0) * j;
	case SP_DIST_NORMAL:
		u = jitter_next_unit(rng);
		v = jitter_next_unit(rng);
		return j * sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
	case SP_DIST_PARETO:
		u = jitter_next_unit(rng);
		/* Lomax by inversion; (shape - 1) scales its mean to j. */
		return j * (JITTER_PARETO_SHAPE - 1.0) *
		       (pow(u, -1.0 / JITTER_PARETO_SHAPE) - 1.0);
	case SP_DIST_PARETONORMAL:	/* netem's only: the opts refuse it */
	case SP_DIST_COUNT:
		break;
	}
	return 0.0;
}

int64_t jitter_delay_ns(struct jitter_rng *rng, enum sp_dist dist,
			int64_t base_ns, int64_t jitter_ns)
{
	double total;

	if (jitter_ns <= 0)
		return base_ns;
	total = (double)base_ns + jitter_sample_ns(rng, dist, jitter_ns);
	if (total <= 0.0)
		return 0;
	/* pareto's tail has no end: one draw must not park a command
	 * for longer than anything else in slowpath may */
	if (total >= (double)SP_DELAY_MAX_NS)
		return SP_DELAY_MAX_NS;
	return (int64_t)total;
}
