/* A reproduction's orchestration: the plan's topologies brought up,
 * their cases run and taken down through struct sp_repro_ops (unscaled:
 * the unit calibrated first; scaled: k per topology and iodepth from
 * the setup's measured capacity), then the record (reproduce.info) and
 * the report. `slowpath reproduce` (harness/cli/repro_cmd.c) is its
 * options and one call here per mode; unit tests drive it with mocks. */
#ifndef SP_REPRO_RUN_H
#define SP_REPRO_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/repro/reference.h"
#include "harness/repro/repro_ops.h"
#include "harness/repro/repro_plan.h"

struct sp_case_result;

/* bring-ups again of a group whose calibration missed */
#define SP_REPRO_CALIB_RETRIES 1

struct sp_repro_opts {
	const char *title;	/* "HST vs ST (2020)" */
	const char *cases;	/* --cases as given, NULL: all */
	int64_t runtime_s, max_runtime_s;
	int64_t ios;		/* exact time: I/Os a run (--ios) */
	int64_t warmup_s;	/* -1: 20 s, 5 s on exact time */
	int full;		/* the published size, not time-based */
	int report_only;	/* the report written again, over the old */
	int exact_time;		/* this machine's clock (sp_machine_exact_time) */
};

/* The unit and scaling the report states ("the 2020 fit's, scaled
 * (k = 16)"): what reproduce.info keeps. */
#define SP_REPRO_UNIT_TEXT 64

/* The scaled reproduction: the setup's capacity measured (unless
 * fixed_k, 0: auto), k per (topology, iodepth), each group brought up
 * with scale k, unit the fit's slope, calibrated on the fit's base (and
 * up once again when a path's calibration missed its bound), its cases
 * run (a noisy one again, longer), taken down. Writes what it chose to
 * OUT/scale.txt. 0 or -errno. */
int sp_repro_scaled(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		    const struct sp_repro_plan *plan, const struct sp_reference *ref,
		    const struct sp_reference *fit_ref, uint64_t fixed_k,
		    const char *out);

/* Unscaled: the unit from base1's read service time here at iodepth 1
 * against the published fit (a line said). 0 or -errno. */
int sp_repro_unit(const struct sp_repro_ops *ops, const struct sp_reference *fit_ref,
		  const char *out, int64_t *unit_ns);
/* Unscaled: every planned topology up with unit_ns (> 0), its cases
 * run, down. unit_text: the unit as the report states it. 0 or -EIO. */
int sp_repro_unscaled(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		      const struct sp_repro_plan *plan, int64_t unit_ns,
		      const char *out, char *unit_text, size_t len);

/* `slowpath run` of selectors ("st,hst") for one rw at the iodepths
 * qds ("1,32") into dir, time-based (runtime_s) unless o->full or ios
 * (> 0: each case that many I/Os, as on exact time). 0 or -EIO. */
int sp_repro_run_cases(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		       const char *selectors, const char *rw, const char *qds,
		       int64_t runtime_s, int64_t ios, const char *dir);
/* The HST warm-up in seconds: o->warmup_s, or its default (-1): 20,
 * and 5 on exact time, where 5 s at iodepth 64 are thousands of I/Os. */
int64_t sp_repro_warmup_s(const struct sp_repro_opts *o);

/* One line to ops->say, formatted. */
void sp_repro_say(const struct sp_repro_ops *ops, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* snprintf that says (one sp_err) a path it would cut: -ENAMETOOLONG. */
int sp_repro_path_printf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A new file at path, 0644, never one that exists (-EEXIST) or a
 * symlink; NULL with errno set. */
FILE *sp_repro_fopen_new(const char *path);

struct sp_repro_builds_tally;
/* OUT/builds.md (a new file) from the stock build's reproduction in OUT
 * and the 5.8 build's in dir58, every planned point under both; 0, or
 * -errno with err naming the folder or case at fault (HST cases of
 * another build, 5.8 ones of two skews, a point not judged). */
int sp_repro_builds_from(const char *out, const char *dir58,
			 const struct sp_reference *ref,
			 const struct sp_repro_plan *plan,
			 struct sp_repro_builds_tally *tally, char *err,
			 size_t errlen);

/* Every case under OUT/runs (each run folder's, in name order) into
 * *all (malloc'd, n_all; none: NULL, 0), no plots drawn. 0 or -ENOMEM. */
int sp_repro_runs_load(const char *out, struct sp_case_result **all,
		       size_t *n_all);

/* OUT/report.md from the case files under OUT/runs (o->report_only:
 * written again; else a new file, never over an earlier report); -EIO
 * when a planned point was not measured, -ENOENT (nothing written)
 * when the published table has no row for a planned point. mode NULL:
 * the machine the cases recorded; whether the runs were on exact time
 * is the cases' record too. said: the closing line to print. */
int sp_repro_write_report(const struct sp_repro_opts *o,
			  const struct sp_repro_plan *plan,
			  const struct sp_reference *ref, const char *out,
			  const char *unit_text, int64_t elapsed_s,
			  const char *mode, const char *host, char *said,
			  size_t said_len);

/* After the runs: OUT/reproduce.info (new) and the report, or -ENODATA
 * (one message) when OUT/runs holds nothing. said as above. 0 or -errno. */
int sp_repro_finish(const struct sp_repro_opts *o, const struct sp_repro_plan *plan,
		    const struct sp_reference *ref, const char *out,
		    const char *unit_text, int64_t elapsed_s, const char *mode,
		    const char *host, char *said, size_t said_len);
/* --report-only: reproduce.info read back (unit overridden by unit when
 * given) and the report written again. 0, -EINVAL (a bad record, one
 * message) or the report's -errno. */
int sp_repro_report_again(const struct sp_repro_opts *o,
			  const struct sp_repro_plan *plan,
			  const struct sp_reference *ref, const char *out,
			  const char *unit, char *said, size_t said_len);

#endif
