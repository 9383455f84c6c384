/* A case's per-path store latency, see run_lat.h. */
#include "harness/run/run_lat.h"

#include "common/lat_hist.h"
#include "common/log.h"
#include "harness/run/run_loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sp_run_lat_path(const char *before, const char *after, uint64_t ios,
		    const char *origin, struct sp_case_lat *lat)
{
	/* 18 KB each: not on a stack that already holds a case */
	struct sp_lat_hist *h = malloc(3 * sizeof(*h));
	char err[256];
	int ret;

	if (!h)
		return -ENOMEM;
	ret = sp_lat_parse(before, origin, &h[0], err, sizeof(err));
	if (!ret)
		ret = sp_lat_parse(after, origin, &h[1], err, sizeof(err));
	if (ret)
		sp_warn("%s", err);
	if (!ret && sp_lat_diff(&h[1], &h[0], &h[2])) {
		sp_warn("%s: its counts went down during the case (the LUN was "
			"made again?): no latencies", origin);
		ret = -EINVAL;
	}
	/* a path the case sent nothing to has no distribution (and a
	 * case file's store_lat never holds a count of 0) */
	if (!ret && !h[2].count)
		ret = -ENODATA;
	else if (!ret && h[2].count < ios) {
		sp_warn("%s: %llu latencies for %llu I/Os (the store's file "
			"lags): no latencies", origin,
			(unsigned long long)h[2].count, (unsigned long long)ios);
		ret = -EINVAL;
	}
	if (!ret) {
		lat->has = 1;
		lat->count = h[2].count;
		lat->p50_ns = sp_lat_quantile(&h[2], 0.50);
		lat->p99_ns = sp_lat_quantile(&h[2], 0.99);
		lat->p999_ns = sp_lat_quantile(&h[2], 0.999);
	}
	free(h);
	return ret;
}

void sp_run_lat_begin(struct sp_run_lat *l, const struct sp_run_ops *ops,
		      size_t n_paths)
{
	memset(l, 0, sizeof(*l));
	l->n_paths = n_paths;
	if (ops->store_hists)
		ops->store_hists(ops->ctx, n_paths, l->before);
}

void sp_run_lat_end(struct sp_run_lat *l, const struct sp_run_ops *ops,
		    struct sp_case_result *c)
{
	char *after[SP_CASE_MAX_PATHS] = { 0 };
	size_t i;

	if (ops->store_hists)
		ops->store_hists(ops->ctx, l->n_paths, after);
	for (i = 0; i < l->n_paths && i < c->n_paths; i++) {
		if (l->before[i] && after[i])
			sp_run_lat_path(l->before[i], after[i],
					c->path[i].v[SP_DS_READS] +
					c->path[i].v[SP_DS_WRITES],
					c->path[i].name, &c->lat[i]);
		free(after[i]);
	}
	sp_run_lat_free(l);
}

void sp_run_lat_free(struct sp_run_lat *l)
{
	size_t i;

	for (i = 0; i < l->n_paths; i++) {
		free(l->before[i]);
		l->before[i] = NULL;
	}
}
