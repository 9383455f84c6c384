/* What the selector saw, per path, beside what the path measured: the
 * selector's per-path state sampled into a case's timeline (HST's
 * service estimate, outstanding and stale_after, ST's in-flight size,
 * QL's queue length) against the path's mean latency per interval from
 * /proc/diskstats. An HST estimate that lags the path's real latency
 * shows as a solid line away from its dashed one. */
#ifndef SP_RENDER_SELECTOR_H
#define SP_RENDER_SELECTOR_H

#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/measure/timeline.h"

/* 1 when any path sample of tl carries selector args. */
int sp_tl_has_selector(const struct sp_timeline *tl);

/* One line per path: the mean estimate (HST) or load (ST, QL) the
 * selector showed over the case against the path's mean measured
 * latency over it. Nothing when tl has no selector args. */
int sp_render_selector(FILE *out, const struct sp_case_result *c,
		       const struct sp_timeline *tl);

/* selector-<stem>.dat: per interval "t_s" and per path "est_ms lat_ms
 * load stale_in_ms" ('-' where not known). */
int sp_plot_selector_data(FILE *out, const struct sp_case_result *c,
			  const struct sp_timeline *tl);
/* The gnuplot commands drawing selector-<stem>.{png,svg} from it: top
 * panel the estimate (solid) and measured latency (dashed, same
 * colour) per path in ms, bottom panel the selector's load per path. */
int sp_plot_selector_script(FILE *out, const struct sp_case_result *c,
			    const struct sp_timeline *tl);

#endif
