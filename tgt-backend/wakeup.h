/* When to arm a timer so that a sleeping thread is running again by a
 * deadline, and what to do about a deadline now. Pure C.
 *
 * A timer never fires early, only late, and how late depends on the
 * machine: in a VM the measured lateness of a timerfd was 50 us for a
 * 100 us sleep and 180 us for a 10 ms one (docs/backend.md). So the model
 * learns the lateness per sleep length (log2 buckets of microseconds),
 * and the store arms its timer that much early (the "lead") and spends
 * the rest of the wait polling from tgtd's main loop. */
#ifndef SP_WAKEUP_H
#define SP_WAKEUP_H

#include <stdint.h>

#define WAKE_BUCKETS 24			/* up to 2^23 us = 8.4 s of sleep */

struct wake_model {
	int64_t mean_ns[WAKE_BUCKETS];	/* EWMA of lateness */
	int64_t dev_ns[WAKE_BUCKETS];	/* EWMA of |lateness - mean| */
	uint64_t samples;
};

/* initial_late_ns: the guess until a bucket has learned. */
void wake_model_init(struct wake_model *m, int64_t initial_late_ns);
/* A timer armed to sleep sleep_ns fired late_ns after its time. */
void wake_model_learn(struct wake_model *m, int64_t sleep_ns, int64_t late_ns);
/* How long before a deadline sleep_ns away to arm: mean + 3 x spread
 * of that bucket, clamped to [0, min(sleep_ns, max_lead_ns)]. The caller
 * polls for that long, so max_lead_ns bounds the CPU it spends. */
int64_t wake_model_lead(const struct wake_model *m, int64_t sleep_ns,
			int64_t max_lead_ns);

/* One step of an exponentially weighted mean of lateness (weight 1/8),
 * with a sample clamped to 4 x the mean + 10 us first: one stall (the
 * loop busy elsewhere, a descheduled vCPU) must not turn into
 * milliseconds of polling or of early release. Negative samples count
 * as 0. */
void wake_ewma_update(int64_t *mean_ns, int64_t sample_ns);

enum wake_action {
	WAKE_IDLE,	/* nothing held */
	WAKE_POLL,	/* deadline within the lead: poll from the loop */
	WAKE_ARM,	/* set the timer to *arm_at_ns */
	WAKE_KEEP,	/* the armed timer fires early enough; leave it */
};

/* What to do for the earliest held deadline (have_deadline == 0: none)
 * at now_ns, given the time the timer is armed for (0: disarmed).
 * A timer armed earlier than needed is kept: re-arming costs a system
 * call (and a VM exit) per command, a spurious early wake-up only
 * another look at the queue. */
enum wake_action wake_plan(const struct wake_model *m, int64_t max_lead_ns,
			   int have_deadline, int64_t deadline_ns, int64_t now_ns,
			   int64_t timer_at_ns, int64_t *arm_at_ns);

#endif
