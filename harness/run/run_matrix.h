/* `slowpath run`: the matrix of cases (selector x rw x bs x iodepth)
 * from the command line, checked before anything on the system is
 * touched; the safety check on the target map; progress and ETA text.
 * Everything here is pure. */
#ifndef SP_RUN_MATRIX_H
#define SP_RUN_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "common/opttab.h"
#include "dm/dm_table.h"
#include "harness/fault/fault.h"

#define SP_RUN_MAX_LIST 16
#define SP_RUN_ITEMLEN 32
#define SP_RUN_ERRLEN 512
#define SP_RUN_MAX_IODEPTH 65536
#define SP_RUN_MAX_NUMJOBS 64
#define SP_RUN_MAX_RUNTIME_S 86400
/* A warm-up this deep keeps every path busy, the slowest included, so
 * each of them serves enough I/O for a selector's averages to settle */
#define SP_RUN_WARMUP_IODEPTH 64

/* What the command line says, as common/opttab fills it. */
struct sp_run_cli {
	const char *selectors, *rw, *iodepth, *bs;
	int64_t numjobs;
	uint64_t size;
	int64_t ios, runtime_s;
	const char *job, *out;
	int json, help;
	/* run --kernels (harness/boots/boots_kernels.c): the lab kernels
	 * to run the same cases on, the topology each boot brings up, its
	 * unit, vCPUs; or run --jobs (harness/boots/boots_jobs.c): that
	 * many exact-time guests */
	const char *kernels, *topology, *unit;
	int64_t lab_cpus, jobs;
	int verify;		/* fio verify=crc32c on the writes */
	int timeline;		/* sample a timeline without faults too */
	int64_t warmup_s;	/* unmeasured fio before each case */
	/* --hst stock|5.8[:SKEW] (lab/hst_info.h); NULL: the build `up`
	 * was given, the skew /sys has */
	const char *hst;
	/* --fault, repeatable: parsed by the CLI (sp_fault_parse) */
	size_t n_faults;
	struct sp_fault faults[SP_FAULT_MAX];
};

extern const struct sp_opt sp_run_cli_table[];

/* How each fio run ends: after --size bytes (fio's default), after a
 * number of I/Os per job, or after a time. */
enum sp_run_stop { SP_RUN_STOP_SIZE, SP_RUN_STOP_IOS, SP_RUN_STOP_RUNTIME };

struct sp_run_plan {
	size_t n_sel, n_rw, n_bs, n_qd;
	enum sp_selector sel[SP_RUN_MAX_LIST];
	char rw[SP_RUN_MAX_LIST][SP_RUN_ITEMLEN];
	uint64_t bs[SP_RUN_MAX_LIST];
	int iodepth[SP_RUN_MAX_LIST];
	int numjobs;
	enum sp_run_stop stop;
	uint64_t size_bytes;
	uint64_t ios;
	unsigned int runtime_s;
	const char *job_file;	/* NULL: the reference command line */
	const char *out_dir;	/* NULL: results/<timestamp>-<topology> */
	int json;
	int verify;		/* fio checks what it wrote (crc32c) */
	/* fio reads the kernel's clock: on exact time the TSC it picks by
	 * default on x86 ignores simulated time (sp_machine_exact_time) */
	int clock_gettime;
	int timeline;		/* sample the case's timeline */
	/* Seconds of the case's workload, at iodepth at least
	 * SP_RUN_WARMUP_IODEPTH, run on the selector just set and not
	 * measured: a selector with a memory (HST's averages start at 1 ns)
	 * meets the measured run warm. 0: none. */
	unsigned int warmup_s;
	/* --hst given: HST cases name hst_build (enum sp_hst_build), and
	 * for 5.8 the run sets clock_skew_ns first; 0: up's build */
	int hst_given, hst_build;
	int64_t hst_skew_ns;
	/* Every case goes through these, timed from its fio's start. */
	size_t n_faults;
	struct sp_fault faults[SP_FAULT_MAX];
};

/* fio counts errors and goes on (continue_on_error) rather than
 * stopping at the first: whenever a run checks data or breaks paths. */
static inline int sp_run_counts_errors(const struct sp_run_plan *plan)
{
	return plan->verify || plan->n_faults > 0;
}

/* One point of the matrix. */
struct sp_run_case {
	size_t index;		/* 0-based, in run order */
	enum sp_selector sel;
	const char *rw;		/* points into the plan */
	uint64_t bs;
	int iodepth;
};

/* "st,hst" -> items. Blanks around items are dropped; an empty list,
 * an empty item, a duplicate, more than max items or an item longer
 * than SP_RUN_ITEMLEN-1 is -EINVAL with err naming the option. */
int sp_run_split_list(const char *text, const char *opt,
		      char items[][SP_RUN_ITEMLEN], size_t max, size_t *n,
		      char *err, size_t errlen);

/* Checks every option and combination; err names the option and the
 * value. 0 or -EINVAL. */
int sp_run_plan_from_cli(const struct sp_run_cli *cli,
			 struct sp_run_plan *plan, char *err, size_t errlen);

size_t sp_run_plan_count(const struct sp_run_plan *plan);

/* Cases run rw by rw, then bs, then iodepth, and the selectors of one
 * point back to back, as in the reference experiment. -ERANGE past
 * the end. */
int sp_run_plan_case(const struct sp_run_plan *plan, size_t index,
		     struct sp_run_case *c);

/* The safety check: name and uuid as device-mapper reports them for
 * the target, want_* as `slowpath up` recorded them. Both must carry
 * the slowpath prefix and match the record; err says which did not. */
int sp_run_map_is_ours(const char *name, const char *uuid,
		       const char *want_name, const char *want_uuid,
		       char *err, size_t errlen);

/* One line of `dmsetup info -c --noheadings --separator '|' -o
 * name,uuid,major,minor`. 0 or -EINVAL. */
int sp_run_parse_dm_info(const char *line, char *name, size_t namelen,
			 char *uuid, size_t uuidlen, unsigned int *major,
			 unsigned int *minor);

/* Progress of a run, for the one-line display. */
struct sp_run_progress {
	size_t done, total;		/* cases finished, planned */
	int64_t elapsed_ns;		/* since the run began */
	int64_t done_ns;		/* spent on the finished cases */
	int64_t case_elapsed_ns;	/* in the current case */
	int64_t case_estimate_ns;	/* <= 0: unknown until one finishes */
	const char *label;		/* the current case, e.g. "hst randread 4k qd8" */
};

/* Remaining time: the mean of the finished cases (or the estimate
 * before any finished) times what is left, less what the current case
 * has already run. -1 when unknown. */
int64_t sp_run_eta_ns(const struct sp_run_progress *p);

/* "1:05", "1:02:03", "--:--" for negative. */
const char *sp_run_fmt_clock(int64_t ns, char *buf, size_t len);

/* "[ 3/16] hst randread 4k qd8  0:42 elapsed  ETA 2:10". Returns the
 * length written (truncated to len-1). */
size_t sp_run_progress_line(const struct sp_run_progress *p, char *buf,
			    size_t len);

/* "hst randread 4k qd8" */
void sp_run_case_label(const struct sp_run_case *c, int numjobs, char *buf,
		       size_t len);

#endif
