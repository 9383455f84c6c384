/* Choosing the delay scale k of a reproduction from the setup's
 * measured capacity, and the run length a share's standard error
 * needs. Under TCG the emulator spends CPU on every I/O: a case that
 * asks for more I/O per second than the lab's CPU can give measures
 * the lab. Scaling every delay by k divides the rate by k, so the
 * smallest k whose predicted CPU use stays under a bound keeps the
 * selectors, not the emulator, in charge. Pure. */
#ifndef SP_REPRO_SCALE_H
#define SP_REPRO_SCALE_H

#include <stddef.h>
#include <stdint.h>

#define SP_CAPACITY_MAX_POINTS 8

/* What the setup did on one path: CPU busy fraction at a few rates of
 * I/O. In the lab the CPU an I/O costs falls as the rate rises (25% at
 * 15 IOPS, 80% at 480), so the rates span low to saturated and the
 * model is a power law fitted to them (sp_capacity_fit). */
struct sp_lab_capacity {
	size_t n;
	double iops[SP_CAPACITY_MAX_POINTS];
	double util[SP_CAPACITY_MAX_POINTS];
	double idle_util;	/* CPU busy fraction with no I/O at all */
	int64_t own_ns;		/* p50 at iodepth 1, nothing injected */
	/* util = idle_util + a x IOPS^b, from sp_capacity_fit */
	double a, b;
};

/* Least squares of log(util - idle) on log(IOPS) over the points; b
 * kept in 0.2..1 (one point: b = 1, the CPU proportional to the rate).
 * 0, or -EINVAL with no usable point. */
int sp_capacity_fit(struct sp_lab_capacity *cap);
double sp_capacity_util(const struct sp_lab_capacity *cap, double iops);

/* The own cost may be at most this part of the fastest path's time:
 * the injected delay carries the rest, and the own cost's noise (ms
 * under a loaded host) stays small beside the whole. */
#define SP_SCALE_OWN_MAX 0.1
/* The CPU use k is planned for: below SP_ENV_UTIL_MAX (where a case is
 * flagged) because the fit, made on one path, underestimates many: the
 * full reproduction of 2026-11-30 planned u10 at qd 32-64 for 44 % at
 * k = 16 and measured 51-71 %. */
#define SP_SCALE_PLAN_UTIL 0.35

/* The published model of a path: k x (base + multiplier x unit). A
 * serial path serves k x (serial_base + multiplier x unit) of that one
 * command at a time, which caps its I/O per second. */
struct sp_scale_model {
	double base_ns, unit_ns;
	int serial;
	double serial_base_ns;
	size_t n_paths;
	const double *multiplier;
};

/* I/O per second the case asks for at k: every I/O in flight on the
 * fastest path, iodepth / (k (base + m_min unit)), or with serial paths
 * at most what they serve together; an upper bound of what either
 * selector does. */
double sp_scale_predicted_iops(const struct sp_scale_model *m, int iodepth,
			       uint64_t k);

/* The smallest power of two k >= 1 such that (1) the predicted CPU use,
 * sp_capacity_util at the predicted IOPS (cap fitted), is at most
 * util_max and (2) the own cost is at most SP_SCALE_OWN_MAX of the
 * fastest path's target; within the 60 s bound on the slowest path.
 * 0 with *k and *util (the prediction). -ERANGE when no k fits: then
 * *k is the smallest meeting (2) whose I/O adds at most a tenth of
 * the idle headroom, or the largest tried. -EINVAL for a bad
 * capacity. */
int sp_scale_pick(const struct sp_lab_capacity *cap,
		  const struct sp_scale_model *m, int iodepth,
		  double util_max, uint64_t *k, double *util);

/* Seconds of a time-based run at k for a share's standard error to be
 * at most se_max, with the share p the furthest from 0 and 1 among
 * the published ones (binomial: p (1 - p) / se^2 I/Os), at the rate
 * ST sees (the paths in turn at iodepth < paths, evenly filled
 * above). */
double sp_scale_runtime_for_se(const struct sp_scale_model *m, int iodepth,
			       uint64_t k, double p, double se_max);

/* How large to make a case's run again whose shares' standard error se
 * (batch means, a fraction) came out over se_max after size: the binomial
 * plan misses runs whose path choices come in stretches (HST at qd 2 on
 * u10's six fast paths: 3 pp in 35 s). The error falls as one over the
 * root of the time, so (se / se_max)^2 x size, at most max_size. A
 * size is seconds of a time-based run or I/Os of a counted one (exact
 * time): the error falls alike in both. 0 when se is within se_max,
 * not a number, or the run cannot be made larger. */
int64_t sp_scale_rerun_size(double se, double se_max, int64_t size,
			    int64_t max_size);

#endif
