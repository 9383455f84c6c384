/* Closed-loop calibration of a topology that is up: each path's p50 at
 * iodepth 1 is measured and its injected delay corrected until the p50
 * is within a tolerance of its target, k x (base + multiplier x unit):
 * the setup's own per-I/O cost (the emulator's, in the lab) is then
 * paid out of the injected delay instead of added to it. The
 * controller is pure; sp_bringup_calibrate runs fio and `delay set`. */
#ifndef SP_CALIB_H
#define SP_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "harness/bringup/bringup.h"

#define SP_CALIB_TOLERANCE 0.03	/* +-3 % of the target */
/* On exact time a delay is what was injected: one measurement, and it
 * must be the target within 1 %. */
#define SP_CALIB_EXACT_TOLERANCE 0.01
/* I/Os a path's p50 rests on, and the most seconds spent per path and
 * round to get them: with tens of ms per I/O a fixed few seconds gave
 * p50s that wandered 5 % round to round in the lab. */
#define SP_CALIB_SAMPLES 150
#define SP_CALIB_RUNTIME_MAX 30
/* At most this many I/Os per second over all paths at iodepth 1 each
 * (the lab's CPU: ~10 % at 15 IOPS), the paths are measured at once. */
#define SP_CALIB_TOGETHER_IOPS 30

struct sp_calib_path {
	int64_t target_ns;	/* the p50 wanted */
	int64_t injected_ns;	/* the delay in force */
	int64_t measured_ns;	/* the last p50 seen; < 0 none yet */
};

/* measured / target - 1. */
double sp_calib_residual(const struct sp_calib_path *p);

/* One step: every path whose p50 is off by more than tol gets
 * injected += target - measured (the own cost is additive), kept in
 * 0..60 s. Returns how many paths were off (0: done); changed[i] says
 * which need a new delay. */
size_t sp_calib_step(struct sp_calib_path *p, size_t n, double tol,
		     int *changed);

/* Seconds of fio for SP_CALIB_SAMPLES I/Os at iodepth 1 of target_ns
 * each, at least min_s, at most SP_CALIB_RUNTIME_MAX. */
unsigned int sp_calib_runtime_s(int64_t target_ns, unsigned int min_s);

struct sp_calib_opts {
	int64_t base_ns;	/* added to every path's delay, before k */
	unsigned int rounds;	/* measurements at most */
	unsigned int runtime_s;	/* least fio seconds per path per round */
	double tolerance;	/* 0: SP_CALIB_TOLERANCE */
};

/* Targets k x base + the path's planned delay (already x k); injects
 * them, measures (fio randread qd 1 on each path's disk, one after
 * another), corrects, and journals a `calib` line per path. 0 when
 * every path ended within SP_CALIB_TOLERANCE, -ERANGE when some did
 * not (residuals are journaled either way), or -errno. */
int sp_bringup_calibrate(const struct sp_sys_ops *ops, struct sp_state *st,
			 const struct sp_calib_opts *o, const char *state_dir,
			 char *err, size_t errlen);

#endif
