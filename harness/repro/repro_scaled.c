/* `slowpath reproduce --scale auto|K`: every delay, the published base
 * included, times k, so the emulator's own cost and its noise become
 * small beside each I/O and its CPU stays below saturation. The
 * capacity of the setup (one path with nothing injected: IOPS and CPU
 * at iodepth 32, p50 at iodepth 1) picks k per topology and iodepth
 * (harness/repro/repro_scale.h); each k is its own `up --calibrate`,
 * which injects k x (base + multiplier x unit) less the setup's own
 * cost, closed loop. */
#include "harness/repro/repro_run.h"

#include "common/log.h"
#include "common/outdir.h"
#include "common/units.h"
#include "harness/measure/case_result.h"
#include "harness/repro/repro_scale.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The CPU's busy fraction over a few seconds with no I/O: what the
 * setup burns by itself (a lab under a loaded host shows a lot). */
static double idle_busy(const struct sp_repro_ops *ops, unsigned int seconds)
{
	struct sp_cpustat a, b;
	char *t0 = NULL, *t1 = NULL;
	double busy = -1;

	if (!ops->cpustat(ops->ctx, &t0)) {
		ops->sleep_s(ops->ctx, seconds);
		if (!ops->cpustat(ops->ctx, &t1) && !sp_cpustat_parse(t0, &a) &&
		    !sp_cpustat_parse(t1, &b))
			busy = sp_cpustat_busy(&a, &b);
	}
	free(t0);
	free(t1);
	return busy;
}

/* The cases of one `run` into cap's points; the iodepth-1 one with
 * nothing injected gives the own cost. */
static int add_points(const struct sp_repro_ops *ops, const char *dir,
		      int zero_delay, struct sp_lab_capacity *cap)
{
	struct sp_case_result *cases = NULL;
	size_t n = 0, i;
	int ret = ops->load_cases(ops->ctx, dir, &cases, &n);

	for (i = 0; !ret && i < n; i++) {
		const struct sp_fio_dir *d = &cases[i].fio.dir[SP_FIO_READ];

		if (zero_delay && cases[i].iodepth == 1)
			cap->own_ns = (int64_t)llround(d->clat_p50_us * 1000);
		if (cap->n < SP_CAPACITY_MAX_POINTS && cases[i].env.cpu_util > 0) {
			cap->iops[cap->n] = d->iops;
			cap->util[cap->n++] = cases[i].env.cpu_util;
		}
	}
	free(cases);
	return ret;
}

/* base1 with nothing injected at iodepth 1 and 32 (the own cost, and
 * the rate the setup saturates at), then with 40 ms injected at
 * iodepth 2 and 8 (low rates): CPU against rate, fitted. */
static int capacity(const struct sp_repro_ops *ops, const char *out,
		    struct sp_lab_capacity *cap)
{
	char dir[PATH_MAX], dir2[PATH_MAX];
	const struct sp_repro_up up = { .topology = "topologies/base1.ini",
					.scale = 1 };
	const struct sp_repro_run run = { .selectors = "st", .rw = "randread",
					  .iodepths = "1,32", .runtime_s = 6,
					  .out = dir };
	const struct sp_repro_run run2 = { .selectors = "st", .rw = "randread",
					   .iodepths = "2,8", .runtime_s = 8,
					   .out = dir2 };
	double idle;
	size_t i;
	int ret;

	if (sp_repro_path_printf(dir, sizeof(dir), "%s/capacity", out) ||
	    sp_repro_path_printf(dir2, sizeof(dir2), "%s/capacity-40ms", out))
		return -ENAMETOOLONG;
	if (ops->up(ops->ctx, &up))
		return -EIO;
	idle = idle_busy(ops, 5);
	ret = ops->run(ops->ctx, &run) ? -EIO : 0;
	if (!ret)
		ret = ops->delay_set(ops->ctx, "a", 40 * SP_NSEC_PER_MSEC) ? -EIO : 0;
	if (!ret)
		ret = ops->run(ops->ctx, &run2) ? -EIO : 0;
	ops->down(ops->ctx);
	if (ret)
		return ret;
	memset(cap, 0, sizeof(*cap));
	cap->idle_util = idle > 0 ? idle : 0;
	ret = add_points(ops, dir, 1, cap);
	if (!ret)
		ret = add_points(ops, dir2, 0, cap);
	if (ret)
		return ret;
	for (i = 0; i < cap->n; i++)	/* noise: no I/O cost seen */
		if (cap->idle_util >= cap->util[i])
			cap->idle_util = 0;
	if (cap->own_ns <= 0 || sp_capacity_fit(cap))
		return -ENODATA;
	for (i = 0; i < cap->n; i++)
		sp_repro_say(ops, "capacity: %.0f IOPS with the CPU %.0f%% busy",
		       cap->iops[i], 100 * cap->util[i]);
	sp_repro_say(ops, "capacity: %.0f%% busy with no I/O; CPU = idle + %.4g x "
	       "IOPS^%.2f; own cost p50 %.3f ms at iodepth 1",
	       100 * cap->idle_util, cap->a, cap->b,
	       (double)cap->own_ns / 1e6);
	return 0;
}

