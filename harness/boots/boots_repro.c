/* reproduce --jobs N on a host without the kernel stack: the plan's
 * (topology, rw) groups dealt to N exact-time (uml) guests side by side,
 * each one `reproduce --cases ITS_GROUPS --out OUT/jobs/I` in a lab
 * guest (lab/lab_life.h's spawn: a process of its own, no argv of ours
 * on the host), with its own
 * topology, as one CPU of its own; then their runs gathered under
 * OUT/runs for the one report. A guest that fails fails the whole:
 * what it did finish stays under OUT/jobs/I. */
#include "harness/boots/boots.h"

#include "common/log.h"
#include "common/outdir.h"
#include "common/proc.h"
#include "common/units.h"
#include "harness/repro/repro_run.h"
#include "lab/lab_engine.h"
#include "lab/lab_life.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct job {
	char spec[512];
	char dir[PATH_MAX];
	char log[PATH_MAX + 8];
	char rt[24], mrt[24], wu[24], ios[24];	/* the guest's --runtime ... */
	double weight;
	struct sp_proc proc;
};

/* What a group costs a guest, roughly: its runs, u10's ten paths cost
 * each I/O about twice the work of three or four. */
static double group_weight(size_t t, const char *qds)
{
	double runs = 1;
	const char *p;

	for (p = qds; *p; p++)
		runs += *p == ',';
	return runs * (!strcmp(sp_repro_topologies[t], "u10") ? 2.0 : 1.0);
}

/* Deals the groups heaviest first, each to the lightest job. */
static int deal(const struct sp_repro_plan *plan, struct job *jobs, size_t n)
{
	struct { size_t t; int rw; double w; char qds[64]; } g[SP_REPRO_N_TOPOS * SP_REF_N_RW];
	size_t ng = 0, i, j, best;
	char *c;

	for (i = 0; i < SP_REPRO_N_TOPOS; i++)
		for (j = 0; j < SP_REF_N_RW; j++) {
			if (!sp_repro_plan_iodepths(plan, i, (enum sp_ref_rw)j,
						    g[ng].qds, sizeof(g[ng].qds)))
				continue;
			g[ng].t = i;
			g[ng].rw = (int)j;
			g[ng].w = group_weight(i, g[ng].qds);
			ng++;
		}
	while (ng) {
		for (i = 1, best = 0; i < ng; i++)
			if (g[i].w > g[best].w)
				best = i;
		for (i = 1, j = 0; i < n; i++)
			if (jobs[i].weight < jobs[j].weight)
				j = i;
		for (c = g[best].qds; *c; c++)
			if (*c == ',')
				*c = '+';
		if (sp_repro_path_printf(jobs[j].spec + strlen(jobs[j].spec),
				      sizeof(jobs[j].spec) - strlen(jobs[j].spec),
				      "%s%s/%s/%s", jobs[j].spec[0] ? "," : "",
				      sp_repro_topologies[g[best].t],
				      sp_ref_rw_name((enum sp_ref_rw)g[best].rw),
				      g[best].qds))
			return -ENAMETOOLONG;
		jobs[j].weight += g[best].w;
		g[best] = g[--ng];
	}
	return 0;
}

/* The guest's command line: our binary (the guest sees it at the same
 * path) reproducing jb's groups into jb->dir. */
static int guest_argv(const char *experiment, const struct sp_boots_repro *r,
		      struct job *jb, const char *exe, const char **argv)
{
	int a = 0;

	snprintf(jb->rt, sizeof(jb->rt), "%" PRId64, r->runtime_s);
	snprintf(jb->mrt, sizeof(jb->mrt), "%" PRId64, r->max_runtime_s);
	/* -1 too: each guest picks its exact-time default */
	snprintf(jb->wu, sizeof(jb->wu), "%" PRId64, r->warmup_s);
	argv[a++] = exe; argv[a++] = "reproduce";
	argv[a++] = experiment;
	argv[a++] = "--cases"; argv[a++] = jb->spec;
	argv[a++] = "--out"; argv[a++] = jb->dir;
	argv[a++] = "--runtime"; argv[a++] = jb->rt;
	argv[a++] = "--max-runtime"; argv[a++] = jb->mrt;
	argv[a++] = "--warmup"; argv[a++] = jb->wu;
	if (r->ios) {
		snprintf(jb->ios, sizeof(jb->ios), "%" PRId64, r->ios);
		argv[a++] = "--ios"; argv[a++] = jb->ios;
	}
	if (r->full)
		argv[a++] = "--full";
	if (r->scale) {
		argv[a++] = "--scale"; argv[a++] = r->scale;
	}
	if (r->unit) {
		argv[a++] = "--unit"; argv[a++] = r->unit;
	}
	if (r->data) {
		argv[a++] = "--data"; argv[a++] = r->data;
	}
	if (r->hst) {
		argv[a++] = "--hst"; argv[a++] = r->hst;
	}
	argv[a] = NULL;
	return a;
}

