/* `slowpath reproduce hst-vs-st-2020|hst-cover-2020`: the options
 * (nvme-latency-2025 is repro_nvme_cmd.c's);
 * the orchestration (each published topology up, its cases under ST
 * and HST, down, every measured spread beside the published one) is
 * harness/repro/repro_run.h's, through the same bring-up and run the
 * user's commands use (repro_real.c). */
#include "common/exitcodes.h"
#include "common/machine.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/opttab.h"
#include "common/units.h"
#include "harness/boots/boots.h"
#include "harness/cli/commands.h"
#include "harness/cli/repro_cli.h"
#include "harness/repro/reference.h"
#include "harness/repro/repro_plan.h"
#include "harness/repro/repro_do.h"
#include "harness/repro/repro_fit.h"
#include "harness/repro/repro_run.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct sp_opt repro_table[] = {
	{ .name = "cases", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, cases),
	  .help = "TOPOLOGY[/RW[+RW]][/QD[+QD]],... of the published points" },
	{ .name = "full", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct repro_cli, full),
	  .help = "the published size: 500M of 4k I/O per run" },
	{ .name = "runtime", .type = SP_OPT_INT, .def = "10", .min = 1, .max = 3600,
	  .offset = offsetof(struct repro_cli, runtime_s),
	  .help = "seconds per run when not --full" },
	{ .name = "max-runtime", .type = SP_OPT_INT, .def = "600", .min = 1,
	  .max = 3600, .offset = offsetof(struct repro_cli, max_runtime_s),
	  .help = "scaled: the most seconds per run when a share's standard "
	  "error wants longer, planned or (over 0.5 pp by batch means) "
	  "run again" },
	{ .name = "ios", .type = SP_OPT_INT, .def = "20000", .min = 100,
	  .max = 10000000, .offset = offsetof(struct repro_cli, ios),
	  .help = "exact time (uml lab): I/Os per run; a run whose "
	  "shares' standard error is over 0.5 pp runs again with more, at "
	  "most 10 times as many" },
	{ .name = "warmup", .type = SP_OPT_INT, .def = "-1", .min = -1,
	  .max = 3600, .offset = offsetof(struct repro_cli, warmup_s),
	  .help = "seconds of each HST run's workload at iodepth >= 64 "
	  "before it, not measured (run --warmup: HST's averages start "
	  "cold); 0: none; -1: 20, 5 on exact time (thousands of I/Os "
	  "either way)" },
	{ .name = "scale", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, scale),
	  .help = "auto|K|none: every delay and the published base times k, "
	  "calibrated closed loop (default: auto in the lab, none natively)" },
	{ .name = "unit", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, unit),
	  .help = "delay unit; without it one is calibrated first" },
	{ .name = "out", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, out),
	  .help = "report, runs and plots: a new or empty folder, an earlier "
	  "reproduction is never written over (default build/reproduce/<UTC time>)" },
	{ .name = "data", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, data),
	  .help = "the published tables" },
	{ .name = "jobs", .type = SP_OPT_INT, .def = "-1", .min = -1, .max = 8,
	  .offset = offsetof(struct repro_cli, jobs),
	  .help = "on a host without the kernel stack: N exact-time (uml) "
	  "guests side by side, each its share of the points; 0: none "
	  "(default there, with no lab started: the number of cores, at "
	  "most 8)" },
	{ .name = "hst", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, hst),
	  .help = "HST's build: stock, 5.8[:SKEW] (HST as merged for 5.8, "
	  "SKEW added to sched_clock(), e.g. 200ms) or prebio; 5.8:auto "
	  "(with --jobs) fits SKEW to the published HST at iodepth 32/64 "
	  "and runs both builds; default stock (hst-bio-2022 runs both of "
	  "its builds itself)" },
	{ .name = "fit-skews", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, fit_skews),
	  .help = "--hst 5.8:auto: the skews tried (default "
	  "0,10ms,20ms,50ms,120ms,200ms)" },
	{ .name = "report-only", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct repro_cli, report_only),
	  .help = "write the report (report.md, plots) again from the runs "
	  "already in --out; nothing else there is changed" },
	{ .name = "builds", .type = SP_OPT_STR,
	  .offset = offsetof(struct repro_cli, builds),
	  .help = "with --report-only on the stock build's --out: DIR, the "
	  "5.8 build's reproduction; OUT/builds.md (a new file) puts every "
	  "point of both side by side, as --hst 5.8:auto does after its fit" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct repro_cli, help) },
	SP_OPT_END,
};