/* The largest p (1 - p) of a published share among a group's points:
 * what sets the I/O count a share's standard error needs. */
static double worst_pq(const struct sp_reference *ref, const char *topo,
		       const int *qds, size_t nq, const struct sp_repro_plan *plan,
		       size_t t)
{
	double s[SP_REF_MAX_PATHS], worst = 0;
	size_t q, i;
	int qi;
	int rw, sel;

	for (rw = 0; rw < SP_REF_N_RW; rw++)
		for (q = 0; q < nq; q++) {
			qi = sp_repro_qd_index(qds[q]);
			if (qi < 0 || !plan->want[t][rw][qi])
				continue;
			for (sel = 0; sel < SP_REF_N_SELECTORS; sel++) {
				const struct sp_ref_case *c = sp_ref_find(
					ref, topo, (enum sp_ref_rw)rw, qds[q],
					(enum sp_ref_selector)sel);

				if (!c || sp_ref_shares(c, s))
					continue;
				for (i = 0; i < c->n_paths; i++)
					worst = fmax(worst, s[i] * (1 - s[i]));
			}
		}
	return worst > 0 ? worst : 0.25;
}

/* How a noisy run runs again, for a standard error se: longer (time-
 * based) or with more I/Os (exact time, counted). 0 in both: not again. */
struct rerun_size {
	int64_t runtime_s, ios;
};

static struct rerun_size rerun_size(const struct sp_repro_opts *o, double se,
				    int64_t runtime_s)
{
	struct rerun_size z = { 0, 0 };

	if (o->exact_time)
		z.ios = sp_scale_rerun_size(se, SP_ENV_SHARE_SE_MAX, o->ios,
					       SP_REPRO_EXACT_RERUN_MAX * o->ios);
	else
		z.runtime_s = sp_scale_rerun_size(se, SP_ENV_SHARE_SE_MAX,
						     runtime_s, o->max_runtime_s);
	return z;
}

/* Runs again, longer, each case of the run in dir whose shares'
 * standard error (batch means) came out over SP_ENV_SHARE_SE_MAX, into
 * OUT/runs/TOPO-RW-kK-qdQ-SEL, where the report prefers it (more I/O).
 * Not --full, which is the published size. 0 or -EIO. */
static int rerun_noisy(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		       const char *dir, const char *topo, const char *rw,
		       uint64_t k, int64_t runtime_s, const char *out)
{
	struct sp_case_result *cases = NULL;
	size_t n = 0, i;
	int ret = 0;

	if (o->full || ops->load_cases(ops->ctx, dir, &cases, &n))
		return 0;
	for (i = 0; i < n && !ret; i++) {
		const char *sel = sp_selector_short(cases[i].selector);
		double se = sp_case_share_se(&cases[i], NULL);
		struct rerun_size z = rerun_size(o, se, runtime_s);
		char again[PATH_MAX], qd[16];

		/* only what reproduce ran: a name or number from a case
		 * file never makes a folder name or an option */
		if ((!z.runtime_s && !z.ios) || cases[i].env.se_batches <= 0 ||
		    (strcmp(sel, "st") && strcmp(sel, "hst")) ||
		    sp_repro_qd_index(cases[i].iodepth) < 0)
			continue;
		snprintf(qd, sizeof(qd), "%d", cases[i].iodepth);
		if (z.ios)
			sp_repro_say(ops, "reproduce: %s %s qd %d %s: the shares' "
				     "standard error %.2f pp after %" PRId64 " I/Os; "
				     "again with %" PRId64, topo, rw,
				     cases[i].iodepth, sel, 100 * se, o->ios, z.ios);
		else
			sp_repro_say(ops, "reproduce: %s %s qd %d %s: the shares' "
				     "standard error %.2f pp after %" PRId64 " s; "
				     "again for %" PRId64 " s", topo, rw,
				     cases[i].iodepth, sel, 100 * se, runtime_s,
				     z.runtime_s);
		if (sp_repro_path_printf(again, sizeof(again), "%s/runs/%s-%s-k%" PRIu64
				      "-qd%s-%s", out, topo, rw, k, qd, sel))
			ret = -ENAMETOOLONG;
		else
			ret = sp_repro_run_cases(ops, o, sel, rw, qd, z.runtime_s,
						 z.ios, again);
	}
	free(cases);
	return ret ? -EIO : 0;
}

