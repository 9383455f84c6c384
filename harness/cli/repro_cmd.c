/* `slowpath reproduce hst-vs-st-2020`: brings each published topology
 * up, runs its cases under ST and HST through `slowpath run`, takes it
 * down, and sets every measured spread beside the published one. The
 * steps are the same commands a user would type, so a reproduction
 * exercises exactly what users run. */
#include "common/exitcodes.h"
#include "common/machine.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/strbuf.h"
#include "common/opttab.h"
#include "common/units.h"
#include "harness/measure/case_result.h"
#include "harness/measure/result_file.h"
#include "harness/cli/commands.h"
#include "harness/cli/repro_cli.h"
#include "harness/repro/cover.h"
#include "harness/repro/reference.h"
#include "harness/report/render_plot.h"
#include "harness/repro/repro_compare.h"
#include "harness/repro/repro_plan.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	{ .name = "jobs", .type = SP_OPT_INT, .def = "0", .min = 0, .max = 8,
	  .offset = offsetof(struct repro_cli, jobs),
	  .help = "on a host without the kernel stack: N exact-time (uml) "
	  "guests side by side, each its share of the points; 0: none" },
	{ .name = "report-only", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct repro_cli, report_only),
	  .help = "write the report (report.md, plots) again from the runs "
	  "already in --out; nothing else there is changed" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct repro_cli, help) },
	SP_OPT_END,
};

static void usage(FILE *out)
{
	char help[2048];

	sp_opt_help_argv(repro_table, help, sizeof(help));
	fprintf(out, "usage: slowpath reproduce hst-vs-st-2020|hst-cover-2020 "
		"[options]\n%s", help);
}

