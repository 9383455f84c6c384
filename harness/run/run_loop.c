/* The case loop of `slowpath run` over struct sp_run_ops. */
#include "harness/run/run_loop.h"
#include "harness/run/run_lat.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "dm/selector.h"
#include "harness/measure/shares.h"
#include "harness/run/run_fio.h"
#include "harness/run/run_watch.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile sig_atomic_t sp_run_interrupted;

int sp_run_faults_resolve(struct sp_fault *f, size_t n, struct sp_state *st,
			  char *err, size_t errlen)
{
	const struct sp_state_path *p;
	size_t i;

	for (i = 0; i < n; i++) {
		p = sp_state_find_path(st, f[i].path);
		if (!p)
			return sp_errf(err, errlen, -ENOENT, "--fault %zu: "
				       "topology %s has no path '%s' (its "
				       "paths are %s..%s)", i + 1,
				       st->topology, f[i].path,
				       st->npaths ? st->paths[0].label : "",
				       st->npaths ?
				       st->paths[st->npaths - 1].label : "");
		snprintf(f[i].path, sizeof(f[i].path), "%s", p->label);
	}
	return sp_run_faults_check(f, n, err, errlen);
}

void sp_run_summary_free(struct sp_run_summary *sum)
{
	free(sum->cases);
	free(sum->timing);
	sum->cases = NULL;
	sum->timing = NULL;
}

static void case_init(struct sp_case_result *c, const struct sp_run_plan *plan,
		      const struct sp_run_target *t,
		      const struct sp_run_case *rc)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	snprintf(c->topology, sizeof(c->topology), "%s", t->topology);
	snprintf(c->selector, sizeof(c->selector), "%s",
		 sp_selector_kernel_name(rc->sel));
	snprintf(c->family, sizeof(c->family), "%s",
		 sp_selector_family(rc->sel) == SP_SEL_FAMILY_NVME ? "nvme"
								    : "dm");
	snprintf(c->rw, sizeof(c->rw), "%s", rc->rw);
	c->bs = rc->bs;
	c->iodepth = rc->iodepth;
	c->numjobs = plan->numjobs;
	c->n_paths = t->n_paths;
	for (i = 0; i < t->n_paths; i++) {
		snprintf(c->path[i].name, sizeof(c->path[i].name), "%s",
			 t->path[i]);
		snprintf(c->label[i], sizeof(c->label[i]), "%s", t->label[i]);
		c->delay_ns[i] = t->delay_ns[i];
		c->slow[i] = t->slow[i];
	}
	c->has_map = 1;
	snprintf(c->map.name, sizeof(c->map.name), "%s", t->dm_name);
}

/* The HST build the run named (run_case put it in hst_build) into the
 * label the ran-under lines show, with 5.8's skew as /sys showed it. */
static void hst_env(struct sp_case_env *e)
{
	char label[sizeof(e->hst)];

	int build = sp_hst_build_by_name(e->hst_build);

	if (build != SP_HST_BUILD_5_8)
		e->has_hst_skew = 0;
	if (build <= SP_HST_BUILD_STOCK)
		return;
	if (!strcmp(e->hst, "not loaded"))
		snprintf(e->hst, sizeof(e->hst), "stock");
	if (!sp_hst_build_label(e->hst, build, e->has_hst_skew,
				e->hst_skew_ns, label, sizeof(label)))
		snprintf(e->hst, sizeof(e->hst), "%s", label);
}

/* What the case ran under; the CPU's busy fraction from two /proc/stat
 * samples taken around fio (NULL: not sampled). */
