/* What a timeline says: IOPS and in-flight per interval, stalls,
 * failover and reinstatement per fault. Every number here is known to
 * within one sampling interval (100 ms at run's 10 Hz): a tick is all
 * the harness sees of the kernel's counters. */
#include "harness/measure/timeline.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One tick: every device's sample at one time. */
struct tick {
	int64_t t_ms;
	const struct sp_tl_sample *dev[SP_TL_MAX_DEVS];
};

/* The tick starting at sample *i; *i moves past it. 0 at the end. */
static int next_tick(const struct sp_timeline *tl, size_t *i, struct tick *t)
{
	size_t j = *i;

	if (j >= tl->n)
		return 0;
	memset(t, 0, sizeof(*t));
	t->t_ms = tl->s[j].t_ms;
	for (; j < tl->n && tl->s[j].t_ms == t->t_ms; j++)
		if (tl->s[j].dev < SP_TL_MAX_DEVS)
			t->dev[tl->s[j].dev] = &tl->s[j];
	*i = j;
	return 1;
}

/* The mean latency (ms) of the I/Os completed between ticks p and s:
 * the ticks they added over their count; -1 when none completed, a
 * counter went backwards or a row had no ticks (of before them). */
static double interval_latency(const struct sp_tl_sample *p,
			       const struct sp_tl_sample *s)
{
	if (!p || !p->has_ticks || !s->has_ticks || s->ios <= p->ios ||
	    s->ticks_ms < p->ticks_ms)
		return -1;
	return (double)(s->ticks_ms - p->ticks_ms) / (double)(s->ios - p->ios);
}

