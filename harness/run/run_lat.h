/* Each path's latency as its delay store saw it over one case: the
 * store's hist (docs/backend.md) read before the case and after, the
 * difference's quantiles into the case (sp_case_result.lat). The target
 * side: submission to the store to completion back to tgt, without the
 * initiator's or the network's share. */
#ifndef SP_RUN_LAT_H
#define SP_RUN_LAT_H

#include <stddef.h>

#include "harness/measure/case_result.h"

struct sp_run_ops;

struct sp_run_lat {
	size_t n_paths;
	char *before[SP_CASE_MAX_PATHS];	/* hist text, NULL: none */
};

/* Before the case; nothing (and no cost) when ops has no store_hists. */
void sp_run_lat_begin(struct sp_run_lat *l, const struct sp_run_ops *ops,
		      size_t n_paths);
/* After it: c->lat[i] for every path whose two readings are good and
 * differ by at least the I/Os /proc/diskstats counted on it (fewer: the
 * store's file was not written up to the end, and a partial
 * distribution is no answer). Frees what begin read. */
void sp_run_lat_end(struct sp_run_lat *l, const struct sp_run_ops *ops,
		    struct sp_case_result *c);
void sp_run_lat_free(struct sp_run_lat *l);

/* The pure part: c->lat[i] from one path's two hist texts and the I/Os
 * diskstats saw on it. 0; -ENODATA, nothing said, when the path had no
 * command in the case; -EINVAL (nothing set) with a line said. */
int sp_run_lat_path(const char *before, const char *after, uint64_t ios,
		    const char *origin, struct sp_case_lat *lat);

#endif
