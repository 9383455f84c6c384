/* slowpath run --jobs N (boots.h): the matrix's longest list (the
 * selectors, rw patterns, block sizes or iodepths) dealt round robin to
 * N exact-time (uml) guests side by side, one CPU each; each brings the
 * topology up, runs its share into OUT/jobs/I/run and takes it down;
 * then OUT/cases holds every guest's cases and one report covers them.
 * A guest that fails fails the whole; what it finished stays under
 * OUT/jobs/I. */
#include "harness/boots/boots.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/machine.h"
#include "common/proc.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "lab/lab_engine.h"
#include "lab/lab_life.h"
#include "lab/lab_vm.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct axis {
	const char *opt;	/* "--rw" */
	char items[SP_RUN_MAX_LIST][SP_RUN_ITEMLEN];
	size_t n;
};

struct job {
	char list[SP_RUN_MAX_LIST * SP_RUN_ITEMLEN];	/* its share of the axis */
	char dir[PATH_MAX], run[PATH_MAX + 8], log[PATH_MAX + 8];
	struct sp_proc proc;
};

/* The list with the most items; ties go to the first of rw, iodepth,
 * selectors, bs (each guest then switches selectors as one run does). */
static int pick_axis(const struct sp_run_cli *cli, struct axis *best)
{
	const struct { const char *name, *opt, *text; } lists[] = {
		{ "rw", "--rw", cli->rw },
		{ "iodepth", "--iodepth", cli->iodepth },
		{ "selectors", "--selectors", cli->selectors },
		{ "bs", "--bs", cli->bs },
	};
	char err[160];
	struct axis a;
	size_t i;

	best->n = 0;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		if (sp_run_split_list(lists[i].text, lists[i].name, a.items,
				      SP_RUN_MAX_LIST, &a.n, err, sizeof(err))) {
			sp_err("run: %s", err);
			return -EINVAL;
		}
		if (a.n > best->n) {
			*best = a;
			best->opt = lists[i].opt;
		}
	}
	return 0;
}

static int deal(const struct axis *a, struct job *jobs, size_t n)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		struct job *j = &jobs[i % n];
		size_t len = strlen(j->list);

		if (sp_snprintf(j->list + len, sizeof(j->list) - len, "%s%s",
				len ? "," : "", a->items[i]) < 0)
			return -ENAMETOOLONG;
	}
	return 0;
}

/* One guest: lab run of the guest's command line on uml, a process of
 * its own (the lab room's spawn), its output into j->log. */
static int spawn_job(const struct sp_run_cli *cli, const struct axis *a,
		     const char *exe, int argc, char **argv, struct job *j)
{
	const char *extra[] = { a->opt, j->list, NULL };
	struct sp_lab_guest_opts o = {
		.ask = { .engine = "uml" }, .timeout = -1, .keep = j->dir,
	};
	char **guest;
	int ng, ret;

	if (sp_parse_size_bytes(SP_LAB_MEM_DEFAULT, &o.mem))
		return -EINVAL;
	guest = sp_run_boot_guest_argv(cli, exe, argc, argv, a->opt, extra,
				       j->run, &ng);
	if (!guest)
		return -ENOMEM;
	ret = sp_lab_guest_spawn(&sp_lab_engines, &o, guest, j->log, &j->proc);
	free(guest);
	return ret;
}

/* Every guest's folder made before any starts; then started. */
static int start_jobs(const struct sp_run_cli *cli, const struct axis *a,
		      const char *out, const char *exe, int argc, char **argv,
		      struct job *jobs, size_t n)
{
	char dir[PATH_MAX + 8];
	size_t i;
	int ret = 0;

