/* Random extra delay for the delay store: a seeded PRNG of our own
 * (splitmix64, so a seed replays the same sequence on every machine and
 * libc) and three distributions of the extra delay, in ns:
 *   uniform  evenly in [-jitter, +jitter]
 *   normal   Gaussian, mean 0, standard deviation jitter (Box-Muller)
 *   pareto   Lomax (Pareto shifted to start at 0) with shape
 *            JITTER_PARETO_SHAPE, scaled so that its mean is jitter:
 *            mostly small, a heavy tail of long stalls.
 * jitter_delay_ns() adds a sample to a base delay and clamps it to
 * [0, SP_DELAY_MAX_NS]. */
#ifndef SP_JITTER_H
#define SP_JITTER_H

#include <stdint.h>

#include "common/dist.h"

/* Shape 3: finite variance (3 x jitter^2), so a sample spread can be
 * tested, yet p99.9 is about 8.5 x jitter. */
#define JITTER_PARETO_SHAPE 3.0

struct jitter_rng {
	uint64_t state;
};

void jitter_seed(struct jitter_rng *rng, uint64_t seed);
uint64_t jitter_next_u64(struct jitter_rng *rng);
/* Uniform in the open interval (0, 1). */
double jitter_next_unit(struct jitter_rng *rng);

/* One sample of the extra delay (may be negative for uniform/normal). */
double jitter_sample_ns(struct jitter_rng *rng, enum sp_dist dist,
			int64_t jitter_ns);

/* base + sample, clamped to [0, SP_DELAY_MAX_NS]; base alone when jitter is 0
 * (and then the generator is not advanced). */
int64_t jitter_delay_ns(struct jitter_rng *rng, enum sp_dist dist,
			int64_t base_ns, int64_t jitter_ns);

#endif