/* `up --calibrate` with one more try when a path's calibration missed
 * the bound its cases are flagged by: a TCG VM beside another once
 * calibrated a path 10 % slow, and every case on it was then no finding
 * (lab/080). 0 or -EIO. */
static int up_calibrated(const struct sp_repro_ops *ops,
			 const struct sp_repro_opts *o,
			 const struct sp_repro_up *up)
{
	double bound = o->exact_time ? SP_ENV_RESID_EXACT_MAX
					       : SP_ENV_RESID_MAX;
	char label[64];
	double residual;
	int tries, missed;

	for (tries = 0;; tries++) {
		if (ops->up(ops->ctx, up))
			return -EIO;
		missed = ops->calib_miss(ops->ctx, bound, label, sizeof(label),
					 &residual);
		if (missed < 0)
			return -EIO;
		if (!missed || tries == SP_REPRO_CALIB_RETRIES)
			return 0;
		sp_repro_say(ops, "reproduce: %s k %" PRIu64 ": path %s calibrated %+.1f %% "
		       "off its target (bound +-%.0f %%); up again",
		       up->topology, up->scale, label, 100 * residual,
		       100 * bound);
		if (ops->down(ops->ctx))
			return -EIO;
	}
}

/* The fit's unit, base and serial base, in whole microseconds. */
struct group_delays {
	int64_t unit_ns, base_ns, serial_ns;
};

static int run_group(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		     const struct sp_repro_plan *plan, size_t t, uint64_t k,
		     const int *qds, size_t nq, const struct group_delays *d,
		     int serial, int64_t runtime_s, const char *out)
{
	const char *topo = sp_repro_topologies[t];
	char qtext[64] = "", dir[PATH_MAX];
	/* the serial base only where the topology's paths are serial */
	const struct sp_repro_up up = {
		.topology = topo, .unit_ns = d->unit_ns, .scale = k,
		.calibrate = 1, .calib_base_ns = d->base_ns,
		.serial_base_ns = serial ? d->serial_ns : 0,
	};
	size_t q, len = 0;
	int rw, qi, failed = 0, any;

	if (up_calibrated(ops, o, &up))
		return -EIO;
	for (rw = 0; rw < SP_REF_N_RW && !failed; rw++) {
		len = 0;
		qtext[0] = '\0';
		for (q = 0, any = 0; q < nq; q++) {
			qi = sp_repro_qd_index(qds[q]);
			if (qi < 0 || !plan->want[t][rw][qi])
				continue;
			len += (size_t)snprintf(qtext + len, sizeof(qtext) - len,
						"%s%d", any ? "," : "", qds[q]);
			any = 1;
		}
		if (!any)
			continue;
		/* `run` keeps one run per folder: one per k */
		if (sp_repro_path_printf(dir, sizeof(dir), "%s/runs/%s-%s-k%" PRIu64,
				      out, topo, sp_ref_rw_name(rw), k)) {
			failed = 1;
			break;
		}
		/* exact time: every case the same count of I/Os, which
		 * at iodepth 64 is seconds where at 1 it is minutes */
		failed = sp_repro_run_cases(ops, o, "st,hst", sp_ref_rw_name(rw),
					 qtext, runtime_s, o->exact_time ?
					 o->ios : 0, dir) != 0 ||
			 rerun_noisy(ops, o, dir, topo, sp_ref_rw_name(rw), k,
				     runtime_s, out) != 0;
	}
	ops->down(ops->ctx);
	return failed ? -EIO : 0;
}

