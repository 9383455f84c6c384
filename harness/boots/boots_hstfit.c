/* reproduce --hst 5.8:auto --jobs N (boots.h): the fit's points under
 * the 5.8 build at every skew of the ladder, each in OUT/fit/SKEW; the
 * best skew (repro_fit.h); the reproduction under the stock build in
 * OUT/stock and under 5.8 at that skew in OUT, each with its own
 * report; then OUT/builds.md, both side by side. */
#include "harness/boots/boots.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/units.h"
#include "harness/repro/repro_do.h"
#include "harness/repro/repro_fit.h"
#include "harness/repro/repro_run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One skew's fit points measured in dir and scored into row. */
static int fit_one(const char *experiment, const struct sp_boots_repro *r,
		   const struct sp_reference *ref, const char *fit_dir,
		   int64_t n_jobs, struct sp_repro_fit_row *row)
{
	struct sp_boots_repro at = *r;
	struct sp_repro_plan plan;
	struct sp_case_result *cases;
	char dir[PATH_MAX], hst[40], err[SP_OUTDIR_ERRLEN];
	size_t n;
	int ret;

	sp_repro_fit_plan(&plan);
	snprintf(hst, sizeof(hst), "5.8:%s", row->label);
	at.hst = hst;
	if (sp_outdir_sub(fit_dir, row->label, dir, sizeof(dir), err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return -EINVAL;
	}
	sp_info("reproduce: fit: HST 5.8 at skew %s (%s)", row->label, dir);
	ret = sp_boots_repro_jobs(experiment, &at, &plan, dir, n_jobs);
	if (ret)
		return ret;
	ret = sp_repro_runs_load(dir, &cases, &n);
	if (!ret)
		ret = sp_repro_fit_score(ref, cases, n, row);
	free(cases);
	if (ret == -ENOENT)
		sp_err("reproduce: fit: skew %s: a fit point was not measured "
		       "(%s)", row->label, dir);
	return ret;
}

/* The ladder measured, the best skew's index in *best. */
static int fit_skew(const char *experiment, const struct sp_boots_repro *r,
		    const struct sp_reference *ref, const char *out,
		    int64_t n_jobs, struct sp_repro_fit_row *rows, size_t n,
		    size_t *best)
{
	char fit_dir[PATH_MAX], err[SP_OUTDIR_ERRLEN];
	size_t i;
	int ret = 0;

	if (sp_outdir_sub(out, "fit", fit_dir, sizeof(fit_dir), err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return -EINVAL;
	}
	for (i = 0; i < n && !ret; i++)
		ret = fit_one(experiment, r, ref, fit_dir, n_jobs, &rows[i]);
	if (ret)
		return ret;
	*best = sp_repro_fit_best(rows, n);
	for (i = 0; i < n; i++)
		sp_info("reproduce: fit: skew %s: HST TVD skew4 %.3f %.3f, u10 "
			"%.3f %.3f, mean %.3f%s", rows[i].label, rows[i].tvd[0],
			rows[i].tvd[1], rows[i].tvd[2], rows[i].tvd[3],
			rows[i].mean_tvd, i == *best ? " (the fit)" : "");
	return 0;
}

/* One build's reproduction of the plan into dir, with its report. */
static int one_build(const char *experiment, const struct sp_boots_repro *r,
		     const char *hst, const struct sp_boots_auto *a,
		     const char *dir)
{
	struct sp_boots_repro at = *r;
	int64_t started = sp_now_ns();
	int ret;

	at.hst = hst;
	sp_info("reproduce: HST %s: the plan in %s", hst, dir);
	ret = sp_boots_repro_jobs(experiment, &at, a->plan, dir, a->n_jobs);
	return sp_repro_do_finish(a->o, a->plan, a->ref, dir,
				  "the 2020 fit's, k = 1 on exact time", started,
				  a->mode, a->host, ret);
}

static int write_builds(const struct sp_boots_auto *a, const char *stock_dir,
			const struct sp_repro_fit_row *rows, size_t n, size_t best)
{
	struct sp_case_result *stock = NULL, *b58 = NULL;
	struct sp_repro_builds_tally t;
	char path[PATH_MAX];
	size_t n_stock = 0, n_58 = 0;
	FILE *md = NULL;
	int ret;

	ret = sp_repro_runs_load(stock_dir, &stock, &n_stock);
	if (!ret)
		ret = sp_repro_runs_load(a->out, &b58, &n_58);
	if (!ret && snprintf(path, sizeof(path), "%s/builds.md", a->out) >=
		    (int)sizeof(path))
		ret = -ENAMETOOLONG;
	if (!ret && !(md = sp_repro_fopen_new(path)))
		ret = -errno;
	if (!ret)
		ret = sp_repro_builds_write(md, a->ref, a->plan, stock, n_stock,
					    b58, n_58, rows[best].label, rows,
					    n, best, &t);
	if (md && fclose(md) && !ret)
		ret = -EIO;
	if (!ret)
		sp_info("reproduce: both builds in %s: verdict as published, "
			"stock %zu and 5.8:%s %zu of %zu points; TVD targets "
			"stock %zu, 5.8 %zu of %zu (%zu lost)", path,
			t.agree_stock, rows[best].label, t.agree_58, t.points,
			t.met_stock, t.met_58, t.targets, t.lost);
	else
		sp_err("reproduce: %s: %s", path, strerror(-ret));
	free(stock);
	free(b58);
	return ret;
}

int sp_boots_repro_hst_auto(const char *experiment, const struct sp_boots_repro *r,
			    const struct sp_boots_auto *a)
{
	struct sp_repro_fit_row rows[SP_REPRO_FIT_MAX];
	char stock_dir[PATH_MAX], hst[40], err[SP_OUTDIR_ERRLEN];
	size_t n, best;
	int ret;

	if (sp_repro_fit_skews_parse(a->skews, rows, &n, err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return SP_EXIT_USAGE;
	}
	ret = fit_skew(experiment, r, a->ref, a->out, a->n_jobs, rows, n, &best);
	if (!ret && sp_outdir_sub(a->out, "stock", stock_dir, sizeof(stock_dir),
				  err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		ret = -EINVAL;
	}
	if (ret)
		return sp_exit_from_errno(ret);
	ret = one_build(experiment, r, "stock", a, stock_dir);
	snprintf(hst, sizeof(hst), "5.8:%s", rows[best].label);
	if (!ret)
		ret = one_build(experiment, r, hst, a, a->out);
	if (!ret && write_builds(a, stock_dir, rows, n, best))
		ret = SP_EXIT_RUNTIME;
	return ret;
}
