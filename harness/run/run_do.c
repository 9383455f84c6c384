/* slowpath run once parsed (run_do.h): the checks on the topology that
 * is up under the run's lock, the loop over the real effects, what is
 * saved beside the cases, and the terminal's progress and tables. */
#include "harness/run/run_do.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/machine.h"
#include "common/outdir.h"
#include "dm/selector.h"
#include "harness/bringup/bringup.h"
#include "harness/bringup/lock.h"
#include "harness/fault/fault_nvme.h"
#include "harness/report/render.h"
#include "harness/report/render_plot.h"
#include "harness/report/render_timeline.h"
#include "harness/run/run_exec.h"
#include "harness/run/run_fio.h"
#include "harness/run/run_loop.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ui {
	int tty;		/* progress line on stderr */
	int json;
	int line_shown;
};

static void clear_line(struct ui *u)
{
	if (u->line_shown) {
		fputs("\r\033[K", stderr);
		u->line_shown = 0;
	}
}

static void on_progress(void *ctx, const struct sp_run_progress *p)
{
	struct ui *u = ctx;
	char line[256];

	if (!u->tty)
		return;
	sp_run_progress_line(p, line, sizeof(line));
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	u->line_shown = 1;
}

static void on_case_done(void *ctx, const struct sp_case_result *c,
			 const struct sp_run_timing *t)
{
	struct ui *u = ctx;

	clear_line(u);
	sp_debug("case done in %.2f s, fio %.2f s, harness %.3f s",
		 (double)t->wall_ns / 1e9, (double)t->fio_wall_ns / 1e9,
		 (double)sp_run_overhead_ns(t) / 1e9);
	if (u->json)
		return;
	sp_render_case(stdout, SP_FMT_TEXT, c);
	fputc('\n', stdout);
	fflush(stdout);
}

static void on_signal(int sig)
{
	(void)sig;
	sp_run_interrupted = 1;
}


/* Runs are never mixed, and fio reads the job back from here as root:
 * an empty folder that only we could have written (common/outdir). */
static int prepare_out(const char *dir)
{
	char err[SP_OUTDIR_ERRLEN];
	int ret = sp_outdir_check(dir, SP_OUTDIR_CREATE | SP_OUTDIR_EMPTY, err,
				  sizeof(err));

	if (ret)
		sp_err("run: --out %s", err);
	return ret;
}

static void print_comparisons(const struct sp_run_summary *s)
{
	struct sp_case_pair *pairs = calloc(s->done ? s->done : 1,
					    sizeof(*pairs));
	size_t i, n;

	if (!pairs)
		return;
	n = sp_pair_cases(s->cases, s->done, sp_selector_kernel_name(SP_SEL_ST),
			  sp_selector_kernel_name(SP_SEL_HST), pairs);
	if (n)
		printf("==== %s vs %s ====\n\n", sp_selector_kernel_name(SP_SEL_ST),
		       sp_selector_kernel_name(SP_SEL_HST));
	for (i = 0; i < n; i++) {
		sp_render_compare(stdout, SP_FMT_TEXT, &pairs[i]);
		fputc('\n', stdout);
	}
	free(pairs);
}

/* On exact time an I/O on a path with nothing injected takes no time at
 * all, and time passes only while something waits: a run timed in
 * seconds would never end. One stopped by a count (--ios, --size)
 * does. */
static int exact_time_ends(const struct sp_run_plan *plan,
			   const struct sp_state *st)
{
	size_t i;

	if (!sp_machine_exact_time() || plan->stop != SP_RUN_STOP_RUNTIME)
		return 0;
	for (i = 0; i < st->npaths; i++) {
		const struct sp_state_path *p = &st->paths[i];

		if (p->read_ns + p->netem_ns + p->service_ns > 0 &&
		    p->write_ns + p->netem_ns + p->service_ns > 0)
			continue;
		sp_err("run: path %s injects no delay: on exact time its I/O takes "
		       "no time, so --runtime would never end; give it a delay, "
		       "or stop by --ios or --size", p->label);
		return SP_EXIT_USAGE;
	}
	return 0;
}

