/* The timelines of a run's cases: per case, a text table (the longest
 * stall on the map, per fault the time until the map failed the path
 * and took it back, fio's errors and verify failures) and a gnuplot
 * plot of per-path IOPS and in-flight I/Os over time with the faults
 * drawn as vertical lines. Samples come from DIR/cases/<stem>.timeline
 * .tsv, which is read as hostile input like the case files. */
#ifndef SP_RENDER_TIMELINE_H
#define SP_RENDER_TIMELINE_H

#include <stddef.h>
#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/measure/timeline.h"
#include "harness/report/render_plot.h"

/* run_dir/cases/<stem>.timeline.tsv of c into tl (every device name
 * sp_name_ok). -ENOENT when the case recorded none, -EINVAL bad file. */
int sp_timeline_load(const char *run_dir, const struct sp_case_result *c,
		     struct sp_timeline *tl);

/* One case's table; tl NULL: its events and errors only. */
int sp_render_timeline(FILE *out, const struct sp_case_result *c,
		       const struct sp_timeline *tl);

/* "t_s iops_<dev>... inflight_<dev>..." per interval. */
int sp_plot_timeline_data(FILE *out, const struct sp_timeline *tl);
/* The gnuplot commands drawing one case's timeline (PNG and SVG) from
 * timeline-<stem>.dat. */
/* The head of a two-panel plot of one case, terminal t (0 PNG, 1 SVG):
 * terminal, output PREFIX STEM.png|svg, the multiplot titled title, and
 * the time axis both panels share. Strings only through sp_plot_quote. */
void sp_plot_panels_head(FILE *out, size_t t, const char *prefix,
			 const char *stem, const char *title);
int sp_plot_timeline_script(FILE *out, const struct sp_case_result *c,
			    const struct sp_timeline *tl);

/* Every case that recorded faults, errors or a timeline: its table to
 * out (NULL: none); with ops, timeline-<stem>.dat and one timelines.gp
 * in plot_dir, then ops->run. *shown: how many cases had something. A
 * bad timeline file is an error (-EINVAL) naming it. */
int sp_render_timelines(FILE *out, const char *run_dir,
			const struct sp_case_result *cases, size_t n,
			const char *plot_dir, const struct sp_plot_ops *ops,
			size_t *shown);

#endif
