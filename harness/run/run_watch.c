/* Sampling and fault scheduling while a case's fio runs. */
#include "harness/run/run_watch.h"

#include "common/log.h"
#include "common/outdir.h"
#include "common/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sp_run_watch_init(struct sp_run_watch *w, const struct sp_run_plan *plan,
		      const struct sp_run_target *t,
		      const struct sp_run_ops *ops, struct sp_case_faults *rec)
{
	const char *devs[SP_TL_MAX_DEVS];
	size_t i;
	int ret;

	memset(w, 0, sizeof(*w));
	w->plan = plan;
	w->t = t;
	w->ops = ops;
	w->rec = rec;
	sp_run_faults_reset(w->clock, SP_FAULT_MAX);
	for (i = 0; i < SP_TL_MAX_DEVS; i++)
		w->views[i].state = SP_TL_UNKNOWN;
	if (!plan->timeline)
		return 0;
	for (i = 0; i < t->n_paths && i + 1 < SP_TL_MAX_DEVS; i++)
		devs[i] = t->path[i];
	devs[i] = t->dm_name;
	ret = sp_tl_init(&w->tl, devs, i + 1);
	if (ret)
		return ret;
	w->tl.map_sums_paths = t->map_sums_paths;
	w->sampling = 1;
	return 0;
}

void sp_run_watch_free(struct sp_run_watch *w)
{
	sp_tl_free(&w->tl);
}

static int64_t since_start_ms(const struct sp_run_watch *w, int64_t now)
{
	return (now - w->fio_start_ns) / SP_NSEC_PER_MSEC;
}

/* The paths' states from the map's status (nvme-tcp: from sysfs, per
 * path); kept as they were when it cannot be read (a status read is not
 * worth stopping a case for). */
static void read_states(struct sp_run_watch *w, const char *diskstats)
{
	struct sp_mpath_path mp[SP_TL_MAX_DEVS * 2];
	char *text = NULL;
	size_t n;

	if (w->ops->path_states) {
		n = w->t->n_paths < SP_TL_MAX_DEVS - 1 ? w->t->n_paths
						       : SP_TL_MAX_DEVS - 1;
		w->ops->path_states(w->ops->ctx, n, w->views);
		return;
	}
	if (!w->ops->dm_status || w->ops->dm_status(w->ops->ctx, &text))
		return;
	if (!sp_mpath_status_parse(text, mp, sizeof(mp) / sizeof(mp[0]), &n))
		sp_tl_path_states(&w->tl, diskstats, mp, n, w->views);
	else
		sp_debug("map status '%.80s' is not dm-multipath's", text);
	free(text);
}

static void sample(struct sp_run_watch *w, int64_t now)
{
	char *text = NULL;
	int ret;

	if (!w->sampling)
		return;
	ret = w->ops->diskstats(w->ops->ctx, &text);
	if (!ret) {
		if (w->ticks % SP_RUN_STATUS_EVERY == 0)
			read_states(w, text);
		ret = sp_tl_add_diskstats(&w->tl, since_start_ms(w, now), text,
					  w->views);
	}
	free(text);
	w->ticks++;
	if (ret) {
		/* the case goes on; its timeline ends here */
		sp_warn("timeline: sampling stopped (%s)", strerror(-ret));
		w->sampling = 0;
	}
}

void sp_run_watch_begin(struct sp_run_watch *w)
{
	int64_t now = w->ops->now_ns(w->ops->ctx);

	w->fio_start_ns = now;
	/* run's clock is CLOCK_MONOTONIC of the kernel running the map:
	 * HST's stale_after is on it */
	w->tl.mono_ns_t0 = now;
	w->next_tick_ns = now + SP_RUN_TICK_MS * SP_NSEC_PER_MSEC;
	w->next_fault_ns = w->plan->n_faults ? 0 : INT64_MAX;
	sample(w, now);
}

static const char *dev_of(const struct sp_run_target *t, const char *label)
{
	size_t i;

	for (i = 0; i < t->n_paths; i++)
		if (!strcmp(t->label[i], label))
			return t->path[i];
	return "";
}

/* An event at t0 (when the action began: in the lab a restore that
 * restarts a tgtd takes seconds, and the fault was on all along). */
static void record(struct sp_run_watch *w, const struct sp_fault *f,
		   enum sp_tl_event_kind kind, int64_t t0)
{
	int64_t t = since_start_ms(w, t0);
	int64_t took = (w->ops->now_ns(w->ops->ctx) - t0) / SP_NSEC_PER_MSEC;

	if (sp_case_faults_add(w->rec, t < 0 ? 0 : t, f->path,
			       dev_of(w->t, f->path), sp_fault_how_name(f->how),
			       kind)) {
		sp_warn("more than %d fault events in a case: the rest are "
			"not recorded", SP_TL_MAX_EVENTS);
		return;
	}
	w->rec->ev[w->rec->n_events - 1].took_ms = took;
	sp_debug("fault %s %s %s: %lld ms", f->path, sp_fault_how_name(f->how),
		 sp_tl_event_kind_name(kind), (long long)took);
}

static int act(struct sp_run_watch *w, const struct sp_fault *f,
	       enum sp_run_fault_act a, char *err, size_t errlen)
{
	const struct sp_run_ops *ops = w->ops;
	int64_t t0 = ops->now_ns(ops->ctx);
	int ret;

