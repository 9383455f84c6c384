/* A deadline queue: a binary min-heap of items ordered by deadline, ties
 * broken by insertion order, so that equal delays keep FIFO order.
 * Items are embedded in the caller's structure (no allocation per
 * item) and know their heap slot, so any one can be removed, e.g. when
 * its command is aborted. Pure C; the tgt store drives it from a timerfd. */
#ifndef SP_DELAYQ_H
#define SP_DELAYQ_H

#include <stddef.h>
#include <stdint.h>

struct delayq_item {
	int64_t deadline_ns;
	uint64_t seq;		/* insertion order, breaks ties */
	size_t pos;		/* heap slot; DELAYQ_NOT_QUEUED when out */
};

#define DELAYQ_NOT_QUEUED ((size_t)-1)

struct delayq {
	struct delayq_item **heap;
	size_t len, cap;
	uint64_t next_seq;
};

/* cap_hint: initial slots (0 picks a default); the heap grows on demand. */
int delayq_init(struct delayq *q, size_t cap_hint);
/* Frees the heap only; queued items belong to the caller. */
void delayq_destroy(struct delayq *q);

/* 0 or -ENOMEM (the item is then not queued); -EBUSY if already queued. */
int delayq_push(struct delayq *q, struct delayq_item *item, int64_t deadline_ns);
/* 0, or -ENOENT if the item is not in this queue. */
int delayq_remove(struct delayq *q, struct delayq_item *item);

/* Earliest item, or NULL when empty. */
struct delayq_item *delayq_peek(const struct delayq *q);
/* Removes and returns the earliest item whose deadline is <= now_ns,
 * or NULL: call until NULL to take every expired item in order. */
struct delayq_item *delayq_pop_expired(struct delayq *q, int64_t now_ns);
/* Removes and returns the earliest item regardless of deadline. */
struct delayq_item *delayq_pop(struct delayq *q);

static inline size_t delayq_len(const struct delayq *q) { return q->len; }

#endif
