/* The wake-up model of wakeup.h. */
#include "tgt-backend/wakeup.h"

#define EWMA_SHIFT 3	/* new sample weighs 1/8 */

static int bucket_of(int64_t sleep_ns)
{
	uint64_t us = sleep_ns > 0 ? (uint64_t)sleep_ns / 1000 : 0;
	int b = 0;

	while (us > 1 && b < WAKE_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

void wake_model_init(struct wake_model *m, int64_t initial_late_ns)
{
	int i;

	for (i = 0; i < WAKE_BUCKETS; i++) {
		m->mean_ns[i] = initial_late_ns;
		m->dev_ns[i] = initial_late_ns / 4;
	}
	m->samples = 0;
}

static int64_t clamp_sample(int64_t mean_ns, int64_t sample_ns)
{
	if (sample_ns < 0)
		return 0;
	if (sample_ns > 4 * mean_ns + 10000)
		return 4 * mean_ns + 10000;
	return sample_ns;
}

void wake_ewma_update(int64_t *mean_ns, int64_t sample_ns)
{
	*mean_ns += (clamp_sample(*mean_ns, sample_ns) - *mean_ns) / (1 << EWMA_SHIFT);
}

void wake_model_learn(struct wake_model *m, int64_t sleep_ns, int64_t late_ns)
{
	int b = bucket_of(sleep_ns);
	int64_t dev;

	late_ns = clamp_sample(m->mean_ns[b], late_ns);
	dev = late_ns - m->mean_ns[b];
	if (dev < 0)
		dev = -dev;
	wake_ewma_update(&m->mean_ns[b], late_ns);
	m->dev_ns[b] += (dev - m->dev_ns[b]) / (1 << EWMA_SHIFT);
	m->samples++;
}

int64_t wake_model_lead(const struct wake_model *m, int64_t sleep_ns,
			int64_t max_lead_ns)
{
	int b = bucket_of(sleep_ns);
	int64_t lead = m->mean_ns[b] + 3 * m->dev_ns[b];

	if (lead > max_lead_ns)
		lead = max_lead_ns;
	if (lead > sleep_ns)
		lead = sleep_ns > 0 ? sleep_ns : 0;
	return lead < 0 ? 0 : lead;
}

enum wake_action wake_plan(const struct wake_model *m, int64_t max_lead_ns,
			   int have_deadline, int64_t deadline_ns, int64_t now_ns,
			   int64_t timer_at_ns, int64_t *arm_at_ns)
{
	int64_t wait_ns, at;

	if (!have_deadline)
		return WAKE_IDLE;
	wait_ns = deadline_ns - now_ns;
	at = deadline_ns - wake_model_lead(m, wait_ns, max_lead_ns);
	if (at <= now_ns)
		return WAKE_POLL;
	if (timer_at_ns > 0 && timer_at_ns <= at)
		return WAKE_KEEP;
	*arm_at_ns = at;
	return WAKE_ARM;
}
