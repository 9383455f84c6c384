/* slowpath report DIR: the options over harness/report/render_again.h,
 * which renders a saved run (the JSON files in DIR/cases) again, in
 * another format, and draws its plots. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/opttab.h"
#include "dm/selector.h"
#include "harness/cli/commands.h"
#include "harness/report/render.h"
#include "harness/report/render_again.h"

#include <stdio.h>
#include <string.h>

struct report_opts {
	struct sp_render_again r;
	int help;
};

static const struct sp_opt report_table[] = {
	{ .name = "format", .type = SP_OPT_ENUM, .def = "text",
	  .choices = sp_format_names, .offset = offsetof(struct report_opts, r.format),
	  .help = "text, md, csv or json" },
	{ .name = "base", .type = SP_OPT_STR, .def = sp_selectors[SP_SEL_ST].kernel_name,
	  .offset = offsetof(struct report_opts, r.base),
	  .help = "selector compared against (st, hst, ql, rr or full name)" },
	{ .name = "vs", .type = SP_OPT_STR, .def = sp_selectors[SP_SEL_HST].kernel_name,
	  .offset = offsetof(struct report_opts, r.other),
	  .help = "selector compared with --base" },
	{ .name = "plot", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct report_opts, r.plot),
	  .help = "also draw PNG and SVG plots with gnuplot" },
	{ .name = "plot-dir", .type = SP_OPT_STR,
	  .offset = offsetof(struct report_opts, r.plot_dir),
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
	char err[SP_OUTDIR_ERRLEN];
	const char *dir = NULL;
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
	return sp_render_run_again(dir, &o.r);
}