/* Each --selectors name as the topology's multipath knows it: `rr` is
 * dm's round-robin over iSCSI and NVMe's over nvme-tcp, where st, hst,
 * ql and ioa are dm-multipath's over the paths' own subsystems; numa
 * over iSCSI is refused. */
static int selectors_of_transport(struct sp_run_plan *plan,
				  const struct sp_state *st)
{
	int nvme = st->transport == SP_TRANSPORT_NVME_TCP;
	enum sp_sel_family fam = nvme ? SP_SEL_FAMILY_NVME : SP_SEL_FAMILY_DM;
	size_t i;

	for (i = 0; i < plan->n_sel; i++) {
		if (!sp_selector_for_family(plan->sel[i], fam, &plan->sel[i]))
			continue;
		if (nvme && st->paths[0].has_solo &&
		    sp_selector_family(plan->sel[i]) == SP_SEL_FAMILY_DM)
			continue;
		sp_err("run: selector %s does not run on %s's %s (%s)",
		       sp_selector_short_name(plan->sel[i]), st->topology,
		       nvme ? "native NVMe multipath" : "dm-multipath map",
		       nvme ? "its up made no dm-multipath map over the paths' "
			      "own subsystems: down and up again"
			    : "numa and qd are NVMe iopolicies");
		return SP_EXIT_USAGE;
	}
	return 0;
}

