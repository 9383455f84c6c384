/* Pairing cases and comparing a pair: see compare.h. */
#include "harness/measure/compare.h"

#include "common/log.h"
#include "harness/measure/shares.h"

#include <errno.h>
#include <string.h>

void sp_case_latency(const struct sp_case_result *c,
		     struct sp_case_latency *out)
{
	const struct sp_fio_dir *r = &c->fio.dir[SP_FIO_READ];
	const struct sp_fio_dir *w = &c->fio.dir[SP_FIO_WRITE];
	uint64_t ios = r->ios + w->ios;

	out->iops = r->iops + w->iops;
	out->mean_us = ios ? (r->clat_mean_us * (double)r->ios +
			      w->clat_mean_us * (double)w->ios) / (double)ios : -1.0;
	out->p99_us = -1.0;
	if (r->ios && r->clat_p99_us > out->p99_us)
		out->p99_us = r->clat_p99_us;
	if (w->ios && w->clat_p99_us > out->p99_us)
		out->p99_us = w->clat_p99_us;
}

/* One case's shares and service times, through the same summary the
 * per-case tables show; a case with no I/O on any path is refused. */
static int summarise(const struct sp_case_result *c, double *share,
		     double *svc_ms)
{
	struct sp_path_summary sum[SP_CASE_MAX_PATHS];
	double total = 0;
	size_t i;

	if (!sp_diskstats_summarise(c->path, c->n_paths, sum))
		for (i = 0; i < c->n_paths; i++) {
			share[i] = sum[i].share_ios;
			svc_ms[i] = sum[i].svc_ms;
			total += share[i];
		}
	if (total == 0) {
		sp_err("%s %s qd%d: a case with no I/O on any path",
		       c->topology, c->rw, c->iodepth);
		return -EINVAL;
	}
	return 0;
}

int sp_compare(const struct sp_case_pair *p, struct sp_comparison *out)
{
	size_t i, n = p->a->n_paths;

	memset(out, 0, sizeof(*out));
	if (n != p->b->n_paths) {
		sp_err("%s vs %s: %zu paths against %zu", p->a->selector,
		       p->b->selector, n, p->b->n_paths);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(p->a->path[i].name, p->b->path[i].name)) {
			sp_err("%s vs %s: path %zu is %s in one, %s in the other",
			       p->a->selector, p->b->selector, i,
			       p->a->path[i].name, p->b->path[i].name);
			return -EINVAL;
		}
		/* a path is slow if the topology said so in either case */
		out->slow[i] = p->a->slow[i] || p->b->slow[i];
	}
	if (summarise(p->a, out->share_a, out->svc_ms_a) ||
	    summarise(p->b, out->share_b, out->svc_ms_b)) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	out->n_paths = n;
	out->slow_share_a = sp_share_of(out->share_a, out->slow, n);
	out->slow_share_b = sp_share_of(out->share_b, out->slow, n);
	out->tv = sp_total_variation(out->share_a, out->share_b, n);
	sp_case_latency(p->a, &out->lat_a);
	sp_case_latency(p->b, &out->lat_b);
	return 0;
}

size_t sp_pair_cases(const struct sp_case_result *cases, size_t n,
		     const char *base, const char *other,
		     struct sp_case_pair *pairs)
{
	const char *sb = sp_selector_short(base), *so = sp_selector_short(other);
	size_t i, j, found = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(sp_selector_short(cases[i].selector), sb))
			continue;
		for (j = 0; j < n; j++) {
			if (!strcmp(sp_selector_short(cases[j].selector), so) &&
			    sp_case_same_point(&cases[i], &cases[j])) {
				pairs[found].a = &cases[i];
				pairs[found++].b = &cases[j];
				break;
			}
		}
	}
	return found;
}

int sp_pair_same_series(const struct sp_case_pair *x,
			const struct sp_case_pair *y)
{
	return !strcmp(x->a->topology, y->a->topology) &&
	       !strcmp(x->a->rw, y->a->rw) && x->a->bs == y->a->bs &&
	       x->a->numjobs == y->a->numjobs;
}

int sp_pair_first_of_series(const struct sp_case_pair *pairs, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (sp_pair_same_series(&pairs[j], &pairs[i]))
			return 0;
	return 1;
}

size_t sp_pair_series_next(const struct sp_case_pair *pairs, size_t n,
			   size_t first, int after)
{
	size_t i, best = n;

	/* a scan per step: a run has a handful of iodepths */
	for (i = 0; i < n; i++)
		if (sp_pair_same_series(&pairs[i], &pairs[first]) &&
		    pairs[i].a->iodepth > after &&
		    (best == n || pairs[i].a->iodepth < pairs[best].a->iodepth))
			best = i;
	return best;
}