/* One guest: lab run on uml with --keep jb->dir, its output in jb->log. */
static int spawn_job(const char *experiment, const struct sp_boots_repro *r,
		     struct job *jb)
{
	struct sp_lab_guest_opts o = {
		.ask = { .engine = "uml" }, .timeout = -1, .keep = jb->dir,
	};
	char exe[PATH_MAX];
	const char *argv[32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	if (sp_parse_size_bytes(SP_LAB_MEM_DEFAULT, &o.mem))
		return -EINVAL;
	guest_argv(experiment, r, jb, exe, argv);
	return sp_lab_guest_spawn(&sp_lab_engines, &o, (char **)argv, jb->log,
				  &jb->proc);
}

/* OUT/jobs/I/runs/X -> OUT/runs/X, and each guest's scale.txt appended
 * to OUT/scale.txt: the report reads them as one run's. */
static int gather(const char *out, const struct job *jb)
{
	char from[PATH_MAX + 300], to[PATH_MAX + 300], runs[PATH_MAX + 8];
	struct dirent *de;
	FILE *in, *sum;
	DIR *d;
	int ret = 0, c;

	if (sp_repro_path_printf(runs, sizeof(runs), "%s/runs", jb->dir))
		return -ENAMETOOLONG;
	d = opendir(runs);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && !ret) {
		if (de->d_name[0] == '.')
			continue;
		if (sp_repro_path_printf(from, sizeof(from), "%s/%s", runs, de->d_name) ||
		    sp_repro_path_printf(to, sizeof(to), "%s/runs/%s", out, de->d_name))
			ret = -ENAMETOOLONG;
		/* never over an earlier run of the same name */
		else if (!access(to, F_OK))
			ret = -EEXIST;
		else if (rename(from, to))
			ret = -errno;
	}
	closedir(d);
	if (ret || sp_repro_path_printf(from, sizeof(from), "%s/scale.txt", jb->dir) ||
	    sp_repro_path_printf(to, sizeof(to), "%s/scale.txt", out))
		return ret ? ret : -ENAMETOOLONG;
	in = fopen(from, "re");
	if (!in)
		return 0;
	sum = fopen(to, "ae");
	while (sum && (c = getc(in)) != EOF)
		putc(c, sum);
	if (!sum || fclose(sum))
		ret = -EIO;
	fclose(in);
	return ret;
}

int sp_boots_repro_jobs(const char *experiment, const struct sp_boots_repro *r,
			const struct sp_repro_plan *plan, const char *out,
			int64_t n_jobs)
{
	struct job *jobs = calloc((size_t)n_jobs, sizeof(*jobs));
	char err[SP_OUTDIR_ERRLEN] = "", runs[PATH_MAX + 8], dir[PATH_MAX + 8];
	size_t n = (size_t)n_jobs, i;
	int ret, status, failed = 0;

	if (!jobs)
		return -ENOMEM;
	ret = deal(plan, jobs, n);
	if (!ret && (sp_repro_path_printf(runs, sizeof(runs), "%s/runs", out) ||
		     sp_outdir_check(runs, SP_OUTDIR_CREATE, err, sizeof(err)) ||
		     sp_outdir_sub(out, "jobs", dir, sizeof(dir), err, sizeof(err))))
		ret = -EINVAL;
	for (i = 0; !ret && i < n; i++) {
		if (!jobs[i].spec[0])
			continue;
		if (sp_repro_path_printf(jobs[i].dir, sizeof(jobs[i].dir), "%s/jobs/%zu",
				      out, i + 1) ||
		    sp_repro_path_printf(jobs[i].log, sizeof(jobs[i].log), "%s.log",
				      jobs[i].dir)) {
			ret = -ENAMETOOLONG;
			break;
		}
		/* each its own folder: an earlier one is never written over */
		if (!access(jobs[i].dir, F_OK)) {
			sp_err("reproduce: %s exists; --out a new folder", jobs[i].dir);
			ret = -EEXIST;
			break;
		}
		sp_info("reproduce: guest %zu of %zu (uml): %s (log %s)", i + 1, n,
			jobs[i].spec, jobs[i].log);
		ret = spawn_job(experiment, r, &jobs[i]);
	}
	for (i = 0; i < n; i++) {
		if (!jobs[i].spec[0] || jobs[i].proc.pid <= 0)
			continue;
		if (ret) {
			sp_proc_kill_group(&jobs[i].proc, SP_PROC_KILL_GRACE_MS);
			continue;
		}
		if (sp_proc_wait(&jobs[i].proc, &status) || status) {
			sp_err("reproduce: guest %zu failed (exit %d; log %s)", i + 1,
			       status, jobs[i].log);
			failed = 1;
		} else if (gather(out, &jobs[i])) {
			sp_err("reproduce: the runs of guest %zu could not be gathered "
			       "under %s/runs (they stay in %s)", i + 1, out, jobs[i].dir);
			failed = 1;
		}
	}
	free(jobs);
	if (ret && ret != -EEXIST)
		sp_err("reproduce: --jobs: %s", err[0] && ret == -EINVAL ? err : strerror(-ret));
	return ret ? ret : failed ? -EIO : 0;
}
