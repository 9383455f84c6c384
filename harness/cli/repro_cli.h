/* What repro_cmd.c (`slowpath reproduce`) and repro_scaled.c (its
 * scaled, calibrated runs) share inside cli/. */
#ifndef SP_REPRO_CLI_H
#define SP_REPRO_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "harness/repro/reference.h"
#include "harness/repro/repro_ops.h"
#include "harness/repro/repro_plan.h"

struct repro_cli {
	const char *cases, *out, *unit, *data, *scale;
	int64_t runtime_s, max_runtime_s, warmup_s, jobs;
	int full, report_only, help;
};

/* The real effects: `up`, `delay set`, `run`, `down` as the user's
 * commands do them (repro_real.c). */
extern const struct sp_repro_ops sp_repro_real_ops;

/* `slowpath run` of selectors ("st,hst") for one rw at the iodepths
 * qds ("1,32") into dir, time-based (runtime_s seconds) unless --full
 * or ios (> 0: each case that many I/Os, as on exact time). 0 or -EIO. */
int repro_run_cases(const struct sp_repro_ops *ops, const struct repro_cli *cli,
		    const char *selectors, const char *rw, const char *qds,
		    int64_t runtime_s, int64_t ios, const char *dir);
/* The HST warm-up in seconds: --warmup, or its default (-1): 20, and
 * 5 on exact time, where 5 s at iodepth 64 are thousands of I/Os. */
int64_t repro_warmup_s(const struct repro_cli *cli);
int repro_path_printf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A new file at path, 0644, never one that exists (-EEXIST) or a
 * symlink; NULL with errno set. */
FILE *repro_fopen_new(const char *path);

/* The title the report carries ("HST vs ST (2020)"). */
extern const char *repro_experiment_title;

/* OUT/report.md from the case files under OUT/runs (--report-only:
 * written again; else a new file, never over an earlier report); -EIO
 * when a planned point was not measured, -ENOENT (nothing written)
 * when the published table has no row for a planned point. mode NULL:
 * the machine the cases recorded; whether the runs were on exact time
 * is the cases' record too. */
int repro_write_report(const struct repro_cli *cli,
		       const struct sp_repro_plan *plan,
		       const struct sp_reference *ref, const char *out,
		       const char *unit_text, int64_t elapsed_s,
		       const char *mode, const char *host);

/* The scaled reproduction: the lab's capacity measured (unless k is
 * given), k per (topology, iodepth), each group brought up (ops->up)
 * with scale k, unit the fit's slope, calibrated on the fit's base,
 * its cases run, taken down. fixed_k 0: auto. Writes
 * what it chose to OUT/scale.txt for the report. 0 or -errno. */
int repro_scaled(const struct sp_repro_ops *ops, const struct repro_cli *cli, const struct sp_repro_plan *plan,
		 const struct sp_reference *ref, const struct sp_reference *fit_ref,
		 uint64_t fixed_k, const char *out);

/* reproduce --jobs N from a host without the kernel stack: the plan in
 * N exact-time guests side by side, their runs gathered under OUT/runs
 * (repro_jobs.c). 0, -EIO when a guest failed, or -errno. */
int repro_jobs(const char *experiment, const struct repro_cli *cli,
	       const struct sp_repro_plan *plan, const char *out, int64_t n_jobs);

#endif
