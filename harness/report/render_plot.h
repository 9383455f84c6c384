/* gnuplot plots of a saved run: per comparison, each path's share
 * under both selectors; per (topology, rw, bs, numjobs), completion
 * latency against iodepth. The data files and script are plain text
 * built here; running gnuplot is the one effect, behind ops. */
#ifndef SP_RENDER_PLOT_H
#define SP_RENDER_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "harness/report/render.h"

struct sp_plot_ops {
	/* Runs gnuplot on script (a file name relative to dir) with dir
	 * as its working directory. 0 or -errno. */
	int (*run)(const char *dir, const char *script, void *ctx);
	void *ctx;
};

/* fork + exec "gnuplot" (found on PATH). */
extern const struct sp_plot_ops sp_plot_exec_gnuplot;

/* "tag share_a share_b" in percent, one line per path, the tag double-
 * quoted (sp_plot_path_tag of case a). */
int sp_plot_shares_data(FILE *out, const struct sp_case_pair *p);

/* What a plot names path i of c by: its label, its delay against the
 * fastest path's and in ms ("p4 x4 2 ms"); a case without labels (of
 * before 2026-12-03) by its disk, "(slow)" when slow. */
void sp_plot_path_tag(const struct sp_case_result *c, size_t i, int slow,
		      char *buf, size_t len);

/* "iodepth mean_a p99_a mean_b p99_b" in ms, by increasing iodepth,
 * over the pairs at the same topology/rw/bs/numjobs as pairs[first]. */
int sp_plot_latency_data(FILE *out, const struct sp_case_pair *pairs,
			 size_t n, size_t first);

/* Plot names ("<topology>-<rw>-<bs>-qd<N>" and "<topology>-<rw>-<bs>"). */
int sp_plot_share_name(const struct sp_case_pair *p, char *buf, size_t len);
int sp_plot_latency_name(const struct sp_case_pair *p, char *buf, size_t len);

/* The gnuplot script drawing every plot of the run, as PNG (pngcairo
 * when gnuplot has it, else png) and SVG, named after the data files. */
int sp_plot_script(FILE *out, const struct sp_case_pair *pairs, size_t n);

/* DIR/PREFIX NAME SUFFIX opened for writing through the output-folder
 * rules (sp_outdir_fopen), or NULL after one error line naming it. */
FILE *sp_plot_open_in(const char *dir, const char *prefix, const char *name,
		      const char *suffix);
/* fclose(f); ret, or -EIO when ret was 0 and the close failed. */
int sp_plot_close_out(FILE *f, int ret);

/* prefix s suffix as one single-quoted gnuplot string: '' for a quote,
 * control characters and backquotes dropped to '_'. Everything a case
 * file says reaches a script only through this. */
void sp_plot_quote(FILE *out, const char *prefix, const char *s,
		   const char *suffix);

/* Writes data files and plots.gp into dir (created), then runs ops.
 * -ENODATA, with nothing written or logged, when no case pairs up (a
 * one-selector run has no comparison to draw); ops' errors as they come. */
int sp_plot_run(const char *dir, const struct sp_case_result *cases,
		size_t n, const char *base, const char *other,
		const struct sp_plot_ops *ops);

#endif
