#include "harness/probe/probe_lat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void probe_lat_init(struct probe_lat *l)
{
	memset(l, 0, sizeof(*l));
}

void probe_lat_free(struct probe_lat *l)
{
	free(l->ns);
	probe_lat_init(l);
}

int probe_lat_add(struct probe_lat *l, int64_t ns)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		int64_t *grown = realloc(l->ns, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->ns = grown;
		l->cap = cap;
	}
	l->ns[l->n++] = ns < 0 ? 0 : ns;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t probe_lat_percentile(const int64_t *sorted, size_t n, double pct)
{
	double rank;
	size_t idx;

	if (!n)
		return 0;
	/* The small epsilon keeps 0.999 * 1000 from landing on 999.0000001
	 * and rounding up to the next rank. */
	rank = ceil(pct / 100.0 * (double)n - 1e-9);
	idx = rank < 1 ? 0 : (size_t)rank - 1;
	return sorted[idx < n ? idx : n - 1];
}

void probe_lat_summarize(struct probe_lat *l, struct probe_lat_summary *s)
{
	double sum = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!l->n)
		return;
	qsort(l->ns, l->n, sizeof(*l->ns), cmp_i64);
	for (i = 0; i < l->n; i++)
		sum += (double)l->ns[i];
	s->n = l->n;
	s->min = l->ns[0];
	s->max = l->ns[l->n - 1];
	s->p50 = probe_lat_percentile(l->ns, l->n, 50);
	s->p90 = probe_lat_percentile(l->ns, l->n, 90);
	s->p99 = probe_lat_percentile(l->ns, l->n, 99);
	s->p999 = probe_lat_percentile(l->ns, l->n, 99.9);
	s->mean = sum / (double)l->n;
}