	err[0] = '\0';
	switch (a) {
	case SP_RF_APPLY:
		ret = ops->fault_apply ? ops->fault_apply(ops->ctx, f, err,
							  errlen) : -ENOSYS;
		record(w, f, ret ? SP_TL_EV_FAILED : SP_TL_EV_APPLIED, t0);
		if (!ret)
			sp_info("fault: %s %s", f->path, sp_fault_how_name(f->how));
		return ret;
	case SP_RF_FLAP_DOWN:
	case SP_RF_FLAP_UP:
		ret = ops->fault_flap ? ops->fault_flap(ops->ctx, f,
			a == SP_RF_FLAP_DOWN, err, errlen) : -ENOSYS;
		if (ret)
			record(w, f, SP_TL_EV_FAILED, t0);
		return ret;
	case SP_RF_RESTORE:
		ret = ops->fault_restore ? ops->fault_restore(ops->ctx, f->path,
							      err, errlen)
					 : -ENOSYS;
		record(w, f, ret ? SP_TL_EV_FAILED : SP_TL_EV_RESTORED, t0);
		if (!ret)
			sp_info("fault: %s restored", f->path);
		return ret;
	default:
		return 0;
	}
}

int sp_run_watch_step(struct sp_run_watch *w, unsigned int max_ms,
		      unsigned int *wait_ms, char *err, size_t errlen)
{
	const struct sp_run_ops *ops = w->ops;
	enum sp_run_fault_act a;
	int64_t now = ops->now_ns(ops->ctx), next;
	size_t i;
	int ret;

	if (w->sampling && now >= w->next_tick_ns) {
		sample(w, now);
		w->next_tick_ns += SP_RUN_TICK_MS * SP_NSEC_PER_MSEC;
		/* fell behind (a slow read, a loaded lab): no burst */
		if (w->next_tick_ns <= now)
			w->next_tick_ns = now + SP_RUN_TICK_MS * SP_NSEC_PER_MSEC;
	}
	while (now - w->fio_start_ns >= w->next_fault_ns) {
		a = sp_run_faults_next(w->plan->faults, w->clock,
				       w->plan->n_faults,
				       now - w->fio_start_ns, &i,
				       &w->next_fault_ns);
		if (a == SP_RF_NONE)
			break;
		ret = act(w, &w->plan->faults[i], a, err, errlen);
		if (ret) {
			if (!err[0])
				snprintf(err, errlen, "%s", strerror(-ret));
			return ret;
		}
		now = ops->now_ns(ops->ctx);
	}
	next = w->sampling ? w->next_tick_ns : INT64_MAX;
	if (w->next_fault_ns != INT64_MAX &&
	    w->fio_start_ns + w->next_fault_ns < next)
		next = w->fio_start_ns + w->next_fault_ns;
	if (next == INT64_MAX || next - now >= (int64_t)max_ms * SP_NSEC_PER_MSEC)
		*wait_ms = max_ms;
	else if (next <= now)
		*wait_ms = 0;
	else	/* round up: waking early only loops once more */
		*wait_ms = (unsigned int)((next - now + SP_NSEC_PER_MSEC - 1) /
					  SP_NSEC_PER_MSEC);
	return 0;
}

void sp_run_watch_end(struct sp_run_watch *w)
{
	sample(w, w->ops->now_ns(w->ops->ctx));
}

int sp_run_watch_restore_all(struct sp_run_watch *w)
{
	char err[256];
	size_t i;
	int ret, first = 0;

	for (i = 0; i < w->plan->n_faults; i++) {
		if (w->clock[i].phase != SP_RF_ACTIVE)
			continue;
		w->clock[i].phase = SP_RF_DONE;
		ret = act(w, &w->plan->faults[i], SP_RF_RESTORE, err,
			  sizeof(err));
		if (ret) {
			sp_err("fault on %s not restored: %s; 'slowpath fault "
			       "%s restore' will", w->plan->faults[i].path,
			       err[0] ? err : strerror(-ret),
			       w->plan->faults[i].path);
			if (!first)
				first = ret;
		}
	}
	return first;
}

int sp_run_watch_save(struct sp_run_watch *w, const char *out_dir,
		      const char *stem)
{
	char err[SP_OUTDIR_ERRLEN], sub[4096], path[4608];
	FILE *f;
	int ret;

	if (!w->plan->timeline || !w->tl.n)
		return 0;
	if (w->tl.full)
		sp_warn("timeline of %s: only its first %u samples kept", stem,
			SP_TL_MAX_SAMPLES);
	ret = sp_outdir_check(out_dir, SP_OUTDIR_CREATE, err, sizeof(err));
	if (!ret)
		ret = sp_outdir_sub(out_dir, "cases", sub, sizeof(sub), err,
				    sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return ret;
	}
	snprintf(path, sizeof(path), "%s/%s.timeline.tsv", sub, stem);
	f = sp_outdir_fopen(path);
	if (!f) {
		ret = -errno;
		sp_err("%s: %s", path, ret == -ELOOP ? "is a symbolic link, "
		       "not written through" : strerror(-ret));
		return ret;
	}
	ret = sp_tl_write_tsv(f, &w->tl, w->rec->ev, w->rec->n_events);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		sp_err("%s: %s", path, strerror(-ret));
	else
		w->rec->timeline = 1;
	return ret;
}
