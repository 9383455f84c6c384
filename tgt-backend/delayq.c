#include "tgt-backend/delayq.h"

#include <errno.h>
#include <stdlib.h>

#define DELAYQ_DEFAULT_CAP 64

static int before(const struct delayq_item *a, const struct delayq_item *b)
{
	if (a->deadline_ns != b->deadline_ns)
		return a->deadline_ns < b->deadline_ns;
	return a->seq < b->seq;
}

static void place(struct delayq *q, struct delayq_item *item, size_t pos)
{
	q->heap[pos] = item;
	item->pos = pos;
}

static void sift_up(struct delayq *q, size_t pos)
{
	struct delayq_item *item = q->heap[pos];

	while (pos > 0) {
		size_t parent = (pos - 1) / 2;

		if (!before(item, q->heap[parent]))
			break;
		place(q, q->heap[parent], pos);
		pos = parent;
	}
	place(q, item, pos);
}

static void sift_down(struct delayq *q, size_t pos)
{
	struct delayq_item *item = q->heap[pos];

	for (;;) {
		size_t child = 2 * pos + 1;

		if (child >= q->len)
			break;
		if (child + 1 < q->len && before(q->heap[child + 1], q->heap[child]))
			child++;
		if (!before(q->heap[child], item))
			break;
		place(q, q->heap[child], pos);
		pos = child;
	}
	place(q, item, pos);
}

int delayq_init(struct delayq *q, size_t cap_hint)
{
	q->cap = cap_hint ? cap_hint : DELAYQ_DEFAULT_CAP;
	q->len = 0;
	q->next_seq = 0;
	q->heap = calloc(q->cap, sizeof(*q->heap));
	return q->heap ? 0 : -ENOMEM;
}

void delayq_destroy(struct delayq *q)
{
	size_t i;

	for (i = 0; i < q->len; i++)
		q->heap[i]->pos = DELAYQ_NOT_QUEUED;
	free(q->heap);
	q->heap = NULL;
	q->len = q->cap = 0;
}

int delayq_push(struct delayq *q, struct delayq_item *item, int64_t deadline_ns)
{
	if (q->len && item->pos < q->len && q->heap[item->pos] == item)
		return -EBUSY;
	if (q->len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : DELAYQ_DEFAULT_CAP;
		struct delayq_item **heap = realloc(q->heap, cap * sizeof(*heap));

		if (!heap)
			return -ENOMEM;
		q->heap = heap;
		q->cap = cap;
	}
	item->deadline_ns = deadline_ns;
	item->seq = q->next_seq++;
	q->heap[q->len] = item;
	item->pos = q->len++;
	sift_up(q, item->pos);
	return 0;
}

int delayq_remove(struct delayq *q, struct delayq_item *item)
{
	size_t pos = item->pos;
	struct delayq_item *last;

	if (pos >= q->len || q->heap[pos] != item)
		return -ENOENT;
	item->pos = DELAYQ_NOT_QUEUED;
	last = q->heap[--q->len];
	if (pos == q->len)
		return 0;
	place(q, last, pos);
	/* The moved item may belong above or below its new slot. */
	if (pos > 0 && before(last, q->heap[(pos - 1) / 2]))
		sift_up(q, pos);
	else
		sift_down(q, pos);
	return 0;
}

struct delayq_item *delayq_peek(const struct delayq *q)
{
	return q->len ? q->heap[0] : NULL;
}

struct delayq_item *delayq_pop(struct delayq *q)
{
	struct delayq_item *top = delayq_peek(q);

	if (top)
		delayq_remove(q, top);
	return top;
}

struct delayq_item *delayq_pop_expired(struct delayq *q, int64_t now_ns)
{
	struct delayq_item *top = delayq_peek(q);

	if (!top || top->deadline_ns > now_ns)
		return NULL;
	delayq_remove(q, top);
	return top;
}
