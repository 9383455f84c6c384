/* Two cases of one point of a run matrix set side by side: which cases
 * pair up, how each spread its I/O and how long each path took, what
 * fio saw. The numbers every renderer and plot shows; no layout. */
#ifndef SP_COMPARE_H
#define SP_COMPARE_H

#include <stddef.h>

#include "harness/measure/case_result.h"

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
	/* ticks per I/O over both directions; < 0: the path saw none */
	double svc_ms_a[SP_CASE_MAX_PATHS], svc_ms_b[SP_CASE_MAX_PATHS];
	int slow[SP_CASE_MAX_PATHS];	/* slow in either case */
	double slow_share_a, slow_share_b;	/* 0 when no path is slow */
	double tv;				/* total variation a..b */
	struct sp_case_latency lat_a, lat_b;
};

/* -EINVAL when the cases do not have the same paths in the same order
 * or one of them saw no I/O. */
int sp_compare(const struct sp_case_pair *p, struct sp_comparison *out);

/* Pairs every case whose selector is base ("st" or "service-time")
 * with the case at the same point whose selector is other. pairs must
 * hold n entries; returns how many were found. */
size_t sp_pair_cases(const struct sp_case_result *cases, size_t n,
		     const char *base, const char *other,
		     struct sp_case_pair *pairs);

/* A series is the pairs at one topology, rw, bs and numjobs: one line
 * of latency against iodepth. */
int sp_pair_same_series(const struct sp_case_pair *x,
			const struct sp_case_pair *y);
/* Whether no pair before pairs[i] is of its series. */
int sp_pair_first_of_series(const struct sp_case_pair *pairs, size_t i);
/* The pair of pairs[first]'s series with the least iodepth above
 * after (0 for the first), or n when there is none: walks a series by
 * increasing iodepth. */
size_t sp_pair_series_next(const struct sp_case_pair *pairs, size_t n,
			   size_t first, int after);

#endif