	(void)sp_snprintf(dir, sizeof(dir), "%s/jobs", out);
	if (mkdir(dir, 0755)) {
		sp_err("run: cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	for (i = 0; i < n && !ret; i++) {
		struct job *j = &jobs[i];

		if (sp_snprintf(j->dir, sizeof(j->dir), "%s/%zu", dir, i + 1) < 0 ||
		    sp_snprintf(j->run, sizeof(j->run), "%s/run", j->dir) < 0 ||
		    sp_snprintf(j->log, sizeof(j->log), "%s.log", j->dir) < 0)
			return -ENAMETOOLONG;
		if (mkdir(j->dir, 0755)) {
			sp_err("run: cannot create %s: %s", j->dir, strerror(errno));
			return -errno;
		}
		sp_info("run: guest %zu of %zu (uml): %s %s (log %s)", i + 1, n,
			a->opt, j->list, j->log);
		ret = spawn_job(cli, a, exe, argc, argv, j);
		if (ret)
			sp_err("run: guest %zu could not start: %s", i + 1,
			       strerror(-ret));
	}
	return ret;
}

/* Waits for every guest (kills them all when one could not start) and
 * merges what each finished. The worst exit code. */
static int finish_jobs(const char *out, struct job *jobs, size_t n, int failed,
		       int *cases)
{
	char sub[64];
	size_t i;
	int status, worst = failed ? SP_EXIT_RUNTIME : 0, merged;

	*cases = 0;
	for (i = 0; i < n; i++) {
		if (jobs[i].proc.pid <= 0)
			continue;
		if (failed) {
			sp_proc_kill_group(&jobs[i].proc, SP_PROC_KILL_GRACE_MS);
			continue;
		}
		status = 0;
		if (sp_proc_wait(&jobs[i].proc, &status))
			status = SP_EXIT_RUNTIME;
		if (status) {
			sp_err("run: guest %zu failed (exit %d; log %s)", i + 1,
			       status, jobs[i].log);
			worst = status > worst && status <= SP_EXIT_RUNTIME ? status
									: SP_EXIT_RUNTIME;
		}
		snprintf(sub, sizeof(sub), "jobs/%zu/run", i + 1);
		merged = sp_run_boot_merge(out, sub, "");
		if (merged < 0)
			worst = SP_EXIT_RUNTIME;
		else
			*cases += merged;
	}
	return worst;
}

/* What --jobs needs before any guest starts: the axis to deal, a uml
 * lab, the host, root. 0 or an exit code, said. */
static int jobs_refused(const struct sp_run_cli *cli, struct axis *axis)
{
	int rc;

	rc = sp_run_boot_refuse(cli, "--jobs");
	if (rc)
		return rc;
	if (!cli->topology) {
		sp_err("run: --jobs needs --topology NAME: each guest brings it up");
		return SP_EXIT_USAGE;
	}
	if (cli->kernels) {
		sp_err("run: --jobs and --kernels do not go together");
		return SP_EXIT_USAGE;
	}
	if (pick_axis(cli, axis))
		return SP_EXIT_USAGE;
	if (sp_machine_in_lab()) {
		sp_err("run: --jobs starts lab guests: run it on the host");
		return SP_EXIT_USAGE;
	}
	rc = sp_boots_uml_ready("run");
	if (rc)
		return rc;
	if (geteuid() != 0) {
		sp_err("run: --jobs boots the lab, which needs root");
		return SP_EXIT_ENV;
	}
	return 0;
}

int sp_boots_uml_ready(const char *who)
{
	enum sp_lab_engine engine;

	if (sp_lab_pick_engine(&sp_lab_engines, NULL, NULL, &engine) ||
	    engine != SP_LAB_ENGINE_UML) {
		sp_err("%s: --jobs runs exact-time (uml) guests, and none is "
		       "prepared here ('make lab' builds it)", who);
		return SP_EXIT_ENV;
	}
	return 0;
}

int sp_boots_default_jobs(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (cores < 1)
		return 1;
	return cores > SP_BOOTS_MAX_JOBS ? SP_BOOTS_MAX_JOBS : (int)cores;
}

int sp_boots_run_jobs(const struct sp_run_cli *cli, int argc, char **argv)
{
	char out[PATH_MAX], exe[PATH_MAX];
	struct job *jobs;
	struct axis axis;
	size_t n = (size_t)cli->jobs;
	int rc, cases;

	rc = jobs_refused(cli, &axis);
	if (rc)
		return rc;
	/* a guest dealt nothing would run the whole matrix */
	if (n > axis.n) {
		sp_info("run: %zu guests, one per item of %s", axis.n, axis.opt);
		n = axis.n;
	}
	rc = sp_run_boot_outdir(cli, "jobs", out, sizeof(out), exe, sizeof(exe));
	if (rc)
		return rc;
	jobs = calloc(n, sizeof(*jobs));
	if (!jobs)
		return SP_EXIT_RUNTIME;
	rc = deal(&axis, jobs, n);
	if (!rc)
		rc = start_jobs(cli, &axis, out, exe, argc, argv, jobs, n);
	rc = finish_jobs(out, jobs, n, rc != 0, &cases);
	free(jobs);
	if (!cases) {
		sp_err("run: no guest produced cases");
		return rc ? rc : SP_EXIT_RUNTIME;
	}
	if (sp_run_boot_report(out) && !rc)
		rc = SP_EXIT_RUNTIME;
	sp_info("run: %d cases from %zu guests in %s ('slowpath report %s')",
		cases, n, out, out);
	return rc;
}
