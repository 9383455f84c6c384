/* Under what a case ran, so a report can tell a finding from an
 * artefact of the machine: the delay scale k, how busy the CPUs were
 * (the lab's emulator pays for every I/O in CPU), native or lab, which
 * HST build, the kernel, and how far each path's closed-loop
 * calibration ended from its target. Also the standard error of the
 * paths' shares. Pure; /proc/stat and /sys are read by the caller. */
#ifndef SP_CASE_ENV_H
#define SP_CASE_ENV_H

#include <stddef.h>
#include <stdint.h>

#define SP_ENV_MAX_PATHS 16

/* A case whose CPUs were busier than this was measuring the machine,
 * not the paths: the report flags it instead of scoring it. */
#define SP_ENV_UTIL_MAX 0.5
/* A calibrated path whose p50 ended further than this from its
 * target: the delays were not the published ones. */
#define SP_ENV_RESID_MAX 0.03
#define SP_ENV_RESID_EXACT_MAX 0.01
/* The largest standard error of a path's share a report trusts. */
#define SP_ENV_SHARE_SE_MAX 0.005
/* Batches of a timeline for the batch-means standard error: each
 * holds a tenth of the run, long beside HST's memory of a path's
 * service (its average weighs a new sample by 1/20). */
#define SP_ENV_SE_BATCHES 10

struct sp_case_env {
	int recorded;		/* 0: a case file from before these fields */
	uint64_t scale;		/* k */
	double cpu_util;	/* busy fraction of all CPUs; < 0 unknown */
	char mode[8];		/* "native" or "lab" */
	/* "native", "qemu" or "uml", and "real" or "exact" (uml's simulated
	 * clock); empty in a case file from before the uml engine */
	char engine[8];
	char time[8];
	/* the kernel under test's patches, "sha256 name;..." (uml built
	 * with make lab PATCHES=); empty for the stock kernel */
	char patches[384];
	/* "stock", "bucket_shift 27", "5.8 skew 200ms", "not loaded" */
	char hst[48];
	/* The HST build the run's HST cases named: "stock" or "5.8" (""
	 * in a case file from before builds); 5.8's clock_skew_ns as /sys
	 * showed it at the case (has_hst_skew 0: unknown). */
	char hst_build[8];
	int has_hst_skew;
	int64_t hst_skew_ns;
	char kernel[64];	/* uname -r */
	/* Seconds of unmeasured workload on the selector before the
	 * case (run --warmup); 0 when it met the selector cold. */
	unsigned int warmup_s;
	int has_resid[SP_ENV_MAX_PATHS];
	double resid[SP_ENV_MAX_PATHS];	/* measured / target - 1 */
	/* The shares' standard error by batch means over the case's
	 * timeline (SP_ENV_SE_BATCHES batches); filled when a run folder
	 * is loaded and the case has a timeline, never saved. 0: none. */
	int se_batches;
	double se_batch[SP_ENV_MAX_PATHS];
};

/* What the ran-under lines say of the machine: e->mode alone for a
 * case file without an engine, else "lab uml, time exact: the
 * testbed's own CPU costs nothing" and the like. */
void sp_case_env_machine(const struct sp_case_env *e, char *buf, size_t len);

/* The aggregate "cpu " line of /proc/stat. */
struct sp_cpustat {
	uint64_t busy, total;	/* jiffies; idle and iowait are not busy */
};

/* 0, or -EINVAL when text has no "cpu " line. */
int sp_cpustat_parse(const char *proc_stat, struct sp_cpustat *s);
/* Busy fraction between two samples; -1 when no time passed. */
double sp_cpustat_busy(const struct sp_cpustat *before,
		       const struct sp_cpustat *after);

/* Of n calibration residuals (measured / target - 1; has[i]: there is
 * one), the index of the one furthest beyond +-bound, the first of
 * equals; -1 when every one is within it. The journal's check after
 * up --calibrate (sp_state_calib_worst) and a case's flag below. */
int sp_resid_worst(const double *resid, const int *has, size_t n, double bound);

/* 1 when the case should not be read as a finding: why says so
 * ("lab saturated: CPU 83% > 50%", "calibration off: path 4 +5.1%").
 * 0 for a case within bounds or one without a record. */
int sp_case_env_flagged(const struct sp_case_env *e, size_t n_paths,
			char *why, size_t len);

/* Binomial standard error of each path's share of total I/Os (ios[i]
 * of them on path i): sqrt(p (1 - p) / total). Returns the largest;
 * se may be NULL. 0 when total is 0. */
double sp_share_se(const uint64_t *ios, size_t n, double *se);

struct json_object;
/* Adds the fields to a case's JSON object (with the derived flag,
 * "lab_shaped": the reason or null, and "share_se_max" from ios, the
 * paths' I/O counts) / reads them back (absent in older files:
 * e->recorded 0). from_json: 0 or -EINVAL. */
void sp_case_env_to_json(const struct sp_case_env *e, const uint64_t *ios,
			 size_t n_paths, struct json_object *o);
int sp_case_env_from_json(struct json_object *o, size_t n_paths,
			  struct sp_case_env *e);

#endif