static void usage(FILE *out)
{
	char help[2048];

	sp_opt_help_argv(repro_table, help, sizeof(help));
	fprintf(out, "usage: slowpath reproduce hst-vs-st-2020|hst-cover-2020|"
		"hst-bio-2022|nvme-latency-2025 "
		"[options]\n%s", help);
}

static void repro_opts(const struct repro_cli *cli, int cover,
		       struct sp_repro_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->title = cover ? "HST cover letter (2020)" : "HST vs ST (2020)";
	o->cases = cli->cases;
	o->runtime_s = cli->runtime_s;
	o->max_runtime_s = cli->max_runtime_s;
	o->ios = cli->ios;
	o->warmup_s = cli->warmup_s;
	o->full = cli->full;
	o->report_only = cli->report_only;
	o->exact_time = sp_machine_exact_time();
}

/* The experiment (argv[1]) and the options. -1: go on; else an exit code. */
static int parse_args(int argc, char **argv, struct repro_cli *cli, int *cover)
{
	char err[SP_OUTDIR_ERRLEN];
	int next;

	sp_opt_set_defaults(repro_table, cli);
	*cover = argc >= 2 && !strcmp(argv[1], "hst-cover-2020");
	if (argc < 2 || (strcmp(argv[1], "hst-vs-st-2020") && !*cover)) {
		if (argc >= 2 && !strcmp(argv[1], "--help")) {
			usage(stdout);
			return SP_EXIT_OK;
		}
		sp_err("reproduce: name the experiment: hst-vs-st-2020, "
		       "hst-cover-2020, hst-bio-2022 or nvme-latency-2025");
		return SP_EXIT_USAGE;
	}
	if (sp_opt_parse_argv(repro_table, cli, argc, argv, 2, &next, err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return SP_EXIT_USAGE;
	}
	if (cli->help) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (next < argc) {
		sp_err("reproduce: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (*cover && cli->hst && !strcmp(cli->hst, "5.8:auto")) {
		sp_err("reproduce: --hst 5.8:auto fits to hst-vs-st-2020's "
		       "iodepth 32/64 points; hst-cover-2020 has none");
		return SP_EXIT_USAGE;
	}
	if (*cover && !cli->cases)	/* all the letter published */
		cli->cases = "skew4/randwrite/1+64";
	return -1;
}

static int hst_auto(const struct repro_cli *cli)
{
	return cli->hst && !strcmp(cli->hst, "5.8:auto");
}

/* --hst 5.8:auto: its fit runs in exact-time guests, the 2020 table's. */
static int check_auto(const struct repro_cli *cli)
{
	struct sp_repro_fit_row rows[SP_REPRO_FIT_MAX];
	char err[SP_OUTDIR_ERRLEN];
	size_t n;

	if (!cli->jobs || sp_machine_in_lab()) {
		sp_err("reproduce: --hst 5.8:auto runs its fit in exact-time "
		       "guests: give --jobs N on a host without the kernel "
		       "stack");
		return SP_EXIT_USAGE;
	}
	if (cli->data || cli->report_only) {
		sp_err("reproduce: --hst 5.8:auto fits to the 2020 table as "
		       "shipped: not with --data or --report-only");
		return SP_EXIT_USAGE;
	}
	if (sp_repro_fit_skews_parse(cli->fit_skews ? cli->fit_skews :
				     sp_repro_fit_default_skews, rows, &n, err,
				     sizeof(err))) {
		sp_err("reproduce: %s", err);
		return SP_EXIT_USAGE;
	}
	return -1;
}

/* The plan, --unit and --scale checked. -1: go on; else an exit code. */
static int check_args(const struct repro_cli *cli, struct sp_repro_plan *plan,
		      int64_t *unit_ns, int *scaled, uint64_t *fixed_k)
{
	char err[SP_OUTDIR_ERRLEN];
	struct sp_hst_choice hst;

	if (sp_repro_plan_parse(cli->cases, plan, err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return SP_EXIT_USAGE;
	}
	if (cli->builds && !cli->report_only) {
		sp_err("reproduce: --builds compares two reproductions already "
		       "run: give it with --report-only");
		return SP_EXIT_USAGE;
	}
	*unit_ns = 0;
	if (cli->unit && (sp_parse_duration_ns(cli->unit, unit_ns) || *unit_ns <= 0 ||
			  *unit_ns > SP_DELAY_MAX_NS)) {
		sp_err("reproduce: bad --unit '%s': want a time such as 500us", cli->unit);
		return SP_EXIT_USAGE;
	}
	if (sp_repro_parse_scale(cli->scale, scaled, fixed_k)) {
		sp_err("reproduce: bad --scale '%s': auto, none or a power of two",
		       cli->scale);
		return SP_EXIT_USAGE;
	}
	if (hst_auto(cli))
		return check_auto(cli);
	if (cli->fit_skews) {
		sp_err("reproduce: --fit-skews is for --hst 5.8:auto");
		return SP_EXIT_USAGE;
	}
	if (sp_hst_choice_parse(cli->hst, &hst, err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return SP_EXIT_USAGE;
	}
	return -1;
}

/* --ios counts the runs of an exact-time lab only. -1: go on; else an
 * exit code. */
static int check_ios(const struct repro_cli *cli, const struct sp_repro_opts *o)
{
	if (cli->ios == SP_REPRO_EXACT_IOS || o->exact_time || cli->jobs)
		return -1;
	sp_err("reproduce: --ios %lld: runs are counted in I/Os only on exact "
	       "time (the uml lab, or --jobs); here they are time-based: "
	       "--runtime", (long long)cli->ios);
	return SP_EXIT_USAGE;
}

/* --report-only --builds DIR: OUT/builds.md, stock (OUT) beside 5.8 (DIR). */
static int write_builds(const struct repro_cli *cli,
			const struct sp_repro_plan *plan,
			const struct sp_reference *ref, const char *out)
{
	struct sp_repro_builds_tally t;
	char err[SP_OUTDIR_ERRLEN];
	int ret;

	ret = sp_repro_builds_from(out, cli->builds, ref, plan, &t, err,
				   sizeof(err));
	if (ret) {
		sp_err("reproduce: --builds %s: %s", cli->builds, err);
		return ret == -EINVAL || ret == -ENOENT ? SP_EXIT_USAGE
							: SP_EXIT_RUNTIME;
	}
	sp_info("reproduce: both builds in %s/builds.md: verdict as "
		"published, stock %zu and 5.8 %zu of %zu points; TVD targets "
		"stock %zu, 5.8 %zu of %zu (%zu lost)", out, t.agree_stock,
		t.agree_58, t.points, t.met_stock, t.met_58, t.targets, t.lost);
	return SP_EXIT_OK;
}

/* reproduce --jobs N: the guests' runs, then the record and the report. */
static int measure_in_guests(const char *experiment, const struct repro_cli *cli,
			     const struct sp_repro_opts *o,
			     const struct sp_repro_plan *plan,
			     const struct sp_reference *ref, const char *out)
{
	char mode[160], host[160];
	const struct sp_boots_repro r = {
		.runtime_s = cli->runtime_s, .max_runtime_s = cli->max_runtime_s,
		.warmup_s = cli->warmup_s, .full = cli->full, .ios = cli->ios,
		.scale = cli->scale, .unit = cli->unit, .data = cli->data,
		.hst = cli->hst,
	};
	int64_t started = sp_now_ns();
	int ret;

	/* the guests measured: what they ran on, not this host */
	sp_repro_here(mode, sizeof(mode), host, sizeof(host));
	snprintf(mode, sizeof(mode), "lab (uml, time exact: the testbed's own "
		 "CPU costs nothing), %lld guests side by side",
		 (long long)cli->jobs);
	if (hst_auto(cli)) {
		const struct sp_boots_auto a = {
			.skews = cli->fit_skews ? cli->fit_skews :
				 sp_repro_fit_default_skews,
			.o = o, .plan = plan, .ref = ref, .out = out,
			.mode = mode, .host = host, .n_jobs = cli->jobs,
		};

		return sp_boots_repro_hst_auto(experiment, &r, &a);
	}
	ret = sp_boots_repro_jobs(experiment, &r, plan, out, cli->jobs);
	return sp_repro_do_finish(o, plan, ref, out,
				  "the 2020 fit's, k = 1 on exact time", started,
				  mode, host, ret);
}

int cmd_reproduce(int argc, char **argv)
{
	struct repro_cli cli = { 0 };
	struct sp_reference ref = { 0 }, fit_ref = { 0 };
	struct sp_repro_plan plan;
	struct sp_repro_opts o;
	char out[PATH_MAX];
	int64_t unit_ns;
	uint64_t fixed_k;
	int ret, cover, scaled;
	struct sp_repro_real_ctx ctx = { 0 };
	struct sp_repro_ops ops = sp_repro_real_ops;

	if (argc >= 2 && !strcmp(argv[1], "nvme-latency-2025"))
		return sp_cmd_reproduce_nvme(argc, argv);
	ops.ctx = &ctx;
	if (argc >= 2 && !strcmp(argv[1], "hst-bio-2022"))
		return sp_cmd_reproduce_bio(argc, argv);
	ret = parse_args(argc, argv, &cli, &cover);
	if (ret < 0 && cli.jobs < 0)	/* not given: sp_cli_boots_own's case */
		cli.jobs = cli.report_only ? 0 : sp_cli_default_jobs("reproduce");
	if (ret < 0)
		ret = check_args(&cli, &plan, &unit_ns, &scaled, &fixed_k);
	if (ret >= 0)
		return ret;
	ret = sp_repro_load_refs(cli.data, cover, &ref, &fit_ref);
	if (ret)
		return ret;
	repro_opts(&cli, cover, &o);
	ctx.hst = cli.hst;
	ret = check_ios(&cli, &o);
	if (ret < 0 && cli.jobs && !cli.report_only && !sp_machine_in_lab() &&
	    sp_boots_uml_ready("reproduce"))
		ret = SP_EXIT_ENV;
	if (ret < 0)
		ret = sp_repro_pick_out(cli.out, cli.report_only, out, sizeof(out));
	if (!ret && cli.report_only) {
		ret = sp_repro_do_report_again(cli.unit, &o, &plan, &ref, out);
		if (!ret && cli.builds)
			ret = write_builds(&cli, &plan, &ref, out);
	} else if (!ret && geteuid() != 0) {
		sp_err("reproduce: needs root (it brings topologies up)");
		ret = SP_EXIT_ENV;
	} else if (!ret && cli.jobs && !sp_machine_in_lab()) {
		ret = measure_in_guests(argv[1], &cli, &o, &plan, &ref, out);
	} else if (!ret) {
		ret = sp_repro_do_measure(&ops, &o, &plan, &ref, &fit_ref,
					  unit_ns, scaled, fixed_k, out);
	}
	if (cover)
		sp_ref_free(&ref);
	sp_ref_free(&fit_ref);
	return ret;
}