/* The checks that need the system but change nothing on it. */
static int find_target(struct sp_state *st, struct sp_run_target *t)
{
	static struct sp_run_target dm_alt;
	char err[SP_STATE_ERRLEN], name[128], uuid[160];
	unsigned int major, minor;
	int ret = sp_state_load(NULL, st, err, sizeof(err));

	if (ret == -ENOENT) {
		sp_err("run: no topology is up ('slowpath up TOPOLOGY' first)");
		return SP_EXIT_ENV;
	}
	if (ret) {
		sp_err("run: %s", ret == -EINVAL ? err : strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	/* nvme-tcp: native multipath's disk, checked as the journal's;
	 * the map over the paths' own subsystems where up made one */
	minor = 0;
	if (st->transport != SP_TRANSPORT_NVME_TCP || st->paths[0].has_solo) {
		ret = sp_run_dm_info(st->map_name, name, sizeof(name), uuid,
				     sizeof(uuid), &major, &minor);
		if (ret)
			return ret == -ENOENT ? SP_EXIT_ENV : SP_EXIT_RUNTIME;
		if (sp_run_map_is_ours(name, uuid, st->map_name, st->map_uuid,
				       err, sizeof(err))) {
			sp_err("run: %s", err);
			return SP_EXIT_USAGE;
		}
	}
	ret = sp_run_target_from_state(st, minor, t, err, sizeof(err));
	if (!ret && st->transport == SP_TRANSPORT_NVME_TCP &&
	    st->paths[0].has_solo) {
		ret = sp_run_target_solo(st, minor, t, &dm_alt, err,
					 sizeof(err));
		t->dm_alt = ret ? NULL : &dm_alt;
	}
	if (ret) {
		sp_err("run: %s", err);
		return ret == -EBUSY ? SP_EXIT_USAGE : SP_EXIT_ENV;
	}
	return 0;
}

static void default_out(const struct sp_run_target *t, char *buf,
			size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	snprintf(buf, len, "results/%04d%02d%02d-%02d%02d%02d-%s",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, t->topology);
}

static void report_timing(const struct sp_run_summary *s)
{
	int64_t sum = 0, max = 0, o;
	size_t i;

	for (i = 0; i < s->done; i++) {
		o = sp_run_overhead_ns(&s->timing[i]);
		sum += o;
		if (o > max)
			max = o;
	}
	if (s->done)
		sp_info("%zu case%s; harness time beyond fio per case: mean "
			"%.3f s, max %.3f s", s->done, s->done == 1 ? "" : "s",
			(double)sum / (double)s->done / 1e9, (double)max / 1e9);
}

/* In the lab a 500M case takes about an hour at the lab's unit (tens
 * of IOPS at iodepth 1): unless the user says how a case ends, it runs
 * SP_RUN_LAB_RUNTIME_S seconds there, as make demo's cases do. */
#define SP_RUN_LAB_RUNTIME_S 10
static void lab_default_runtime(int ends_given, struct sp_run_cli *cli)
{
	if (!getenv("SLOWPATH_IN_LAB") || ends_given)
		return;
	cli->runtime_s = SP_RUN_LAB_RUNTIME_S;
	sp_info("in the lab: %d s per case (--size, --ios or --runtime "
		"says otherwise)", SP_RUN_LAB_RUNTIME_S);
}

/* Every --fault names a path of the topology that is up. */
static int faults_on_paths(struct sp_run_plan *plan, struct sp_state *st)
{
	char err[SP_RUN_ERRLEN];
	size_t i;

	if (sp_run_faults_resolve(plan->faults, plan->n_faults, st, err,
				  sizeof(err))) {
		sp_err("run: %s", err);
		return SP_EXIT_USAGE;
	}
	/* a HOW the path's transport has not: refused before any case, as
	 * `slowpath fault` refuses it (exit 2) */
	for (i = 0; i < plan->n_faults; i++) {
		const struct sp_fault *f = &plan->faults[i];
		struct sp_state_path *p = sp_state_find_path(st, f->path);

		if (p && f->how != SP_FAULT_RESTORE &&
		    sp_fault_transport_check(st, p, f->how, err, sizeof(err))) {
			sp_err("run: --fault: %s", err);
			return SP_EXIT_ENV;
		}
	}
	return 0;
}

/* The checks on the topology that is up, under the run's lock (held on
 * success: *lock). An exit code. */
static int run_target(struct sp_run_plan *plan, const char *job_text,
		      struct sp_state *st, struct sp_run_target *t, int *lock)
{
	char err[SP_RUN_ERRLEN];
	int code;

	/* held for the whole run: no down or selector set under our fio */
	if (sp_lock_take(NULL, "run", SP_LOCK_WAIT_MS, lock, err,
			 sizeof(err))) {
		sp_err("run: %s", err);
		return SP_EXIT_RUNTIME;
	}
	code = find_target(st, t);
	if (!code)
		code = selectors_of_transport(plan, st);
	if (!code)
		code = exact_time_ends(plan, st);
	if (!code)
		code = faults_on_paths(plan, st);
	/* run --hst 5.8[:SKEW]|prebio: its module there and 5.8's skew set
	 * before any case (the env records what /sys shows at each) */
	if (!code && plan->hst_given &&
	    sp_bringup_hst_build_ready(&sp_sys_real, plan->hst_build,
				       &plan->hst_skew_ns, err, sizeof(err))) {
		sp_err("run: %s", err);
		code = SP_EXIT_ENV;
	}
	if (!code && job_text &&
	    sp_run_job_check(job_text, plan->job_file, t->device, err,
			     sizeof(err))) {
		sp_err("run: %s", err);
		code = SP_EXIT_USAGE;
	}
	if (code)
		sp_lock_release(NULL, *lock);
	return code;
}

/* What a run leaves beside its cases, and what it prints of them. */
static void run_results(const struct sp_run_plan *plan, const char *out_dir,
			const struct sp_run_target *t, struct sp_run_summary *sum)
{
	size_t shown;

	if (!sum->cases)
		return;
	sp_run_save_manifest(out_dir, plan, t, sum);
	if (sum->done) {
		if (sp_run_save_reports(out_dir, sum->cases, sum->done,
					&sp_plot_exec_gnuplot))
			sp_warn("reports or plots in %s are incomplete", out_dir);
		if (plan->json)
			sp_render_report(stdout, SP_FMT_JSON, sum->cases,
					 sum->done,
					 sp_selector_kernel_name(SP_SEL_ST),
					 sp_selector_kernel_name(SP_SEL_HST));
		else
			print_comparisons(sum);
		if (!plan->json)
			sp_render_timelines(stdout, out_dir, sum->cases,
					    sum->done, NULL, NULL, &shown);
	}
	report_timing(sum);
}

/* The cases of plan into out_dir, under the lock taken (released). */
static int run_execute(const struct sp_run_plan *plan, const char *job_text,
		       struct sp_state *st, const struct sp_run_target *t,
		       int lock, const char *out_dir)
{
	struct sp_run_summary sum;
	struct sp_run_exec x;
	struct sp_run_ops ops;
	struct ui u = { 0 };
	struct sp_run_hooks hooks = { on_progress, on_case_done, &u, 250 };
	size_t errors;
	int ret;

	/* forwarded from the lab's host, whose stderr is a terminal */
	u.tty = isatty(STDERR_FILENO) || getenv("SLOWPATH_LAB_TTY");
	u.json = plan->json;
	sp_info("%zu case%s on %s (%s, %s) into %s", sp_run_plan_count(plan),
		sp_run_plan_count(plan) == 1 ? "" : "s", t->device, t->topology,
		t->dm_name, out_dir);
	sp_catch_stop_signals(on_signal);	/* poll must wake */
	sp_run_exec_init(&x, st, sp_state_dir(), &ops);
	ret = sp_run_matrix(plan, t, job_text, out_dir, &ops, &hooks, &sum);
	sp_run_exec_fini(&x);
	sp_lock_release(NULL, lock);
	clear_line(&u);
	run_results(plan, out_dir, t, &sum);
	if (ret == -EINTR)
		sp_err("run: interrupted; %zu of %zu cases kept in %s",
		       sum.done, sum.planned, out_dir);
	else if (ret)
		sp_err("run: stopped after %zu of %zu cases (%s); they are in "
		       "%s", sum.done, sum.planned, strerror(-ret), out_dir);
	else
		sp_info("results in %s ('slowpath report %s')", out_dir,
			out_dir);
	errors = sum.with_errors;
	sp_run_summary_free(&sum);
	if (ret == -EINTR)
		return SP_EXIT_RUNTIME;
	if (!ret && errors) {
		/* the data path failed the application: a finding, and what
		 * a CI run through faults must not pass on */
		sp_err("run: fio saw errors in %zu case%s (see the timeline "
		       "tables above)", errors, errors == 1 ? "" : "s");
		return SP_EXIT_RUNTIME;
	}
	return ret ? sp_exit_from_errno(ret) : SP_EXIT_OK;
}

/* The job file's text into *job_text (NULL: none). An exit code. */
static int read_job(const struct sp_run_plan *plan, char **job_text)
{
	int ret;

	*job_text = NULL;
	if (!plan->job_file)
		return 0;
	ret = sp_file_read(plan->job_file, SP_FILE_TEXT_MAX, job_text, NULL);
	if (ret) {
		sp_err("run: --job %s: %s", plan->job_file, strerror(-ret));
		return SP_EXIT_USAGE;
	}
	return 0;
}

int sp_do_run(struct sp_run_cli *cli, int ends_given, int check_only)
{
	static struct sp_state st;
	static struct sp_run_target t;
	static struct sp_run_plan plan;
	char err[SP_RUN_ERRLEN], out_dir[4096];
	char *job_text = NULL;
	int code, lock;

	lab_default_runtime(ends_given, cli);
	if (sp_run_plan_from_cli(cli, &plan, err, sizeof(err))) {
		sp_err("run: %s", err);
		return SP_EXIT_USAGE;
	}
	plan.clock_gettime = sp_machine_exact_time();
	code = read_job(&plan, &job_text);
	if (code || check_only) {
		free(job_text);
		return code;
	}
	if (geteuid() != 0) {
		sp_err("run: needs root (device-mapper reloads, direct I/O on "
		       "the map)");
		free(job_text);
		return SP_EXIT_ENV;
	}
	code = run_target(&plan, job_text, &st, &t, &lock);
	if (code) {
		free(job_text);
		return code;
	}
	if (plan.out_dir)
		snprintf(out_dir, sizeof(out_dir), "%s", plan.out_dir);
	else
		default_out(&t, out_dir, sizeof(out_dir));
	if (prepare_out(out_dir)) {
		sp_lock_release(NULL, lock);
		free(job_text);
		return SP_EXIT_USAGE;
	}
	code = run_execute(&plan, job_text, &st, &t, lock, out_dir);
	free(job_text);
	return code;
}
