/* The effects of a reproduction: bring a topology up, set a path's
 * delay, run a set of cases into a folder, take it down, read back what
 * was run and the machine's CPU; and what it says it does. Real ones go through the bringup and
 * run rooms as the user's commands do (harness/cli/repro_real.c); unit
 * tests give mocks (tests/unit/harness/repro/test_repro_run.c). */
#ifndef SP_REPRO_OPS_H
#define SP_REPRO_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/measure/case_result.h"

/* `slowpath up TOPOLOGY` with these, every number as `up` takes it. */
struct sp_repro_up {
	const char *topology;	/* a topology's name or file */
	int64_t unit_ns;	/* 0: the topology's own */
	uint64_t scale;		/* k: every delay times k, a power of two */
	int calibrate;		/* then closed loop on scale x (base + delay) */
	int64_t calib_base_ns;	/* with calibrate: the published base */
	int64_t serial_base_ns;	/* 0: none; else its part served in turn */
};

/* `slowpath run` of these cases into out (a new folder). */
struct sp_repro_run {
	const char *selectors;	/* "st,hst" */
	const char *rw;		/* one rw: "randread" */
	const char *iodepths;	/* "1,32" */
	int64_t runtime_s;	/* > 0: each case that long */
	int64_t ios;		/* > 0: each case that many I/Os (before runtime) */
	int64_t warmup_s;	/* unmeasured workload before each case */
	int timeline;		/* the 10 Hz per-path counts */
	const char *hst;	/* run --hst (lab/hst_info.h); NULL: up's */
	const char *out;
};

struct sp_repro_ops {
	/* each 0, or -errno (a failed command: -EIO) having said why */
	int (*up)(void *ctx, const struct sp_repro_up *up);
	int (*delay_set)(void *ctx, const char *path, int64_t delay_ns);
	int (*run)(void *ctx, const struct sp_repro_run *run);
	int (*down)(void *ctx);
	/* After up --calibrate: 1 when a path's calibration ended further
	 * than bound from its target (label and residual, measured /
	 * target - 1, of the worst), 0 when none did, -errno. */
	int (*calib_miss)(void *ctx, double bound, char *label, size_t len,
			  double *residual);
	/* the cases a run saved into dir (sp_case_load_dir) */
	int (*load_cases)(void *ctx, const char *dir,
			  struct sp_case_result **cases, size_t *n);
	/* /proc/stat's text, malloc'd; and a wait between two of them */
	int (*cpustat)(void *ctx, char **text);
	void (*sleep_s)(void *ctx, unsigned int seconds);
	/* the machine's uptime, s (/proc/uptime); NULL: not known */
	int (*uptime_s)(void *ctx, double *s);
	/* one line of what the reproduction does, without its newline */
	void (*say)(void *ctx, const char *line);
	void *ctx;
};

#endif