/* snprintf that reports truncation instead of silently cutting a path. */
int repro_path_printf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sp_vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (ret) {
		sp_err("reproduce: path too long: %s...", buf);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Mean per-I/O read service time of every path, ms, from saved cases. */
static int measured_base_ms(const struct sp_repro_ops *ops, const char *dir,
			    double *base_ms)
{
	struct sp_case_result *cases = NULL;
	uint64_t reads = 0, ticks = 0;
	size_t n = 0, i, p;
	int ret;

	ret = ops->load_cases(ops->ctx, dir, &cases, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		for (p = 0; p < cases[i].n_paths; p++) {
			reads += cases[i].path[p].v[SP_DS_READS];
			ticks += cases[i].path[p].v[SP_DS_RTICKS];
		}
	}
	free(cases);
	if (!reads)
		return -ENODATA;
	*base_ms = (double)ticks / (double)reads;
	return 0;
}

/* The unit from base1's read service time here, at iodepth 1. */
static int calibrate(const struct sp_repro_ops *ops, const struct sp_reference *ref,
		     const char *out, int64_t *unit_ns)
{
	char dir[PATH_MAX], text[32];
	const struct sp_repro_up up = { .topology = "topologies/base1.ini",
					.scale = 1 };
	const struct sp_repro_run run = { .selectors = "st", .rw = "randread",
					  .iodepths = "1", .runtime_s = 8,
					  .out = dir };
	struct sp_linfit fit;
	double base_ms, unit;
	int ret;

	ret = sp_ref_calibrate(ref, &fit);
	if (ret)
		return ret;
	if (repro_path_printf(dir, sizeof(dir), "%s/calibration", out))
		return -ENAMETOOLONG;
	if (ops->up(ops->ctx, &up))
		return -EIO;
	ret = ops->run(ops->ctx, &run) ? -EIO : measured_base_ms(ops, dir, &base_ms);
	ops->down(ops->ctx);
	if (ret)
		return ret;
	ret = sp_ref_unit_ns(&fit, base_ms * 1e6, &unit);
	if (ret)
		return ret;
	*unit_ns = (int64_t)(unit + 0.5);
	printf("calibration: published %.3f ms + %.3f ms x multiplier (r2 %.4f); "
	       "this setup's base %.3f ms -> unit %s\n", fit.base, fit.slope,
	       fit.r2, base_ms, sp_format_duration(*unit_ns / 1000 * 1000, text,
						     sizeof(text)));
	return 0;
}

/* unit_ns: in whole microseconds, as the report states it */
static int run_topology(const struct sp_repro_ops *ops,
			const struct sp_repro_plan *plan, size_t t,
			int64_t unit_ns, const struct repro_cli *cli,
			const char *out)
{
	const char *topo = sp_repro_topologies[t];
	const struct sp_repro_up up = { .topology = topo, .unit_ns = unit_ns,
					.scale = 1 };
	char qds[64], dir[PATH_MAX];
	int rw, failed = 0;

	if (ops->up(ops->ctx, &up))
		return -EIO;
	for (rw = 0; rw < SP_REF_N_RW && !failed; rw++) {
		if (!sp_repro_plan_iodepths(plan, t, rw, qds, sizeof(qds)))
			continue;
		if (repro_path_printf(dir, sizeof(dir), "%s/runs/%s-%s", out, topo,
				sp_ref_rw_name(rw))) {
			failed = 1;
			break;
		}
		failed = repro_run_cases(ops, cli, "st,hst", sp_ref_rw_name(rw),
					 qds, cli->runtime_s, 0, dir) != 0;
	}
	ops->down(ops->ctx);
	return failed ? -EIO : 0;
}

int64_t repro_warmup_s(const struct repro_cli *cli)
{
	if (cli->warmup_s >= 0)
		return cli->warmup_s;
	return sp_machine_exact_time() ? 5 : 20;
}

int repro_run_cases(const struct sp_repro_ops *ops, const struct repro_cli *cli,
		    const char *selectors, const char *rw, const char *qds,
		    int64_t runtime_s, int64_t ios, const char *dir)
{
	struct sp_repro_run run = {
		.selectors = selectors, .rw = rw, .iodepths = qds,
		/* the 10 Hz per-path counts give the shares' standard
		 * error by batch means: path choices are not independent
		 * draws */
		.timeline = 1, .warmup_s = repro_warmup_s(cli), .out = dir,
	};

	if (!cli->full && ios > 0)
		run.ios = ios;
	else if (!cli->full)
		run.runtime_s = runtime_s;
	return ops->run(ops->ctx, &run) ? -EIO : 0;
}

/* What --report-only cannot learn from the case files: the unit and
 * how long the runs took. */
static void here(char *mode, size_t mode_len, char *host, size_t host_len)
{
	char name[128] = "?";

	gethostname(name, sizeof(name) - 1);
	snprintf(mode, mode_len, "%s", !sp_machine_in_lab() ? "native" :
		 sp_machine_exact_time() ?
		 "lab (uml, time exact: the testbed's own CPU costs nothing)" :
		 !strcmp(sp_machine_engine(), "uml") ? "lab (uml, time real)" :
		 "lab (qemu TCG, Debian's kernel)");
	snprintf(host, host_len, "%s, %ld cores", name,
		 sysconf(_SC_NPROCESSORS_ONLN));
}


/* Whether OUT/runs holds anything: a run that measured nothing (its
 * first `up` failed) has nothing for reproduce.info to describe. */
static int runs_recorded(const char *out)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int any = 0;

	if (repro_path_printf(path, sizeof(path), "%s/runs", out))
		return 0;
	d = opendir(path);
	while (d && !any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return any;
}

/* OUT/reproduce.info, new: never over an earlier reproduction's. */
static int save_info(const char *out, const char *unit_text, int64_t seconds,
		     const char *mode, const char *host)
{
	char path[PATH_MAX];
	FILE *f;

	if (repro_path_printf(path, sizeof(path), "%s/reproduce.info", out))
		return -ENAMETOOLONG;
	f = repro_fopen_new(path);
	if (!f) {
		int err = errno;

		sp_err("reproduce: %s: %s", path, strerror(err));
		return -err;
	}
	fprintf(f, "unit %s\nseconds %" PRId64 "\nmode %s\nhost %s\n", unit_text,
		seconds, mode, host);
	if (fclose(f)) {
		sp_err("reproduce: %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* One "key value" line of reproduce.info into dst; 1 when it was key. */
static int info_field(const char *line, const char *key, char *dst, size_t len)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != ' ')
		return 0;
	snprintf(dst, len, "%s", line + n + 1);
	return 1;
}

/* --report-only: an exit code. */
static int rerender(const struct repro_cli *cli, const struct sp_repro_plan *plan,
		    const struct sp_reference *ref, const char *out)
{
	char path[PATH_MAX], unit_text[64] = "?", mode[160] = "", host[160] = "?";
	char seconds_text[32] = "0", *text = NULL, *line, *next;
	int ret;

	if (repro_path_printf(path, sizeof(path), "%s/reproduce.info", out))
		return SP_EXIT_USAGE;
	/* a result folder's file: never a symlink, FIFO or another's link */
	ret = sp_result_file_read(path, 64 * 1024, &text, NULL);
	if (ret && ret != -ENOENT) {
		sp_err("reproduce: %s: %s", path, sp_result_file_why(ret));
		return SP_EXIT_USAGE;
	}
	for (line = text; line && *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!info_field(line, "unit", unit_text, sizeof(unit_text)) &&
		    !info_field(line, "seconds", seconds_text, sizeof(seconds_text)) &&
		    !info_field(line, "mode", mode, sizeof(mode)))
			info_field(line, "host", host, sizeof(host));
	}
	free(text);
	if (cli->unit)
		snprintf(unit_text, sizeof(unit_text), "%s", cli->unit);
	/* no mode recorded: the report takes the cases' own */
	return repro_write_report(cli, plan, ref, out, unit_text,
				  atoll(seconds_text), mode[0] ? mode : NULL,
				  host) ?
	       SP_EXIT_RUNTIME : SP_EXIT_OK;
}

/* --scale: *scaled 0 for none (the unit calibrated from the setup's
 * base as before), else auto or a fixed k (*k, 0 for auto). Without
 * it the lab takes auto, a native host none. */
static int parse_scale(const char *text, int *scaled, uint64_t *k)
{
	int64_t v;

	*k = 0;
	*scaled = 1;
	if (!text) {
		/* exact time: k = 1, the published base injected and its
		 * residual checked once; the qemu lab: auto */
		*scaled = sp_machine_in_lab();
		if (sp_machine_exact_time())
			*k = 1;
		return 0;
	}
	if (!strcmp(text, "auto"))
		return 0;
	if (!strcmp(text, "none")) {
		*scaled = 0;
		return 0;
	}
	if (sp_parse_int64(text, 1, 1 << 20, &v) || (v & (v - 1)))
		return -EINVAL;
	*k = (uint64_t)v;
	return 0;
}

int cmd_reproduce(int argc, char **argv)
{
	static struct sp_ref_topologies topos;
	struct repro_cli cli = { 0 };
	struct sp_reference ref = { 0 }, fit_ref = { 0 };
	struct sp_repro_plan plan;
	char err[SP_OUTDIR_ERRLEN], out[PATH_MAX], unit_text[64], mode[160], host[160];
	int64_t unit_ns, started = sp_now_ns();
	uint64_t fixed_k;
	size_t t;
	int next, ret, cover, scaled;

	sp_opt_set_defaults(repro_table, &cli);
	cover = argc >= 2 && !strcmp(argv[1], "hst-cover-2020");
	if (argc < 2 || (strcmp(argv[1], "hst-vs-st-2020") && !cover)) {
		if (argc >= 2 && !strcmp(argv[1], "--help")) {
			usage(stdout);
			return SP_EXIT_OK;
		}
		sp_err("reproduce: name the experiment: hst-vs-st-2020 or "
		       "hst-cover-2020");
		return SP_EXIT_USAGE;
	}
	if (sp_opt_parse_argv(repro_table, &cli, argc, argv, 2, &next, err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return SP_EXIT_USAGE;
	}
	if (cli.help) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (next < argc) {
		sp_err("reproduce: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (cover) {
		repro_experiment_title = "HST cover letter (2020)";
		if (!cli.cases)		/* all the letter published */
			cli.cases = "skew4/randwrite/1+64";
	}
	if (sp_repro_plan_parse(cli.cases, &plan, err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return SP_EXIT_USAGE;
	}
	if (cli.unit && (sp_parse_duration_ns(cli.unit, &unit_ns) || unit_ns <= 0 ||
			 unit_ns > SP_DELAY_MAX_NS)) {
		sp_err("reproduce: bad --unit '%s': want a time such as 500us", cli.unit);
		return SP_EXIT_USAGE;
	}
	if (parse_scale(cli.scale, &scaled, &fixed_k)) {
		sp_err("reproduce: bad --scale '%s': auto, none or a power of two",
		       cli.scale);
		return SP_EXIT_USAGE;
	}
	/* the same files `up` brings the topologies up from */
	ret = sp_ref_topologies_load(NULL, &topos, err, sizeof(err));
	if (ret) {
		sp_err("reproduce: %s", err);
		return sp_exit_from_errno(ret);
	}
	/* the 2020 tables give the fit (base and unit) either way */
	ret = sp_ref_load(!cover && cli.data ? cli.data : SP_REF_DEFAULT_DATA,
			  &topos, &fit_ref);
	if (!ret && cover)
		ret = sp_cover_load(cli.data ? cli.data : SP_COVER_DEFAULT_DATA,
				    &topos, &ref);
	else if (!ret)
		ref = fit_ref;
	if (ret) {
		sp_ref_free(&fit_ref);
		return sp_exit_from_errno(ret);
	}
	if (cli.out) {
		snprintf(out, sizeof(out), "%s", cli.out);
	} else {
		time_t now = time(NULL);
		char stamp[32];

		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
		snprintf(out, sizeof(out), "build/reproduce/%s", stamp);
	}
	/* root writes reports, plots and fio jobs in here; a run only into
	 * a new or empty folder, so no earlier reproduction's record is
	 * written over (--report-only writes its report again, as it says) */
	ret = sp_outdir_check(out, cli.report_only ? 0 :
			      SP_OUTDIR_CREATE | SP_OUTDIR_EMPTY, err, sizeof(err));
	if (ret) {
		sp_err("reproduce: --out %s%s", err, ret == -EEXIST ?
		       "; --report-only writes the report of "
		       "one again" : "");
		ret = SP_EXIT_USAGE;
		goto done;
	}
	if (cli.report_only) {
		ret = rerender(&cli, &plan, &ref, out);
		goto done;
	}
	if (geteuid() != 0) {
		sp_err("reproduce: needs root (it brings topologies up)");
		ret = SP_EXIT_ENV;
		goto done;
	}
	if (cli.jobs && !sp_machine_in_lab()) {
		ret = repro_jobs(argv[1], &cli, &plan, out, cli.jobs);
		/* the guests measured: what they ran on, not this host */
		here(mode, sizeof(mode), host, sizeof(host));
		snprintf(unit_text, sizeof(unit_text), "the 2020 fit's, k = 1 on exact time");
		snprintf(mode, sizeof(mode), "lab (uml, time exact: the testbed's own "
			 "CPU costs nothing), %lld guests side by side",
			 (long long)cli.jobs);
		goto report;
	}
	if (scaled) {
		snprintf(unit_text, sizeof(unit_text), "the 2020 fit's, "
			 "scaled (k: auto)");
		if (fixed_k)
			snprintf(unit_text, sizeof(unit_text), "the 2020 fit's, "
				 "scaled (k = %llu)", (unsigned long long)fixed_k);
		if (fixed_k == 1 && sp_machine_exact_time())
			snprintf(unit_text, sizeof(unit_text), "the 2020 fit's, "
				 "k = 1 on exact time");
		printf("reproduce: %zu points x {ST, HST}, scaled, output in "
		       "%s\n", sp_repro_plan_points(&plan), out);
		ret = repro_scaled(&sp_repro_real_ops, &cli, &plan, &ref,
				   &fit_ref, fixed_k, out);
	} else {
		ret = cli.unit ? 0 : calibrate(&sp_repro_real_ops, &fit_ref,
					       out, &unit_ns);
		if (ret) {
			sp_err("reproduce: calibration failed");
			ret = SP_EXIT_RUNTIME;
			goto done;
		}
		/* whole microseconds: what `up --unit` reads back exactly */
		sp_format_duration(unit_ns / 1000 * 1000, unit_text, sizeof(unit_text));
		printf("reproduce: unit %s, %zu points x {ST, HST}, output in %s\n",
		       unit_text, sp_repro_plan_points(&plan), out);
		for (t = 0; t < SP_REPRO_N_TOPOS && !ret; t++) {
			if (sp_repro_plan_has_topology(&plan, t))
				ret = run_topology(&sp_repro_real_ops, &plan, t,
						   unit_ns / 1000 * 1000, &cli, out);
		}
	}
	here(mode, sizeof(mode), host, sizeof(host));
report:
	if (!runs_recorded(out)) {
		sp_err("reproduce: nothing was measured; %s has no runs, no "
		       "report", out);
		ret = SP_EXIT_RUNTIME;
		goto done;
	}
	ret = save_info(out, unit_text, (sp_now_ns() - started) / SP_NSEC_PER_SEC,
			mode, host) || ret;
	ret = repro_write_report(&cli, &plan, &ref, out, unit_text,
			   (sp_now_ns() - started) / SP_NSEC_PER_SEC,
			   mode, host) || ret;
	ret = ret ? SP_EXIT_RUNTIME : SP_EXIT_OK;
done:
	if (cover)
		sp_ref_free(&ref);
	sp_ref_free(&fit_ref);
	return ret;
}
