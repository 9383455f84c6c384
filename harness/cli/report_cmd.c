/* slowpath report DIR: renders a saved run (the JSON files in DIR/cases) again,
 * in another format, and draws its plots. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/opttab.h"
#include "dm/selector.h"
#include "harness/measure/case_result.h"
#include "harness/cli/commands.h"
#include "harness/report/render.h"
#include "harness/report/render_order.h"
#include "harness/report/render_plot.h"
#include "harness/report/render_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct report_opts {
	int format;
	const char *base, *other;
	int plot, help;
	const char *plot_dir;
};

static const struct sp_opt report_table[] = {
	{ .name = "format", .type = SP_OPT_ENUM, .def = "text",
	  .choices = sp_format_names, .offset = offsetof(struct report_opts, format),
	  .help = "text, md, csv or json" },
	{ .name = "base", .type = SP_OPT_STR, .def = sp_selectors[SP_SEL_ST].kernel_name,
	  .offset = offsetof(struct report_opts, base),
	  .help = "selector compared against (st, hst, ql, rr or full name)" },
	{ .name = "vs", .type = SP_OPT_STR, .def = sp_selectors[SP_SEL_HST].kernel_name,
	  .offset = offsetof(struct report_opts, other),
	  .help = "selector compared with --base" },
	{ .name = "plot", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct report_opts, plot),
	  .help = "also draw PNG and SVG plots with gnuplot" },
	{ .name = "plot-dir", .type = SP_OPT_STR,
	  .offset = offsetof(struct report_opts, plot_dir),
	  .help = "where plots go (default DIR/plots)" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct report_opts, help), .help = "this text" },
	SP_OPT_END,
};

static void usage(FILE *out)
{
	char help[2048];

	sp_opt_help_argv(report_table, help, sizeof(help));
	fprintf(out, "usage: slowpath report DIR [OPTIONS]\n"
		"Renders the cases saved under DIR/cases and compares each --base\n"
		"case with the --vs case at the same topology, rw, bs, iodepth, numjobs.\n\n%s",
		help);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct sp_case_result *cases;
	char err[SP_OUTDIR_ERRLEN], plot_dir[4096];
	const char *dir = NULL;
	size_t n, shown = 0;
	int next, first = 1, ret;

	memset(&o, 0, sizeof(o));
	sp_opt_set_defaults(report_table, &o);
	/* DIR may come before or after the options */
	if (argc > 1 && strncmp(argv[1], "--", 2)) {
		dir = argv[1];
		first = 2;
	}
	ret = sp_opt_parse_argv(report_table, &o, argc, argv, first, &next,
				err, sizeof(err));
	if (ret) {
		sp_err("report: %s", err);
		return SP_EXIT_USAGE;
	}
	if (o.help) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (!dir && next < argc)
		dir = argv[next++];
	if (!dir) {
		sp_err("report: which run directory? (slowpath report DIR, see --help)");
		return SP_EXIT_USAGE;
	}
	if (next < argc) {
		sp_err("report: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	/* plots go into DIR/plots: DIR must be ours alone, too */
	if (o.plot && !o.plot_dir &&
	    sp_outdir_check(dir, 0, err, sizeof(err))) {
		sp_err("report: %s", err);
		return SP_EXIT_USAGE;
	}
	ret = sp_case_load_dir(dir, &cases, &n);
	if (ret)
		return ret == -ENOMEM ? SP_EXIT_RUNTIME : SP_EXIT_USAGE;
	ret = sp_render_order_cases(cases, n, o.base, o.other);
	if (!ret)
		ret = sp_render_report(stdout, o.format, cases, n, o.base,
				       o.other);
	/* the timelines' tables after the text report (JSON has them in
	 * each case's "faults") */
	if (!ret && o.format == SP_FMT_TEXT)
		ret = sp_render_timelines(stdout, dir, cases, n, NULL, NULL,
					  &shown);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (!ret && o.plot) {
		snprintf(plot_dir, sizeof(plot_dir), "%s", o.plot_dir ? o.plot_dir : "");
		if (!o.plot_dir)
			snprintf(plot_dir, sizeof(plot_dir), "%s/plots", dir);
		ret = sp_render_timelines(NULL, dir, cases, n, plot_dir,
					  &sp_plot_exec_gnuplot, &shown);
		if (!ret)
			ret = sp_plot_run(plot_dir, cases, n, o.base, o.other,
					  &sp_plot_exec_gnuplot);
		if (!ret || (ret == -ENODATA && shown))
			sp_info("plots in %s", plot_dir);
		if (ret == -ENODATA) {
			sp_info("no %s/%s pair in %s: no comparison plots",
				o.base, o.other, dir);
			ret = 0;
		}
	}
	free(cases);
	/* a bad or refused result file (sp_result_file_read) is bad input */
	if (ret == -EINVAL || ret == -ELOOP || ret == -EMLINK || ret == -EFBIG)
		return SP_EXIT_USAGE;
	return ret ? sp_exit_from_errno(ret) : SP_EXIT_OK;
}
