#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tgt-backend/wakeup.h"

#define US 1000LL
#define MS 1000000LL

static void lead_learns_lateness_per_sleep_length(void **state)
{
	struct wake_model m;
	int i;

	(void)state;
	wake_model_init(&m, 80 * US);
	for (i = 0; i < 200; i++) {
		wake_model_learn(&m, 100 * US, 50 * US);
		wake_model_learn(&m, 10 * MS, 180 * US);
	}
	/* A steady lateness: the spread fades, the lead settles near it. */
	assert_in_range(wake_model_lead(&m, 100 * US, 10 * MS), 50 * US, 56 * US);
	assert_in_range(wake_model_lead(&m, 10 * MS, 10 * MS), 180 * US, 190 * US);
	/* A length never seen keeps the initial guess: 80 + 3 x 20 us. */
	assert_int_equal(wake_model_lead(&m, 1 * MS, 10 * MS), 140 * US);
	assert_int_equal(m.samples, 400);
}

static void lead_covers_a_spread(void **state)
{
	struct wake_model m;
	int i;

	(void)state;
	wake_model_init(&m, 0);
	for (i = 0; i < 400; i++)
		wake_model_learn(&m, 1 * MS, (i % 2) ? 100 * US : 40 * US);
	/* mean 70, mean deviation 30: the lead reaches past the late ones */
	assert_true(wake_model_lead(&m, 1 * MS, 10 * MS) > 100 * US);
}

static void lead_is_clamped(void **state)
{
	struct wake_model m;

	(void)state;
	wake_model_init(&m, 80 * US);
	assert_int_equal(wake_model_lead(&m, 1 * MS, 30 * US), 30 * US);
	assert_int_equal(wake_model_lead(&m, 1 * MS, 0), 0);
	/* never more than the sleep itself */
	assert_int_equal(wake_model_lead(&m, 20 * US, 10 * MS), 20 * US);
	assert_int_equal(wake_model_lead(&m, -5, 10 * MS), 0);
}

static void one_stall_moves_the_mean_a_bounded_step(void **state)
{
	struct wake_model stalled, capped;

	(void)state;
	wake_model_init(&stalled, 50 * US);
	wake_model_init(&capped, 50 * US);
	/* 50 ms late counts as 4 x 50 + 10 = 210 us late, no more */
	wake_model_learn(&stalled, 1 * MS, 50 * MS);
	wake_model_learn(&capped, 1 * MS, 210 * US);
	assert_int_equal(wake_model_lead(&stalled, 1 * MS, 10 * MS),
			 wake_model_lead(&capped, 1 * MS, 10 * MS));
	assert_true(wake_model_lead(&stalled, 1 * MS, 10 * MS) < 200 * US);
}

static void ewma_converges_and_ignores_negatives(void **state)
{
	int64_t mean = 0;
	int i;

	(void)state;
	for (i = 0; i < 300; i++)
		wake_ewma_update(&mean, 8 * US);
	assert_in_range(mean, 7900, 8000);
	for (i = 0; i < 300; i++)
		wake_ewma_update(&mean, -5 * US);
	assert_in_range(mean, 0, 100);
}

static void plan_picks_idle_poll_arm_keep(void **state)
{
	struct wake_model m;
	int64_t at = -1, now = 1000 * MS;

	(void)state;
	wake_model_init(&m, 80 * US);	/* lead 140 us */
	assert_int_equal(wake_plan(&m, 10 * MS, 0, 0, now, 0, &at), WAKE_IDLE);

	/* far: arm early by the lead */
	assert_int_equal(wake_plan(&m, 10 * MS, 1, now + 1 * MS, now, 0, &at), WAKE_ARM);
	assert_int_equal(at, now + 1 * MS - 140 * US);

	/* within the lead: poll */
	assert_int_equal(wake_plan(&m, 10 * MS, 1, now + 100 * US, now, 0, &at),
			 WAKE_POLL);

	/* armed earlier than needed: keep it, no system call */
	at = -1;
	assert_int_equal(wake_plan(&m, 10 * MS, 1, now + 1 * MS, now, now + 10 * US, &at),
			 WAKE_KEEP);
	assert_int_equal(at, -1);

	/* armed too late for a new, earlier deadline: re-arm */
	assert_int_equal(wake_plan(&m, 10 * MS, 1, now + 1 * MS, now, now + 5 * MS, &at),
			 WAKE_ARM);
	assert_int_equal(at, now + 1 * MS - 140 * US);
}

static void plan_without_polling_arms_at_the_deadline(void **state)
{
	struct wake_model m;
	int64_t at = -1, now = 1000 * MS;

	(void)state;
	wake_model_init(&m, 80 * US);
	assert_int_equal(wake_plan(&m, 0, 1, now + 100 * US, now, 0, &at), WAKE_ARM);
	assert_int_equal(at, now + 100 * US);
	assert_int_equal(wake_plan(&m, 0, 1, now, now, 0, &at), WAKE_POLL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lead_learns_lateness_per_sleep_length),
		cmocka_unit_test(lead_covers_a_spread),
		cmocka_unit_test(lead_is_clamped),
		cmocka_unit_test(one_stall_moves_the_mean_a_bounded_step),
		cmocka_unit_test(ewma_converges_and_ignores_negatives),
		cmocka_unit_test(plan_picks_idle_poll_arm_keep),
		cmocka_unit_test(plan_without_polling_arms_at_the_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
