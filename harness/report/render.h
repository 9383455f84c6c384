/* Per-case tables in the seed's layout, ST-vs-HST comparisons, and a
 * whole saved run, in text, Markdown, CSV or JSON. Pure: they write
 * to the FILE * the CLI hands in. */
#ifndef SP_RENDER_H
#define SP_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/report/render_table.h"

/* What fio saw over both directions: IOPS summed, completion latency
 * mean weighted by I/O count, p99 the larger of the two. */
struct sp_case_latency {
	double iops, mean_us, p99_us;
};
void sp_case_latency(const struct sp_case_result *c,
		     struct sp_case_latency *out);

/* The two selectors of one point of the matrix. */
struct sp_case_pair {
	const struct sp_case_result *a, *b;
};

struct sp_comparison {
	size_t n_paths;
	double share_a[SP_CASE_MAX_PATHS], share_b[SP_CASE_MAX_PATHS];
	double slow_share_a, slow_share_b;	/* 0 when no path is slow */
	double tv;				/* total variation a..b */
	struct sp_case_latency lat_a, lat_b;
};

/* -EINVAL when the cases do not have the same paths in the same order
 * or one of them saw no I/O. */
int sp_compare(const struct sp_case_pair *p, struct sp_comparison *out);

/* Pairs every case whose selector is base (a short or kernel name of
 * dm/selector.h) with the case at the same point whose selector is
 * other. pairs must hold n entries; returns how many were found. */
size_t sp_pair_cases(const struct sp_case_result *cases, size_t n,
		     const char *base, const char *other,
		     struct sp_case_pair *pairs);

int sp_render_case(FILE *out, enum sp_format fmt,
		   const struct sp_case_result *c);
int sp_render_compare(FILE *out, enum sp_format fmt,
		      const struct sp_case_pair *p);
/* Every case, then every base/other comparison. */
int sp_render_report(FILE *out, enum sp_format fmt,
		     const struct sp_case_result *cases, size_t n,
		     const char *base, const char *other);

#endif
