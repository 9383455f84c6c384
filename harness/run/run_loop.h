/* The case loop of `slowpath run`: per case, reload the selector,
 * snapshot /proc/diskstats, run fio, snapshot again, fill and save the
 * case. Effects go through struct sp_run_ops (harness/run/run_exec.c has
 * the real ones), so the order, the bookkeeping on Ctrl-C and the
 * restored selector are unit-tested with mocks. */
#ifndef SP_RUN_LOOP_H
#define SP_RUN_LOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/measure/case_result.h"
#include "dm/dm_table.h"
#include "harness/report/render_plot.h"
#include "harness/run/run_matrix.h"
#include "harness/bringup/state.h"

struct sp_tl_path_view;

/* The map a run writes to and the paths under it. */
struct sp_run_target {
	char topology[64];
	char map_name[128], map_uuid[128];
	char device[160];		/* /dev/mapper/<map_name> */
	char dm_name[16];		/* dm-N, its /proc/diskstats name */
	/* nvme-tcp: the timeline's map row is the paths' sum (the head
	 * disk keeps no I/O statistics on 6.1) */
	int map_sums_paths;
	size_t n_paths;
	char path[SP_CASE_MAX_PATHS][SP_DS_NAMELEN];
	char label[SP_CASE_MAX_PATHS][32];	/* p1 ...: what --fault names */
	int slow[SP_CASE_MAX_PATHS];
	int64_t delay_ns[SP_CASE_MAX_PATHS];	/* what the slow marks compare */
	struct sp_dm_selector initial;	/* restored at the end */
	/* nvme-tcp: dm-multipath's map over the paths' own subsystems,
	 * which the cases of a dm selector run on; NULL otherwise */
	const struct sp_run_target *dm_alt;
	uint64_t scale;			/* k from the journal */
	int has_resid[SP_CASE_MAX_PATHS];
	double resid[SP_CASE_MAX_PATHS];	/* calibration, per path */
};

/* From the journal `up` wrote and the map's minor number: the paths'
 * disks, and which are slow (more delay than the fastest path). -EINVAL
 * with err when the topology is not fully up or a path has no disk;
 * -EBUSY when a path has a fault (`slowpath fault`) on it. */
int sp_run_target_from_state(const struct sp_state *st, unsigned int dm_minor,
			     struct sp_run_target *t, char *err,
			     size_t errlen);

/* native's topology as dm-multipath's map dm-<dm_minor> over the
 * nvme-tcp paths' own subsystems sees it: the map's device, each path's
 * own hidden disk. -EINVAL with err when the journal has none. */
int sp_run_target_solo(const struct sp_state *st, unsigned int dm_minor,
		       const struct sp_run_target *native,
		       struct sp_run_target *t, char *err, size_t errlen);

/* Each fault's path, as the user named it (a label, a number or a disk:
 * the lookup `slowpath fault` and `delay set` use), becomes that path's
 * label, so the timeline, the case JSON and the overlap check see one
 * name per path. -ENOENT with err naming the fault when a path is not
 * in the topology, -EINVAL when two faults now overlap on one path. */
int sp_run_faults_resolve(struct sp_fault *f, size_t n, struct sp_state *st,
			  char *err, size_t errlen);

