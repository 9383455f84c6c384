#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "tgt-backend/delayq.h"

struct entry {
	struct delayq_item item;
	int id;
};

#define ENTRY(it) ((struct entry *)((char *)(it) - offsetof(struct entry, item)))

static uint64_t lcg_state = 12345;

static int64_t next_rand(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int64_t)(lcg_state >> 33);
}

static void empty_queue_has_nothing(void **state)
{
	struct delayq q;

	(void)state;
	assert_int_equal(delayq_init(&q, 0), 0);
	assert_null(delayq_peek(&q));
	assert_null(delayq_pop(&q));
	assert_null(delayq_pop_expired(&q, INT64_MAX));
	assert_int_equal(delayq_len(&q), 0);
	delayq_destroy(&q);
}

static void pops_in_deadline_order(void **state)
{
	enum { N = 500 };
	struct entry *e = calloc(N, sizeof(*e));
	struct delayq q;
	int64_t last = INT64_MIN;
	int i;

	(void)state;
	assert_non_null(e);
	assert_int_equal(delayq_init(&q, 4), 0);
	for (i = 0; i < N; i++)
		assert_int_equal(delayq_push(&q, &e[i].item, next_rand() % 100000), 0);
	assert_int_equal(delayq_len(&q), N);
	for (i = 0; i < N; i++) {
		struct delayq_item *it = delayq_pop(&q);

		assert_non_null(it);
		assert_true(it->deadline_ns >= last);
		last = it->deadline_ns;
		assert_int_equal(it->pos, DELAYQ_NOT_QUEUED);
	}
	assert_null(delayq_pop(&q));
	delayq_destroy(&q);
	free(e);
}

static void equal_deadlines_keep_insertion_order(void **state)
{
	struct entry e[40];
	struct delayq q;
	int i;

	(void)state;
	assert_int_equal(delayq_init(&q, 2), 0);
	for (i = 0; i < 40; i++) {
		e[i].id = i;
		/* two interleaved deadlines, twenty commands each */
		assert_int_equal(delayq_push(&q, &e[i].item, i % 2 ? 500 : 100), 0);
	}
	for (i = 0; i < 40; i++) {
		struct entry *got = ENTRY(delayq_pop(&q));
		int want = i < 20 ? 2 * i : 2 * (i - 20) + 1;

		assert_int_equal(got->id, want);
	}
	delayq_destroy(&q);
}

static void pop_expired_takes_exactly_the_due_ones(void **state)
{
	enum { N = 256 };
	struct entry e[N];
	struct delayq q;
	int i, taken = 0;
	struct delayq_item *it;

	(void)state;
	assert_int_equal(delayq_init(&q, 0), 0);
	for (i = 0; i < N; i++) {
		e[i].id = i;
		assert_int_equal(delayq_push(&q, &e[i].item, 1000 + (i * 7919) % N), 0);
	}
	/* deadlines 1000..1255: at 1099 the first 100 are due */
	while ((it = delayq_pop_expired(&q, 1099))) {
		assert_true(it->deadline_ns <= 1099);
		taken++;
	}
	assert_int_equal(taken, 100);
	assert_int_equal(delayq_len(&q), N - 100);
	assert_int_equal(delayq_peek(&q)->deadline_ns, 1100);
	while (delayq_pop_expired(&q, 1255))
		taken++;
	assert_int_equal(taken, N);
	assert_null(delayq_pop_expired(&q, INT64_MAX));
	delayq_destroy(&q);
}

static void grows_from_one_slot(void **state)
{
	enum { N = 5000 };
	struct entry *e = calloc(N, sizeof(*e));
	struct delayq q;
	int i;

	(void)state;
	assert_int_equal(delayq_init(&q, 1), 0);
	for (i = 0; i < N; i++)
		assert_int_equal(delayq_push(&q, &e[i].item, N - i), 0);
	assert_int_equal(delayq_len(&q), N);
	assert_true(q.cap >= N);
	for (i = 0; i < N; i++)
		assert_int_equal(delayq_pop(&q)->deadline_ns, i + 1);
	delayq_destroy(&q);
	free(e);
}

static void removal_keeps_the_heap_ordered(void **state)
{
	enum { N = 300 };
	struct entry e[N];
	struct delayq q;
	int i, left = 0;
	int64_t last = INT64_MIN;
	struct delayq_item *it;

	(void)state;
	assert_int_equal(delayq_init(&q, 0), 0);
	for (i = 0; i < N; i++) {
		e[i].id = i;
		assert_int_equal(delayq_push(&q, &e[i].item, next_rand() % 1000), 0);
	}
	/* abort every third command, wherever it sits in the heap */
	for (i = 0; i < N; i += 3)
		assert_int_equal(delayq_remove(&q, &e[i].item), 0);
	assert_int_equal(delayq_len(&q), N - N / 3);
	/* a second removal, or removing one never queued, is refused */
	assert_int_equal(delayq_remove(&q, &e[0].item), -ENOENT);
	while ((it = delayq_pop(&q))) {
		assert_true(it->deadline_ns >= last);
		assert_true(ENTRY(it)->id % 3 != 0);
		last = it->deadline_ns;
		left++;
	}
	assert_int_equal(left, N - N / 3);
	delayq_destroy(&q);
}

static void pushing_a_queued_item_is_refused(void **state)
{
	struct entry a = { .item.pos = DELAYQ_NOT_QUEUED }, b;
	struct delayq q;

	(void)state;
	b.item.pos = 0;	/* stale slot number must not fool it */
	assert_int_equal(delayq_init(&q, 0), 0);
	assert_int_equal(delayq_push(&q, &a.item, 10), 0);
	assert_int_equal(delayq_push(&q, &a.item, 20), -EBUSY);
	assert_int_equal(delayq_push(&q, &b.item, 5), 0);
	assert_ptr_equal(delayq_pop(&q), &b.item);
	assert_ptr_equal(delayq_pop(&q), &a.item);
	assert_int_equal(a.item.deadline_ns, 10);
	/* once out, it may go in again */
	assert_int_equal(delayq_push(&q, &a.item, 30), 0);
	assert_int_equal(delayq_len(&q), 1);
	delayq_destroy(&q);
	assert_int_equal(a.item.pos, DELAYQ_NOT_QUEUED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_queue_has_nothing),
		cmocka_unit_test(pops_in_deadline_order),
		cmocka_unit_test(equal_deadlines_keep_insertion_order),
		cmocka_unit_test(pop_expired_takes_exactly_the_due_ones),
		cmocka_unit_test(grows_from_one_slot),
		cmocka_unit_test(removal_keeps_the_heap_ordered),
		cmocka_unit_test(pushing_a_queued_item_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
