/* run --kernels, run --jobs and reproduce --jobs: the same run in
 * several lab boots. Each
 * boots lab guests that bring the topology up, run their cases into a
 * folder of the result directory and take it down; the cases are then
 * merged into one OUT/cases and reported as one run. */
#ifndef SP_BOOTS_H
#define SP_BOOTS_H

#include "harness/repro/repro_plan.h"
#include "harness/run/run_matrix.h"

struct sp_repro_opts;

#include <stddef.h>

/* slowpath run --kernels 6.1,6.12 (boots_kernels.c): the same cases in
 * one qemu lab boot per kernel, merged into one result directory and
 * reported side by side. cli is the parsed command line, argv the
 * original one (its other options go to each boot's `slowpath run`).
 * An exit code. */
int sp_boots_run_kernels(const struct sp_run_cli *cli, int argc, char **argv);

/* What --jobs is when not given, on a host without the kernel stack
 * and no lab started: the number of cores (UML is one CPU a guest), at
 * most SP_BOOTS_MAX_JOBS; 1 when the count cannot be had. */
#define SP_BOOTS_MAX_JOBS 8
/* 0 when a uml lab is prepared for --jobs, else SP_EXIT_ENV said for
 * who ("run", "reproduce"). */
int sp_boots_uml_ready(const char *who);
int sp_boots_default_jobs(void);

/* slowpath run --jobs N --topology T (boots_jobs.c): the cases dealt to
 * N exact-time lab guests side by side, merged into one result
 * directory. Arguments as above. An exit code. */
int sp_boots_run_jobs(const struct sp_run_cli *cli, int argc, char **argv);

/* What each guest of reproduce --jobs is given of the command line:
 * --runtime, --max-runtime, --warmup, --full, and --scale, --unit,
 * --data when not NULL. */
struct sp_boots_repro {
	int64_t runtime_s, max_runtime_s, warmup_s, ios;
	int full;
	const char *scale, *unit, *data;
	const char *hst;	/* --hst, passed on; NULL: stock */
};

/* slowpath reproduce --jobs N from a host without the kernel stack
 * (boots_repro.c): the plan's (topology, rw) groups dealt to N
 * exact-time guests side by side, each reproducing its groups into
 * OUT/jobs/I; their runs gathered under OUT/runs for the one report.
 * 0, -EIO when a guest failed, or -errno (said). */
int sp_boots_repro_jobs(const char *experiment, const struct sp_boots_repro *r,
			const struct sp_repro_plan *plan, const char *out,
			int64_t n_jobs);

/* reproduce --hst 5.8:auto --jobs N (boots_hstfit.c): what the two
 * builds' reports share. */
struct sp_boots_auto {
	const char *skews;	/* --fit-skews, or the default ladder */
	const struct sp_repro_opts *o;
	const struct sp_repro_plan *plan;
	const struct sp_reference *ref;
	const char *out, *mode, *host;
	int64_t n_jobs;
};

/* The fit of the 5.8 build's skew (OUT/fit/SKEW), the plan under the
 * stock build (OUT/stock) and under 5.8 at the fitted skew (OUT), and
 * OUT/builds.md of both. An sp_exit code. */
int sp_boots_repro_hst_auto(const char *experiment, const struct sp_boots_repro *r,
			    const struct sp_boots_auto *a);

/* One guest's command line after `lab run ... --`: our binary brings
 * cli->topology up (at cli->unit), runs the user's run options without
 * ours (and without `skip`, an option the caller replaces: NULL for
 * none), then extra[] (NULL-ended), with --out dir; then down. A
 * calloc'd NULL-ended vector (its strings are borrowed), *n its count;
 * NULL without memory. */
char **sp_run_boot_guest_argv(const struct sp_run_cli *cli, const char *exe,
			      int argc, char **argv, const char *skip,
			      const char *const *extra, const char *dir,
			      int *n);

/* --fault, --timeline and --verify with --kernels or --jobs (how):
 * refused with one message, an exit code (0: none given). */
int sp_run_boot_refuse(const struct sp_run_cli *cli, const char *how);

/* OUT/SUB/cases/X.json -> OUT/cases/PREFIX X.json: the count copied,
 * or -errno (said). */
int sp_run_boot_merge(const char *out, const char *sub, const char *prefix);

/* The result directory: --out or results/<time>-SUFFIX, new and empty,
 * made absolute into out, with OUT/cases; exe our binary. An exit
 * code. */
int sp_run_boot_outdir(const struct sp_run_cli *cli, const char *suffix,
		       char *out, size_t outlen, char *exe, size_t exelen);

/* The merged run's reports and plots; with more than one kernel among
 * the cases, the kernels side by side on stdout. An exit code. */
int sp_run_boot_report(const char *out);

#endif