static void case_env(struct sp_case_result *c, const struct sp_run_target *t,
		     const struct sp_run_ops *ops, const char *cpu_before,
		     const char *cpu_after)
{
	struct sp_cpustat a, b;
	size_t i;

	c->env.recorded = 1;
	c->env.scale = t->scale ? t->scale : 1;
	c->env.cpu_util = -1;
	if (cpu_before && cpu_after && !sp_cpustat_parse(cpu_before, &a) &&
	    !sp_cpustat_parse(cpu_after, &b))
		c->env.cpu_util = sp_cpustat_busy(&a, &b);
	for (i = 0; i < t->n_paths && i < SP_ENV_MAX_PATHS; i++) {
		c->env.has_resid[i] = t->has_resid[i];
		c->env.resid[i] = t->resid[i];
	}
	if (ops->env_info)
		ops->env_info(ops->ctx, &c->env);
	hst_env(&c->env);
}

/* fio's stderr, line by line, as fio said it. */
static void log_fio_stderr(const char *text, int status)
{
	const char *p = text, *nl;
	int any = 0;

	while (p && *p) {
		nl = strchr(p, '\n');
		if (nl != p) {
			sp_err("fio: %.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
			any = 1;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!any)
		sp_err("fio exited with status %d and said nothing on stderr",
		       status);
}

struct case_run {
	const struct sp_run_plan *plan;
	const struct sp_run_target *t;
	const struct sp_run_ops *ops;
	const struct sp_run_hooks *hooks;
	const char *out_dir, *job_text;
	struct sp_run_progress prog;
	char label[96];
	int64_t run_start;
};

static void show(struct case_run *r, int64_t case_start)
{
	if (!r->hooks || !r->hooks->progress)
		return;
	r->prog.elapsed_ns = r->ops->now_ns(r->ops->ctx) - r->run_start;
	r->prog.case_elapsed_ns = r->ops->now_ns(r->ops->ctx) - case_start;
	r->prog.label = r->label;
	r->hooks->progress(r->hooks->ctx, &r->prog);
}

/* Waits for fio while the watch samples and breaks paths, refreshing
 * the progress line. 1 ended, 0 interrupted (fio stopped), -errno (a
 * fault could not be applied: fio stopped). */
static int wait_fio(struct case_run *r, struct sp_run_watch *w,
		    int64_t case_start, int *status, char **out,
		    char **errout)
{
	unsigned int poll = r->hooks && r->hooks->poll_ms ? r->hooks->poll_ms
							  : 500;
	int64_t shown = r->ops->now_ns(r->ops->ctx), now;
	char err[SP_RUN_ERRLEN];
	unsigned int ms;
	int ret;

	for (;;) {
		if (sp_run_interrupted) {
			r->ops->fio_stop(r->ops->ctx);
			return 0;
		}
		ret = sp_run_watch_step(w, poll, &ms, err, sizeof(err));
		if (ret) {
			sp_err("case %s: %s", r->label, err);
			r->ops->fio_stop(r->ops->ctx);
			return ret;
		}
		ret = r->ops->fio_wait(r->ops->ctx, ms, status, out, errout);
		if (ret)
			return ret;
		now = r->ops->now_ns(r->ops->ctx);
		if (now - shown >= (int64_t)poll * SP_NSEC_PER_MSEC) {
			show(r, case_start);
			shown = now;
		}
	}
}

/* fio's error counts into the case: with continue_on_error it went on
 * after each, and verify failures are only in what it said on stderr. */
static void case_errors(struct sp_case_result *c, const char *errout)
{
	c->faults.counted = c->fio.has_total_err;
	c->faults.fio_errors = c->fio.total_err;
	c->faults.first_error = c->fio.first_error ? c->fio.first_error
						   : c->fio.error;
	c->faults.verify_errors = sp_fio_verify_errors(errout ? errout : "");
	/* an error fio did not count: it stopped at it */
	if (c->fio.error && !c->faults.fio_errors)
		c->faults.fio_errors = 1;
	if (c->faults.verify_errors > c->faults.fio_errors)
		c->faults.fio_errors = c->faults.verify_errors;
}

/* plan->warmup_s of the case's workload on the selector just set, not
 * measured: HST starts every path's average at 1 ns and moves it 5 %
 * toward each sample, so in a short (scaled) run its slow paths look
 * fast until each has served ~90 I/Os. Deep, so the slowest path gets
 * them too. Only for a selector that keeps a history: the others would
 * meet the measured run exactly as they do without it. 1 interrupted,
 * 0 done, -errno. */
static int warm_up(struct case_run *r, const struct sp_run_case *rc,
		   int64_t case_start)
{
	struct sp_run_plan wp = *r->plan;
	struct sp_run_case wc = *rc;
	struct sp_case_faults none = { 0 };
	struct sp_run_argv av;
	struct sp_run_watch w;
	char *out = NULL, *errout = NULL;
	int status = 0, ret;

	wp.stop = SP_RUN_STOP_RUNTIME;
	wp.runtime_s = wp.warmup_s;
	wp.verify = 0;
	wp.timeline = 0;
	wp.n_faults = 0;
	if (wc.iodepth < SP_RUN_WARMUP_IODEPTH)
		wc.iodepth = SP_RUN_WARMUP_IODEPTH;
	ret = sp_run_fio_argv(&wp, &wc, r->t->device, NULL, &av);
	if (ret)
		return ret;
	ret = sp_run_watch_init(&w, &wp, r->t, r->ops, &none);
	if (ret)
		return ret;
	ret = r->ops->fio_start(r->ops->ctx, av.argv);
	if (ret)
		sp_err("cannot start fio: %s", strerror(-ret));
	else
		ret = wait_fio(r, &w, case_start, &status, &out, &errout);
	sp_run_watch_free(&w);
	if (ret == 1 && status) {
		log_fio_stderr(errout, status);
		ret = -EIO;
	} else if (ret >= 0) {
		ret = !ret;	/* wait_fio: 1 ended, 0 interrupted */
	}
	free(out);
	free(errout);
	return ret;
}

/* One case; 1 when it was interrupted (nothing saved), 0 done. */
/* The selector a case reloads: the run's HST parameters are those `up`
 * was given, its HST build run --hst's, else up's (which the case's
 * env records). */
static void case_selector(const struct case_run *r,
			  const struct sp_run_case *rc,
			  struct sp_dm_selector *sel, struct sp_case_env *env)
{
	sp_dm_selector_init(sel, rc->sel);
	if (rc->sel == r->t->initial.kind)
		*sel = r->t->initial;
	sel->hst_build = r->plan->hst_given ?
		(enum sp_hst_build)r->plan->hst_build : r->t->initial.hst_build;
	snprintf(env->hst_build, sizeof(env->hst_build), "%s",
		 sp_hst_build_name(sel->hst_build) ? sp_hst_build_name(sel->hst_build)
						   : "stock");
}

static int run_case(struct case_run *r, const struct sp_run_case *rc,
		    struct sp_case_result *c, struct sp_run_timing *tm)
{
	const struct sp_run_ops *ops = r->ops;
	const struct sp_selector_info *info;
	struct sp_dm_selector sel;
	struct sp_run_argv av;
	char *before = NULL, *after = NULL, *out = NULL, *errout = NULL;
	char *cpu_before = NULL, *cpu_after = NULL;
	char *job = NULL, job_path[4096], stem[256], err[SP_RUN_ERRLEN];
	int64_t t0 = ops->now_ns(ops->ctx), t1;
	int counts = sp_run_counts_errors(r->plan);
	struct sp_run_watch w;
	struct sp_run_lat lat = { 0 };
	int ret, rret, status = 0, filled = 0, ended;

	memset(tm, 0, sizeof(*tm));
	case_init(c, r->plan, r->t, rc);
	c->faults.recorded = r->plan->timeline || counts;
	c->faults.verify = r->plan->verify;
	ret = sp_run_watch_init(&w, r->plan, r->t, ops, &c->faults);
	if (ret)
		return ret;
	sp_run_case_label(rc, r->plan->numjobs, r->label, sizeof(r->label));
	show(r, t0);
	case_selector(r, rc, &sel, &c->env);
	ret = ops->selector_set(ops->ctx, &sel);
	if (ret) {
		sp_err("case %s: setting %s failed", r->label,
		       sp_selector_kernel_name(rc->sel));
		return ret;
	}
	tm->selector_ns = ops->now_ns(ops->ctx) - t0;
	info = sp_selector_info(rc->sel);
	if (r->plan->warmup_s && info && info->keeps_history) {
		ret = warm_up(r, rc, t0);
		if (ret) {
			sp_run_watch_free(&w);
			return ret;
		}
		c->env.warmup_s = r->plan->warmup_s;
	}
	if (r->job_text) {
		ret = sp_run_job_compose(r->job_text, r->plan->job_file,
					 r->plan, rc, r->t->device, &job, err,
					 sizeof(err));
		if (ret) {
			sp_err("%s", err);
			return ret;
		}
		sp_case_stem(c, stem, sizeof(stem));
		snprintf(job_path, sizeof(job_path), "%s/raw/%s.job",
			 r->out_dir, stem);
		ret = sp_case_save_raw(r->out_dir, c, "job", job);
		free(job);
		if (ret)
			return ret;
	}
	ret = sp_run_fio_argv(r->plan, rc, r->t->device,
			      r->job_text ? job_path : NULL, &av);
	if (!ret) {
		sp_run_lat_begin(&lat, ops, r->t->n_paths);
		ret = ops->diskstats(ops->ctx, &before);
	}
	if (ret)
		goto out;
	if (sp_run_interrupted) {
		ret = 1;
		goto out;
	}
	if (ops->cpustat && ops->cpustat(ops->ctx, &cpu_before))
		cpu_before = NULL;
	t1 = ops->now_ns(ops->ctx);
	ret = ops->fio_start(ops->ctx, av.argv);
	if (ret) {
		sp_err("cannot start fio: %s", strerror(-ret));
		goto out;
	}
	sp_run_watch_begin(&w);
	ret = wait_fio(r, &w, t0, &status, &out, &errout);
	tm->fio_wall_ns = ops->now_ns(ops->ctx) - t1;
	ended = ret > 0;
	if (ended) {
		/* fio's own: before a restore relogs a path in */
		sp_run_watch_end(&w);
		if (ops->cpustat && ops->cpustat(ops->ctx, &cpu_after))
			cpu_after = NULL;
		ret = ops->diskstats(ops->ctx, &after);
	}
	/* nothing stays broken into the next case, whatever happened */
	rret = sp_run_watch_restore_all(&w);
	if (!ended) {
		ret = ret ? ret : 1;
		goto out;
	}
	if (!ret)
		ret = rret;
	if (ret)
		goto out;
	/* counting errors, fio may end non-zero with its JSON all there */
	if (status && counts && out)
		filled = !sp_case_fill(c, before, after, out);
	if (status && !filled) {
		log_fio_stderr(errout, status);
		if (errout && *errout)
			sp_case_save_raw(r->out_dir, c, "fio.stderr", errout);
		ret = -EIO;
		goto out;
	}
	ret = filled ? 0 : sp_case_fill(c, before, after, out ? out : "");
	case_env(c, r->t, ops, cpu_before, cpu_after);
	if (!ret)
		sp_run_lat_end(&lat, ops, c);
	if (!ret && counts)
		case_errors(c, errout);
	if (!ret && c->fio.error && !counts) {
		sp_err("case %s: fio reported error %d (%s)", r->label,
		       c->fio.error, strerror(c->fio.error));
		ret = -EIO;
	}
	if (ret) {
		sp_case_save_raw(r->out_dir, c, "fio.json", out ? out : "");
		goto out;
	}
	sp_case_stem(c, stem, sizeof(stem));
	ret = sp_run_watch_save(&w, r->out_dir, stem);
	if (!ret)
		ret = sp_case_save(r->out_dir, c);
	if (!ret)
		ret = sp_case_save_raw(r->out_dir, c, "fio.json", out);
	if (!ret)
		ret = sp_case_save_raw(r->out_dir, c, "diskstats.before", before);
	if (!ret)
		ret = sp_case_save_raw(r->out_dir, c, "diskstats.after", after);
	if (!ret && errout && *errout)
		ret = sp_case_save_raw(r->out_dir, c, "fio.stderr", errout);
	{
		uint64_t rt = c->fio.dir[SP_FIO_READ].runtime_ms;

		if (c->fio.dir[SP_FIO_WRITE].runtime_ms > rt)
			rt = c->fio.dir[SP_FIO_WRITE].runtime_ms;
		tm->fio_runtime_ns = (int64_t)rt * SP_NSEC_PER_MSEC;
	}
	tm->wall_ns = ops->now_ns(ops->ctx) - t0;
out:
	sp_run_watch_free(&w);
	sp_run_lat_free(&lat);
	free(cpu_before);
	free(cpu_after);
	free(before);
	free(after);
	free(out);
	free(errout);
	return ret;
}

int sp_run_matrix(const struct sp_run_plan *plan,
		  const struct sp_run_target *t, const char *job_text,
		  const char *out_dir, const struct sp_run_ops *ops,
		  const struct sp_run_hooks *hooks,
		  struct sp_run_summary *sum)
{
	struct case_run r = {
		.plan = plan, .t = t, .ops = ops, .hooks = hooks,
		.out_dir = out_dir, .job_text = job_text,
	};
	struct sp_run_case rc;
	size_t i;
	int ret = 0, rret;

	memset(sum, 0, sizeof(*sum));
	sum->planned = sp_run_plan_count(plan);
	sum->cases = calloc(sum->planned ? sum->planned : 1, sizeof(*sum->cases));
	sum->timing = calloc(sum->planned ? sum->planned : 1,
			     sizeof(*sum->timing));
	if (!sum->cases || !sum->timing) {
		sp_run_summary_free(sum);
		return -ENOMEM;
	}
	r.run_start = ops->now_ns(ops->ctx);
	r.prog.total = sum->planned;
	if (plan->stop == SP_RUN_STOP_RUNTIME)
		r.prog.case_estimate_ns =
			((int64_t)plan->runtime_s + 1) * SP_NSEC_PER_SEC;
	for (i = 0; i < sum->planned && !ret; i++) {
		if (sp_run_interrupted) {
			ret = 1;
			break;
		}
		sp_run_plan_case(plan, i, &rc);
		/* nvme-tcp: a dm selector's cases run on the map */
		r.t = t->dm_alt && sp_selector_family(rc.sel) ==
					   SP_SEL_FAMILY_DM ? t->dm_alt : t;
		ret = run_case(&r, &rc, &sum->cases[sum->done],
			       &sum->timing[sum->done]);
		if (ret)
			break;
		if (sum->cases[sum->done].faults.fio_errors) {
			const struct sp_case_faults *f =
				&sum->cases[sum->done].faults;

			sum->with_errors++;
			sp_warn("case %s: fio saw %llu error%s (first: %s), "
				"%llu of them verify failures", r.label,
				(unsigned long long)f->fio_errors,
				f->fio_errors == 1 ? "" : "s",
				strerror(f->first_error),
				(unsigned long long)f->verify_errors);
		}
		r.prog.done_ns += sum->timing[sum->done].wall_ns;
		r.prog.done = ++sum->done;
		if (hooks && hooks->case_done)
			hooks->case_done(hooks->ctx, &sum->cases[sum->done - 1],
					 &sum->timing[sum->done - 1]);
	}
	if (ret == 1 || sp_run_interrupted) {
		sum->interrupted = 1;
		ret = -EINTR;
	}
	/* leave the map as the run found it, whatever happened */
	rret = ops->selector_set(ops->ctx, &t->initial);
	if (rret) {
		sum->restore_failed = 1;
		sp_err("could not load %s again on %s; 'slowpath selector set "
		       "%s' will", sp_selector_kernel_name(t->initial.kind),
		       t->map_name, sp_selector_short_name(t->initial.kind));
		if (!ret)
			ret = rret;
	}
	return ret;
}
