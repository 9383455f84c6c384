/* slowpath report DIR once parsed (render_again.h). */
#include "harness/report/render_again.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/outdir.h"
#include "harness/measure/case_result.h"
#include "harness/report/render_order.h"
#include "harness/report/render_plot.h"
#include "harness/report/render_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The plots of cases into a->plot_dir or DIR/plots. 0 or -errno. */
static int plots(const char *dir, const struct sp_render_again *a,
		 struct sp_case_result *cases, size_t n, size_t *shown)
{
	char plot_dir[4096];
	int ret;

	snprintf(plot_dir, sizeof(plot_dir), "%s", a->plot_dir ? a->plot_dir : "");
	if (!a->plot_dir)
		snprintf(plot_dir, sizeof(plot_dir), "%s/plots", dir);
	ret = sp_render_timelines(NULL, dir, cases, n, plot_dir,
				  &sp_plot_exec_gnuplot, shown);
	if (!ret)
		ret = sp_plot_run(plot_dir, cases, n, a->base, a->other,
				  &sp_plot_exec_gnuplot);
	if (!ret || (ret == -ENODATA && *shown))
		sp_info("plots in %s", plot_dir);
	if (ret == -ENODATA) {
		sp_info("no %s/%s pair in %s: no comparison plots",
			a->base, a->other, dir);
		ret = 0;
	}
	return ret;
}

int sp_render_run_again(const char *dir, const struct sp_render_again *a)
{
	struct sp_case_result *cases;
	char err[SP_OUTDIR_ERRLEN];
	size_t n, shown = 0;
	int ret;

	/* plots go into DIR/plots: DIR must be ours alone, too */
	if (a->plot && !a->plot_dir &&
	    sp_outdir_check(dir, 0, err, sizeof(err))) {
		sp_err("report: %s", err);
		return SP_EXIT_USAGE;
	}
	ret = sp_case_load_dir(dir, &cases, &n);
	if (ret)
		return ret == -ENOMEM ? SP_EXIT_RUNTIME : SP_EXIT_USAGE;
	ret = sp_render_order_cases(cases, n, a->base, a->other);
	if (!ret)
		ret = sp_render_report(stdout, a->format, cases, n, a->base,
				       a->other);
	/* the timelines' tables after the text report (JSON has them in
	 * each case's "faults") */
	if (!ret && a->format == SP_FMT_TEXT)
		ret = sp_render_timelines(stdout, dir, cases, n, NULL, NULL,
					  &shown);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (!ret && a->plot)
		ret = plots(dir, a, cases, n, &shown);
	free(cases);
	/* a bad or refused result file (sp_result_file_read) is bad input */
	if (ret == -EINVAL || ret == -ELOOP || ret == -EMLINK || ret == -EFBIG)
		return SP_EXIT_USAGE;
	return ret ? sp_exit_from_errno(ret) : SP_EXIT_OK;
}