struct sp_run_ops {
	/* Live reload of the map's table with another selector. */
	int (*selector_set)(void *ctx, const struct sp_dm_selector *sel);
	/* The whole /proc/diskstats, malloc'd. */
	int (*diskstats)(void *ctx, char **text);
	/* Starts fio (one at a time); it must not get the terminal's
	 * SIGINT: the loop decides when it stops. */
	int (*fio_start)(void *ctx, const char *const *argv);
	/* Waits up to ms. 1: fio ended, *status is its exit status and
	 * *out and *errout its stdout and stderr (malloc'd); 0: still
	 * running. */
	int (*fio_wait)(void *ctx, unsigned int ms, int *status, char **out,
			char **errout);
	/* Stops fio (TERM, then KILL) and reaps it. */
	void (*fio_stop)(void *ctx);
	int64_t (*now_ns)(void *ctx);
	/* The whole /proc/stat, malloc'd, sampled around fio for the CPU
	 * utilisation of the case. May be NULL: not sampled. */
	int (*cpustat)(void *ctx, char **text);
	/* This machine: mode (native|lab), HST build, kernel release
	 * into env. May be NULL: not recorded. */
	void (*env_info)(void *ctx, struct sp_case_env *env);
	/* The map's status line (dm-mpath's paths, active or failed),
	 * malloc'd. May be NULL: the timeline has no path states. */
	int (*dm_status)(void *ctx, char **text);
	/* Where there is no map (nvme-tcp): each path's state from its
	 * controller's and its ANA state, into views[0..n). When set,
	 * dm_status is not read. May be NULL. */
	void (*path_states)(void *ctx, size_t n, struct sp_tl_path_view *views);
	/* sp_fault_apply, sp_fault_flap_tick and sp_fault_restore on the
	 * topology that is up; NULL when the run has no --fault. */
	int (*fault_apply)(void *ctx, const struct sp_fault *f, char *err,
			   size_t errlen);
	int (*fault_flap)(void *ctx, const struct sp_fault *f, int down,
			  char *err, size_t errlen);
	int (*fault_restore)(void *ctx, const char *path, char *err,
			     size_t errlen);
	/* Each path's delay-store hist text (docs/backend.md), malloc'd
	 * into texts[i], NULL where there is none, once the store has
	 * written what was done so far. May be NULL: no per-path
	 * latencies. */
	void (*store_hists)(void *ctx, size_t n_paths, char **texts);
	void *ctx;
};

/* Where the time of one case went. */
struct sp_run_timing {
	int64_t wall_ns;		/* the whole case */
	int64_t fio_wall_ns;		/* fio's process, start to reaped */
	int64_t fio_runtime_ns;		/* fio's own runtime (JSON) */
	int64_t selector_ns;		/* the live reload */
};

/* Harness time beyond fio's process: reload, snapshots, parse, save. */
static inline int64_t sp_run_overhead_ns(const struct sp_run_timing *t)
{
	return t->wall_ns - t->fio_wall_ns;
}

/* What the CLI shows; any hook may be NULL. */
struct sp_run_hooks {
	void (*progress)(void *ctx, const struct sp_run_progress *p);
	void (*case_done)(void *ctx, const struct sp_case_result *c,
			  const struct sp_run_timing *t);
	void *ctx;
	unsigned int poll_ms;	/* progress refresh while fio runs */
};

struct sp_run_summary {
	size_t planned, done;
	int interrupted;
	int restore_failed;
	size_t with_errors;	/* cases where fio counted errors */
	struct sp_case_result *cases;	/* done of them, malloc'd */
	struct sp_run_timing *timing;
};

/* Set by the CLI's SIGINT/SIGTERM handler. */
extern volatile sig_atomic_t sp_run_interrupted;

/* Runs every case of plan on t, saving each finished case under
 * out_dir (cases/, raw/). job_text is the user's --job file (already
 * checked) or NULL. On Ctrl-C the running fio is stopped and its case
 * dropped; the finished ones stay saved. In every case the selector
 * that was loaded before is loaded again. 0, -EINTR, or the first
 * error (fio failing is -EIO, its stderr logged as it said it). */
int sp_run_matrix(const struct sp_run_plan *plan,
		  const struct sp_run_target *t, const char *job_text,
		  const char *out_dir, const struct sp_run_ops *ops,
		  const struct sp_run_hooks *hooks,
		  struct sp_run_summary *sum);

void sp_run_summary_free(struct sp_run_summary *sum);

/* out_dir/run.json: the target, the options, per case timing. */
int sp_run_save_manifest(const char *out_dir, const struct sp_run_plan *plan,
			 const struct sp_run_target *t,
			 const struct sp_run_summary *sum);

/* report.{txt,md,csv,json} and plots/ (ST vs HST) in out_dir, the cases
 * in `slowpath report`'s order (render_order.h). Plots are skipped (0)
 * when no case pairs up; plot_ops NULL skips them. */
int sp_run_save_reports(const char *out_dir,
			const struct sp_case_result *cases, size_t n,
			const struct sp_plot_ops *plot_ops);

#endif
