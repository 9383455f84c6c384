#include "harness/report/render_order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct order_ctx {
	const struct sp_case_result *cases;
	const char *base, *other;	/* short names */
};

/* qsort has no context argument; the comparison reads this one. */
static struct order_ctx order;

static int cmp_num(long long a, long long b)
{
	return (a > b) - (a < b);
}

/* base first, other second, every other selector after them */
static int selector_rank(const char *selector)
{
	const char *s = sp_selector_short(selector);

	if (!strcmp(s, order.base))
		return 0;
	return strcmp(s, order.other) ? 2 : 1;
}

static int cmp_index(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct sp_case_result *a = &order.cases[ia], *b = &order.cases[ib];
	int d;

	if ((d = strcmp(a->topology, b->topology)) ||
	    (d = strcmp(a->rw, b->rw)) ||
	    (d = cmp_num((long long)a->bs, (long long)b->bs)) ||
	    (d = cmp_num(a->iodepth, b->iodepth)) ||
	    (d = cmp_num(a->numjobs, b->numjobs)) ||
	    (d = cmp_num(selector_rank(a->selector), selector_rank(b->selector))) ||
	    (d = strcmp(sp_selector_short(a->selector),
			sp_selector_short(b->selector))))
		return d;
	/* the order they came in: qsort itself is not stable */
	return cmp_num((long long)ia, (long long)ib);
}

int sp_render_order_cases(struct sp_case_result *cases, size_t n,
			  const char *base, const char *other)
{
	struct sp_case_result *sorted;
	size_t *index, i;

	if (n < 2)
		return 0;
	index = calloc(n, sizeof(*index));
	sorted = calloc(n, sizeof(*sorted));
	if (!index || !sorted) {
		free(index);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		index[i] = i;
	order.cases = cases;
	order.base = sp_selector_short(base);
	order.other = sp_selector_short(other);
	qsort(index, n, sizeof(*index), cmp_index);
	for (i = 0; i < n; i++)
		sorted[i] = cases[index[i]];
	memcpy(cases, sorted, n * sizeof(*cases));
	free(index);
	free(sorted);
	return 0;
}
