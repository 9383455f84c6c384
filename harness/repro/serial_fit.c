/* How much of the published per-I/O time a 2020 path served in turn.
 * At iodepth 32 and 64 the published ST runs kept every path equally
 * busy (tRed per path is the same, ~290 s, for sda and sdd of skew4
 * randread qd 32), so each path moved I/O in proportion to what it
 * could serve one command at a time: 1 / (serial + multiplier x slope).
 * The one serial base that fits those shares is the part of the qd-1
 * base a path could not overlap: the lab serves it on the path's one
 * server (topologies' servers = 1), the rest as plain latency. Pure. */
#include "harness/repro/reference.h"
#include "harness/measure/shares.h"

#include <errno.h>
#include <math.h>

/* The slow paths' share if each path's throughput were its capacity. */
static double capacity_share(const struct sp_ref_case *c, const int *slow,
			     double serial_ms, double slope_ms)
{
	double all = 0, slow_sum = 0;
	size_t p;

	for (p = 0; p < c->n_paths; p++) {
		double cap = 1 / (serial_ms + c->topo->multiplier[p] * slope_ms);

		all += cap;
		if (slow[p])
			slow_sum += cap;
	}
	return all > 0 ? slow_sum / all : 0;
}

static double sq_error(const struct sp_reference *ref, double serial_ms,
		       double slope_ms, size_t *n)
{
	double sum = 0, shares[SP_REF_MAX_PATHS];
	int slow[SP_REF_MAX_PATHS];
	size_t i;

	*n = 0;
	for (i = 0; i < ref->n_cases; i++) {
		const struct sp_ref_case *c = &ref->cases[i];
		double d;

		if (c->selector != SP_REF_ST || c->iodepth < 32 ||
		    sp_ref_case_slow_marks(c, slow) <= 0 ||
		    sp_ref_shares(c, shares))
			continue;
		d = capacity_share(c, slow, serial_ms, slope_ms) -
		    sp_share_of(shares, slow, c->n_paths);
		sum += d * d;
		(*n)++;
	}
	return sum;
}

int sp_ref_serial_fit(const struct sp_reference *ref,
		      const struct sp_linfit *fit, double *serial_ms,
		      double *rmse)
{
	double best = INFINITY, best_ms = 0;
	size_t n = 0, step;
	/* 1 µs steps over 0..base: the error is smooth, a scan is plenty */
	size_t steps = (size_t)(fit->base * 1000);

	if (!(fit->base > 0) || !(fit->slope > 0))
		return -EINVAL;
	for (step = 0; step <= steps; step++) {
		double ms = (double)step / 1000, e = sq_error(ref, ms, fit->slope, &n);

		if (!n)
			return -ENODATA;
		if (e < best) {
			best = e;
			best_ms = ms;
		}
	}
	*serial_ms = best_ms;
	if (rmse)
		*rmse = sqrt(best / (double)n);
	return 0;
}