int sp_tl_intervals(const struct sp_timeline *tl, struct sp_tl_interval **out,
		    size_t *n)
{
	const struct sp_tl_sample *last[SP_TL_MAX_DEVS] = { 0 };
	struct sp_tl_interval *iv;
	struct tick t;
	size_t i = 0, d, cap = 0;
	int64_t prev_t = 0;
	int first = 1;

	*out = NULL;
	*n = 0;
	for (size_t k = 0; next_tick(tl, &k, &t);)
		cap++;
	if (cap < 2)
		return 0;
	iv = calloc(cap - 1, sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	while (next_tick(tl, &i, &t)) {
		struct sp_tl_interval *v = &iv[*n];
		double dt = (double)(t.t_ms - prev_t) / 1000.0;

		for (d = 0; !first && d < tl->n_devs; d++) {
			const struct sp_tl_sample *s = t.dev[d], *p = last[d];

			v->state[d] = s ? s->state : SP_TL_UNKNOWN;
			v->lat_ms[d] = -1;
			if (!s)
				continue;
			v->in_flight[d] = s->in_flight;
			v->n_sel[d] = s->n_sel;
			memcpy(v->sel[d], s->sel, sizeof(v->sel[d]));
			if (p && s->ios >= p->ios && dt > 0)
				v->iops[d] = (double)(s->ios - p->ios) / dt;
			v->lat_ms[d] = interval_latency(p, s);
		}
		if (!first) {
			v->t_ms = t.t_ms;
			(*n)++;
		}
		for (d = 0; d < tl->n_devs; d++)
			if (t.dev[d])
				last[d] = t.dev[d];
		prev_t = t.t_ms;
		first = 0;
	}
	*out = iv;
	return 0;
}

void sp_tl_stall(const struct sp_timeline *tl, size_t dev, int64_t from_ms,
		 int64_t to_ms, struct sp_tl_stall *out)
{
	const struct sp_tl_sample *a = NULL, *prev = NULL, *s;
	struct tick t;
	size_t i = 0;
	int64_t start = INT64_MIN;
	int busy = 0;

	memset(out, 0, sizeof(*out));
	/* begin at the last tick at or before from_ms */
	while (next_tick(tl, &i, &t) && t.t_ms <= from_ms)
		start = t.t_ms;
	i = 0;
	while (next_tick(tl, &i, &t)) {
		if (to_ms >= 0 && t.t_ms > to_ms)
			break;
		s = t.dev[dev];
		if (!s || t.t_ms < start)
			continue;
		if (!a || s->ios != a->ios) {
			/* one interval with none is sampling, not a stall */
			if (a && busy && prev != a &&
			    s->t_ms - a->t_ms > out->ms) {
				out->ms = s->t_ms - a->t_ms;
				out->from_ms = a->t_ms;
				out->to_ms = s->t_ms;
			}
			/* what is in flight at a may complete by the next
			 * tick: only the ticks after a count */
			a = s;
			busy = 0;
		} else if (s->in_flight > 0) {
			busy = 1;
		}
		prev = s;
	}
	/* still stalled when the samples end */
	if (a && prev && prev != a && busy && prev->t_ms - a->t_ms > out->ms) {
		out->ms = prev->t_ms - a->t_ms;
		out->from_ms = a->t_ms;
		out->to_ms = prev->t_ms;
	}
}

/* a + b, or INT64_MAX where that would overflow: the parsers bound
 * the times (SP_TL_MS_MAX), the run loop's events may not be. */
static int64_t add_saturated(int64_t a, int64_t b)
{
	int64_t sum;

	if (__builtin_add_overflow(a, b, &sum))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return sum;
}

/* The first tick in [t_ms, until_ms] (until_ms < 0: to the end) where
 * dev's state is want: its time less t_ms, or -1. */
static int64_t first_state(const struct sp_timeline *tl, int dev,
			   int64_t t_ms, int64_t until_ms, char want)
{
	size_t i;

	if (dev < 0)
		return -1;
	for (i = 0; i < tl->n; i++) {
		if (until_ms >= 0 && tl->s[i].t_ms > until_ms)
			break;
		if (tl->s[i].dev == (uint32_t)dev && tl->s[i].t_ms >= t_ms &&
		    tl->s[i].state == want)
			return tl->s[i].t_ms - t_ms;
	}
	return -1;
}

void sp_tl_fault_metrics(const struct sp_timeline *tl,
			 const struct sp_tl_event *ev, size_t n_ev,
			 struct sp_tl_fault_metrics *out, size_t max,
			 size_t *n)
{
	size_t i, j;
	int dev;

	*n = 0;
	for (i = 0; i < n_ev && *n < max; i++) {
		struct sp_tl_fault_metrics *m = &out[*n];
		int64_t until = -1;

		if (ev[i].kind != SP_TL_EV_APPLIED)
			continue;
		memset(m, 0, sizeof(*m));
		m->applied = &ev[i];
		for (j = i + 1; j < n_ev; j++) {
			if (!m->restored && ev[j].kind == SP_TL_EV_RESTORED &&
			    !strcmp(ev[j].path, ev[i].path))
				m->restored = &ev[j];
			if (until < 0 && ev[j].kind == SP_TL_EV_APPLIED)
				until = ev[j].t_ms;
		}
		dev = sp_tl_dev_index(tl, ev[i].dev);
		/* a failure after the fault was undone is not its doing */
		m->failover_ms = first_state(tl, dev, ev[i].t_ms, m->restored ?
					     add_saturated(m->restored->t_ms,
							   m->restored->took_ms) : -1,
					     SP_TL_FAILED);
		m->reinstate_ms = -1;
		if (m->restored && m->failover_ms >= 0) {
			/* active again after it was failed, not before */
			int64_t from = ev[i].t_ms + m->failover_ms, back;

			if (from < m->restored->t_ms)
				from = m->restored->t_ms;
			back = first_state(tl, dev, from, -1, SP_TL_ACTIVE);
			if (back >= 0)
				m->reinstate_ms = from + back - m->restored->t_ms;
		}
		if (tl->n_devs)
			sp_tl_stall(tl, tl->n_devs - 1, ev[i].t_ms, until,
				    &m->stall);
		(*n)++;
	}
}

int sp_tl_share_se(const struct sp_timeline *tl, size_t n_paths,
		   size_t batches, double *se, double *worst)
{
	/* cum[tick * n_paths + path]: only the paths, so a hostile file of
	 * one-device ticks costs 8 bytes a tick, not a whole row */
	uint64_t *cum = NULL;
	double total = 0, path_total[SP_TL_MAX_DEVS] = { 0 }, w = 0;
	size_t n_ticks = 0, i = 0, d, b;
	struct tick t;
	int ret = 0;

	*worst = 0;
	if (batches < 2 || !n_paths || n_paths > tl->n_devs)
		return -EINVAL;
	for (size_t k = 0; next_tick(tl, &k, &t);)
		n_ticks++;
	cum = calloc(n_ticks ? n_ticks * n_paths : 1, sizeof(*cum));
	if (!cum)
		return -ENOMEM;
	/* only ticks that sampled every path: a batch's counts must be
	 * of the same stretch on each */
	n_ticks = 0;
	while (next_tick(tl, &i, &t)) {
		for (d = 0; d < n_paths && t.dev[d]; d++)
			cum[n_ticks * n_paths + d] = t.dev[d]->ios;
		if (d < n_paths)
			continue;
		for (d = 0; n_ticks && d < n_paths; d++)
			if (cum[n_ticks * n_paths + d] <
			    cum[(n_ticks - 1) * n_paths + d])
				ret = -ERANGE;
		n_ticks++;
	}
	if (!ret && n_ticks < batches + 1)
		ret = -ENODATA;
	for (d = 0; !ret && d < n_paths; d++) {
		path_total[d] = (double)(cum[(n_ticks - 1) * n_paths + d] -
					 cum[d]);
		total += path_total[d];
	}
	if (!ret && total <= 0)
		ret = -ENODATA;
	for (d = 0; !ret && d < n_paths; d++) {
		double p = path_total[d] / total, sum2 = 0, s;

		for (b = 0; b < batches; b++) {
			size_t from = b * (n_ticks - 1) / batches;
			size_t to = (b + 1) * (n_ticks - 1) / batches;
			double c = (double)(cum[to * n_paths + d] -
					    cum[from * n_paths + d]), n = 0;

			for (size_t e = 0; e < n_paths; e++)
				n += (double)(cum[to * n_paths + e] -
					      cum[from * n_paths + e]);
			sum2 += (c - p * n) * (c - p * n);
		}
		s = sqrt((double)batches / (double)(batches - 1) * sum2) / total;
		if (se)
			se[d] = s;
		w = fmax(w, s);
	}
	free(cum);
	if (!ret)
		*worst = w;
	return ret;
}
