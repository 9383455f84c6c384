/* Per-I/O latencies kept exactly (one int64 of ns each), so percentiles
 * are exact order statistics rather than histogram bucket edges. */
#ifndef SP_PROBE_LAT_H
#define SP_PROBE_LAT_H

#include <stddef.h>
#include <stdint.h>

struct probe_lat {
	int64_t *ns;
	size_t n, cap;
};

struct probe_lat_summary {
	size_t n;
	int64_t min, p50, p90, p99, p999, max;
	double mean;
};

void probe_lat_init(struct probe_lat *l);
void probe_lat_free(struct probe_lat *l);
/* 0 or -ENOMEM. Negative samples are clamped to 0 (clock cannot go back,
 * but a caller's arithmetic might). */
int probe_lat_add(struct probe_lat *l, int64_t ns);

/* Nearest-rank percentile of sorted samples: the smallest sample with at
 * least pct% of samples at or below it. pct in (0, 100]. */
int64_t probe_lat_percentile(const int64_t *sorted, size_t n, double pct);

/* Sorts l in place and fills s; an empty set gives all zeros. */
void probe_lat_summarize(struct probe_lat *l, struct probe_lat_summary *s);

#endif
