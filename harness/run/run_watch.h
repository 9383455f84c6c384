/* What `slowpath run` does while one case's fio runs: samples the
 * timeline at 10 Hz (every path disk and the map from /proc/diskstats,
 * the paths' states and their selector's args from the map's status),
 * applies, flaps and restores the case's faults when they fall due, and restores whatever
 * is still broken when fio ends, is stopped or fails. Effects through
 * struct sp_run_ops; the clock is ops->now_ns, so unit tests drive it. */
#ifndef SP_RUN_WATCH_H
#define SP_RUN_WATCH_H

#include "harness/measure/case_faults.h"
#include "harness/measure/timeline.h"
#include "harness/run/run_faults.h"
#include "harness/run/run_loop.h"

#define SP_RUN_TICK_MS 100
#define SP_RUN_STATUS_EVERY 1	/* ticks per status read: 10 Hz, the
				 * selector's state with every sample */

struct sp_run_watch {
	const struct sp_run_plan *plan;
	const struct sp_run_target *t;
	const struct sp_run_ops *ops;
	struct sp_case_faults *rec;	/* the case's events go here */
	struct sp_run_fault_clock clock[SP_FAULT_MAX];
	struct sp_timeline tl;
	int sampling;			/* 0: no timeline, or it broke */
	int64_t fio_start_ns, next_tick_ns, next_fault_ns;
	unsigned int ticks;
	struct sp_tl_path_view views[SP_TL_MAX_DEVS];
};

/* A watch over one case (the timeline only when plan->timeline). */
int sp_run_watch_init(struct sp_run_watch *w, const struct sp_run_plan *plan,
		      const struct sp_run_target *t,
		      const struct sp_run_ops *ops, struct sp_case_faults *rec);
void sp_run_watch_free(struct sp_run_watch *w);

/* fio has just started: the first sample, times count from now. */
void sp_run_watch_begin(struct sp_run_watch *w);

/* Samples and fault actions due now; *wait_ms: until the next one (at
 * most max_ms). 0, or -errno when a fault could not be applied or
 * flapped (recorded as a "failed" event, err says why). */
int sp_run_watch_step(struct sp_run_watch *w, unsigned int max_ms,
		      unsigned int *wait_ms, char *err, size_t errlen);

/* A last sample after fio ended. */
void sp_run_watch_end(struct sp_run_watch *w);

/* Restores every fault still applied (recording each); 0, or the first
 * error, every fault tried all the same. */
int sp_run_watch_restore_all(struct sp_run_watch *w);

/* DIR/cases/<stem>.timeline.tsv through common/outdir, before the
 * case JSON (which then says so: rec->timeline). No timeline: 0,
 * nothing written. */
int sp_run_watch_save(struct sp_run_watch *w, const char *out_dir,
		      const char *stem);

#endif