/* What every group of a scaled reproduction is run with. */
struct scaled {
	const struct sp_repro_ops *ops;
	const struct sp_repro_opts *o;
	const struct sp_repro_plan *plan;
	const struct sp_reference *ref;
	struct sp_linfit fit;
	double serial_ms;
	struct group_delays d;
	struct sp_lab_capacity cap;
	uint64_t fixed_k;		/* 0: picked from cap */
	const char *out;
	FILE *log;			/* OUT/scale.txt */
};

/* One group: the iodepths of topology t whose k is ks[q], brought up
 * together; its runtime sized for the shares' standard error. */
static int scaled_group(struct scaled *sc, size_t t, const struct sp_ref_topology *tp,
			const struct sp_scale_model *m, const uint64_t *ks,
			double *util, const int *want, size_t q)
{
	const char *topo = sp_repro_topologies[t];
	int qds[SP_REPRO_N_QD];
	size_t nq = 0, r;
	double pq, need = 0;
	char pred[48];
	int64_t rt;

	/* the group's busiest prediction is the one to show */
	for (r = q; r < SP_REPRO_N_QD; r++)
		if (want[r] && ks[r] == ks[q]) {
			qds[nq++] = sp_repro_iodepths[r];
			util[q] = fmax(util[q], util[r]);
		}
	pq = worst_pq(sc->ref, topo, qds, nq, sc->plan, t);
	for (r = 0; r < nq; r++)
		need = fmax(need, sp_scale_runtime_for_se(m, qds[r], ks[q],
			0.5 - sqrt(0.25 - pq), SP_ENV_SHARE_SE_MAX));
	rt = (int64_t)ceil(need);
	if (rt < sc->o->runtime_s)
		rt = sc->o->runtime_s;
	if (rt > sc->o->max_runtime_s)
		rt = sc->o->max_runtime_s;
	if (sc->fixed_k)
		snprintf(pred, sizeof(pred), "given");
	else
		snprintf(pred, sizeof(pred), "predicted CPU %.0f%%", 100 * util[q]);
	if (sc->o->exact_time)
		sp_repro_say(sc->ops, "reproduce: %s k=1 on exact time for iodepth "
			     "%d%s, %" PRId64 " I/Os per run (%.0f s of simulated time for a "
			     "0.5 pp binomial standard error)", topo, qds[0],
			     nq > 1 ? " and deeper" : "", sc->o->ios, need);
	else
		sp_repro_say(sc->ops, "reproduce: %s k=%" PRIu64 " for iodepth %d%s "
			     "(%s), %" PRId64 " s per run (%.0f s for a 0.5 pp "
			     "binomial standard error; the report gives each "
			     "run's by batch means)", topo, ks[q], qds[0],
			     nq > 1 ? " and deeper" : "", pred, rt, need);
	fprintf(sc->log, "%s k %" PRIu64 " qd", topo, ks[q]);
	for (r = 0; r < nq; r++)
		fprintf(sc->log, " %d", qds[r]);
	fprintf(sc->log, " predicted_cpu %.3f runtime %" PRId64
		" runtime_for_se %.0f\n", util[q], rt, need);
	fflush(sc->log);
	return run_group(sc->ops, sc->o, sc->plan, t, ks[q], qds, nq, &sc->d,
			 tp->servers > 0, rt, sc->out);
}

/* k per planned iodepth of topology t: given, or the capacity's pick. */
static void scaled_pick(const struct scaled *sc, size_t t,
			const struct sp_scale_model *m, uint64_t *ks,
			double *util, int *want)
{
	size_t q;
	int rw;

	for (q = 0; q < SP_REPRO_N_QD; q++) {
		for (rw = 0; rw < SP_REF_N_RW; rw++)
			want[q] |= sc->plan->want[t][rw][q];
		if (!want[q])
			continue;
		ks[q] = sc->fixed_k;
		if (!sc->fixed_k && sp_scale_pick(&sc->cap, m, sp_repro_iodepths[q],
						  SP_SCALE_PLAN_UTIL, &ks[q],
						  &util[q]))
			sp_warn("reproduce: %s qd %d: no k keeps the CPU under "
				"%.0f%%; using %" PRIu64, sp_repro_topologies[t],
				sp_repro_iodepths[q], 100 * SP_SCALE_PLAN_UTIL,
				ks[q]);
	}
}

static int scaled_topology(struct scaled *sc, size_t t)
{
	const struct sp_ref_topology *tp = sp_ref_topology(sc->ref,
		sp_repro_topologies[t]);
	struct sp_scale_model m;
	uint64_t ks[SP_REPRO_N_QD] = { 0 }, done = 0;
	double util[SP_REPRO_N_QD] = { 0 };
	int want[SP_REPRO_N_QD] = { 0 }, ret = 0;
	size_t q;

	if (!sp_repro_plan_has_topology(sc->plan, t) || !tp)
		return 0;
	m.base_ns = sc->fit.base * 1e6;
	m.unit_ns = sc->fit.slope * 1e6;
	m.serial = tp->servers > 0;
	m.serial_base_ns = sc->serial_ms * 1e6;
	m.n_paths = tp->n_paths;
	m.multiplier = tp->multiplier;
	scaled_pick(sc, t, &m, ks, util, want);
	/* one `up` per distinct k, its iodepths together */
	for (q = 0; q < SP_REPRO_N_QD && !ret; q++) {
		/* done: the k already run, each a power of two */
		if (!want[q] || (done & ks[q]))
			continue;
		done |= ks[q];
		ret = scaled_group(sc, t, tp, &m, ks, util, want, q);
	}
	return ret;
}

/* The fit, the capacity (auto) and OUT/scale.txt's head. */
static int scaled_begin(struct scaled *sc, const struct sp_reference *fit_ref)
{
	char unit[32], base[32], serial[32], path[PATH_MAX];
	size_t q;
	int ret;

	ret = sp_ref_calibrate(fit_ref, &sc->fit);
	if (!ret)
		ret = sp_ref_serial_fit(fit_ref, &sc->fit, &sc->serial_ms, NULL);
	if (ret)
		return ret;
	/* whole microseconds, as `up` once read them back from text */
	sc->d.serial_ns = (int64_t)llround(sc->serial_ms * 1000) * 1000;
	sc->d.unit_ns = (int64_t)llround(sc->fit.slope * 1000) * 1000;
	sc->d.base_ns = (int64_t)llround(sc->fit.base * 1000) * 1000;
	sp_format_duration(sc->d.serial_ns, serial, sizeof(serial));
	sp_format_duration(sc->d.unit_ns, unit, sizeof(unit));
	sp_format_duration(sc->d.base_ns, base, sizeof(base));
	sp_repro_say(sc->ops, "scaled: published %.3f ms + %.3f ms x multiplier: "
		     "unit %s, base %s, injected per path less this setup's own "
		     "cost; serial paths serve %s of the base and the "
		     "multiplier's part one command at a time", sc->fit.base,
		     sc->fit.slope, unit, base, serial);
	if (!sc->fixed_k && (ret = capacity(sc->ops, sc->out, &sc->cap)))
		return ret;
	if (sp_repro_path_printf(path, sizeof(path), "%s/scale.txt", sc->out))
		return -ENAMETOOLONG;
	sc->log = sp_outdir_fopen(path);
	if (!sc->log)
		return -errno;
	fprintf(sc->log, "unit %s base %s serial_base %s\n", unit, base, serial);
	if (sc->fixed_k)
		return 0;
	for (q = 0; q < sc->cap.n; q++)
		fprintf(sc->log, "capacity %.0f IOPS CPU %.3f\n", sc->cap.iops[q],
			sc->cap.util[q]);
	fprintf(sc->log, "capacity idle %.3f fit CPU = idle + %.4g x IOPS^%.3f, "
		"own p50 %.3f ms\n", sc->cap.idle_util, sc->cap.a, sc->cap.b,
		(double)sc->cap.own_ns / 1e6);
	return 0;
}

int sp_repro_scaled(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		    const struct sp_repro_plan *plan, const struct sp_reference *ref,
		    const struct sp_reference *fit_ref, uint64_t fixed_k,
		    const char *out)
{
	struct scaled sc;
	size_t t;
	int ret;

	memset(&sc, 0, sizeof(sc));
	sc.ops = ops;
	sc.o = o;
	sc.plan = plan;
	sc.ref = ref;
	sc.fixed_k = fixed_k;
	sc.out = out;
	ret = scaled_begin(&sc, fit_ref);
	if (ret)
		return ret;
	for (t = 0; t < SP_REPRO_N_TOPOS && !ret; t++)
		ret = scaled_topology(&sc, t);
	fclose(sc.log);
	return ret;
}
