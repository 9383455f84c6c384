/* What the selector saw: text and plots of the selector state in a
 * case's timeline (see render_selector.h). */
#include "harness/report/render_selector.h"

#include "harness/measure/case_env.h"
#include "harness/report/render_plot.h"
#include "harness/report/render_timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The per-path args as dm-ps-*.c emit them (STATUSTYPE_INFO). */
enum sel_kind { SEL_HST, SEL_ST, SEL_QL, SEL_OTHER };

static enum sel_kind kind_of(const struct sp_case_result *c)
{
	const char *s = sp_selector_short(c->selector);

	if (!strcmp(s, "hst"))
		return SEL_HST;
	if (!strcmp(s, "st"))
		return SEL_ST;
	if (!strcmp(s, "ql"))
		return SEL_QL;
	return SEL_OTHER;
}

int sp_tl_has_selector(const struct sp_timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->n; i++)
		if (tl->s[i].n_sel)
			return 1;
	return 0;
}

/* HST's estimate: fixed point, ns << 10 (HST_FIXED_SHIFT), in ms. */
static int estimate_ms(enum sel_kind k, unsigned int n_sel,
		       const uint64_t *sel, double *ms)
{
	if (k != SEL_HST || n_sel < 1)
		return 0;
	*ms = (double)(sel[0] >> 10) / 1e6;
	return 1;
}

/* What the bottom panel shows: HST outstanding, ST in-flight KiB, QL's
 * queue length, any other selector's first arg. */
static int load_of(enum sel_kind k, unsigned int n_sel, const uint64_t *sel,
		   double *v)
{
	if (k == SEL_HST ? n_sel < 2 : n_sel < 1)
		return 0;
	*v = k == SEL_HST ? (double)sel[1] :
	     k == SEL_ST ? (double)sel[0] / 1024 : (double)sel[0];
	return 1;
}

static const char *load_name(enum sel_kind k)
{
	return k == SEL_HST ? "outstanding I/Os (HST)" :
	       k == SEL_ST ? "in-flight KiB (ST)" :
	       k == SEL_QL ? "queue length (QL)" : "selector's first arg";
}

/* HST's stale_after (CLOCK_MONOTONIC ns) less the sample's time, in
 * ms: negative once the path is stale. 0 when not known. */
static int stale_in_ms(enum sel_kind k, const struct sp_timeline *tl,
		       int64_t t_ms, unsigned int n_sel, const uint64_t *sel,
		       double *ms)
{
	if (k != SEL_HST || n_sel < 3 || !sel[2] || tl->mono_ns_t0 < 0)
		return 0;
	*ms = ((double)sel[2] - ((double)tl->mono_ns_t0 + (double)t_ms * 1e6))
	      / 1e6;
	return 1;
}

/* What a plot or line names path disk d of tl by. */
static void path_tag(const struct sp_case_result *c,
		     const struct sp_timeline *tl, size_t d, char *buf,
		     size_t len)
{
	size_t j;

	for (j = 0; j < c->n_paths; j++)
		if (!strcmp(c->path[j].name, tl->dev[d])) {
			sp_plot_path_tag(c, j, c->slow[j], buf, len);
			return;
		}
	snprintf(buf, len, "%s", tl->dev[d]);
}

/* Path d's mean measured latency over the case: its first and last
 * samples with ticks. 0 when no I/O completed between them. */
static int case_latency_ms(const struct sp_timeline *tl, size_t d, double *ms)
{
	const struct sp_tl_sample *first = NULL, *last = NULL;
	size_t i;

	for (i = 0; i < tl->n; i++)
		if (tl->s[i].dev == d && tl->s[i].has_ticks) {
			if (!first)
				first = &tl->s[i];
			last = &tl->s[i];
		}
	if (!first || last->ios <= first->ios ||
	    last->ticks_ms < first->ticks_ms)
		return 0;
	*ms = (double)(last->ticks_ms - first->ticks_ms) /
	      (double)(last->ios - first->ios);
	return 1;
}

static void selector_line(FILE *out, const struct sp_case_result *c,
			  const struct sp_timeline *tl, size_t d)
{
	enum sel_kind k = kind_of(c);
	double est = 0, load = 0, v, lat;
	size_t i, n_est = 0, n_load = 0;
	char tag[96];

	for (i = 0; i < tl->n; i++) {
		const struct sp_tl_sample *s = &tl->s[i];

		if (s->dev != d)
			continue;
		if (estimate_ms(k, s->n_sel, s->sel, &v)) {
			est += v;
			n_est++;
		}
		if (load_of(k, s->n_sel, s->sel, &v)) {
			load += v;
			n_load++;
		}
	}
	path_tag(c, tl, d, tag, sizeof(tag));
	fprintf(out, "  %-22s", tag);
	if (n_est)
		fprintf(out, " estimate %8.3f ms", est / (double)n_est);
	if (n_load)
		fprintf(out, "  %s %.1f", load_name(k), load / (double)n_load);
	if (case_latency_ms(tl, d, &lat)) {
		fprintf(out, "  measured %8.3f ms", lat);
		if (n_est && lat > 0)
			fprintf(out, " (estimate x%.2f)",
				est / (double)n_est / lat);
	} else {
		fputs("  measured -", out);
	}
	fputc('\n', out);
}

int sp_render_selector(FILE *out, const struct sp_case_result *c,
		       const struct sp_timeline *tl)
{
	size_t d;

	if (!sp_tl_has_selector(tl))
		return 0;
	fprintf(out, "what %s saw per path (means over the case's samples; "
		"measured: the path disk's latency from /proc/diskstats):\n",
		sp_selector_short(c->selector));
	for (d = 0; d + 1 < tl->n_devs; d++)
		selector_line(out, c, tl, d);
	return ferror(out) ? -EIO : 0;
}

static void value_or_dash(FILE *out, int have, double v)
{
	if (have)
		fprintf(out, " %.4f", v);
	else
		fputs(" -", out);
}

/* Path d's four columns of interval p. */
static void interval_values(FILE *out, enum sel_kind k,
			    const struct sp_timeline *tl,
			    const struct sp_tl_interval *p, size_t d)
{
	double v = 0;
	int have;

	have = estimate_ms(k, p->n_sel[d], p->sel[d], &v);
	value_or_dash(out, have, v);
	value_or_dash(out, p->lat_ms[d] >= 0, p->lat_ms[d]);
	have = load_of(k, p->n_sel[d], p->sel[d], &v);
	value_or_dash(out, have, v);
	have = stale_in_ms(k, tl, p->t_ms, p->n_sel[d], p->sel[d], &v);
	value_or_dash(out, have, v);
}

int sp_plot_selector_data(FILE *out, const struct sp_case_result *c,
			  const struct sp_timeline *tl)
{
	enum sel_kind k = kind_of(c);
	struct sp_tl_interval *iv;
	size_t n, i, d;
	int ret = sp_tl_intervals(tl, &iv, &n);

	if (ret)
		return ret;
	fputs("# t_s", out);
	for (d = 0; d + 1 < tl->n_devs; d++)
		fprintf(out, " est_ms_%s lat_ms_%s load_%s stale_in_ms_%s",
			tl->dev[d], tl->dev[d], tl->dev[d], tl->dev[d]);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		const struct sp_tl_interval *p = &iv[i];

		fprintf(out, "%.3f", (double)p->t_ms / 1000);
		for (d = 0; d + 1 < tl->n_devs; d++)
			interval_values(out, k, tl, p, d);
		fputc('\n', out);
	}
	free(iv);
	return ferror(out) ? -EIO : 0;
}

/* One panel: column col (of 4 per path) of every path, solid, and with
 * dashed (col 2, the measured latency) when dashed. */
static void panel(FILE *out, const struct sp_case_result *c,
		  const struct sp_timeline *tl, const char *data, int col,
		  int dashed, const char *what)
{
	char tag[96];
	size_t d;
	int first = 1;

	fputs("plot ", out);
	for (d = 0; d + 1 < tl->n_devs; d++) {
		path_tag(c, tl, d, tag, sizeof(tag));
		if (col) {
			fputs(first ? "" : ", ", out);
			sp_plot_quote(out, "", first ? data : "", "");
			fprintf(out, " using 1:%zu with lines lw 2 lc %zu "
				"title ", 2 + 4 * d + (size_t)col - 1, d + 1);
			sp_plot_quote(out, "", tag, what);
			first = 0;
		}
		if (dashed) {
			fputs(first ? "" : ", ", out);
			sp_plot_quote(out, "", first ? data : "", "");
			fprintf(out, " using 1:%zu with lines lw 1 dt 2 lc %zu "
				"title ", 2 + 4 * d + 1, d + 1);
			sp_plot_quote(out, "", tag, " measured");
			first = 0;
		}
	}
	fputc('\n', out);
}

/* A flagged (lab-shaped) case says so on its plot, as render_plot.c's
 * plots do: a number the lab made must not look like a finding. */
static void mark_flagged(FILE *out, const struct sp_case_result *c)
{
	char why[160];

	if (!sp_case_env_flagged(&c->env, c->n_paths, why, sizeof(why))) {
		fputs("unset label 1\n", out);
		return;
	}
	fputs("set label 1 ", out);
	sp_plot_quote(out, "LAB-SHAPED, not a finding: ", why, "");
	fputs(" at graph 0.01, graph 0.97 front noenhanced textcolor rgb "
	      "'red'\n", out);
}

int sp_plot_selector_script(FILE *out, const struct sp_case_result *c,
			    const struct sp_timeline *tl)
{
	enum sel_kind k = kind_of(c);
	char stem[256], data[300], title[360];
	size_t t;
	int ret = sp_case_stem(c, stem, sizeof(stem));

	if (ret)
		return ret;
	snprintf(data, sizeof(data), "selector-%s.dat", stem);
	snprintf(title, sizeof(title), "%s: what %s saw per path", stem,
		 sp_selector_short(c->selector));
	for (t = 0; t < 2; t++) {
		sp_plot_panels_head(out, t, "selector-", stem, title);
		fputs("set datafile missing '-'\nunset arrow\nunset label\n"
		      /* both panels the same width whatever their keys */
		      "set lmargin at screen 0.09\nset rmargin at screen 0.6\n",
		      out);
		mark_flagged(out, c);
		fprintf(out, "set ylabel '%s'\n", k == SEL_HST ?
			"HST estimate, measured (ms)" :
			"measured latency (ms)");
		panel(out, c, tl, data, k == SEL_HST ? 1 : 0, 1,
		      " HST estimate");
		fprintf(out, "unset label 1\nset ylabel '%s'\n", load_name(k));
		panel(out, c, tl, data, 3, 0, "");
		fputs("unset multiplot\nunset lmargin\nunset rmargin\n", out);
	}
	return ferror(out) ? -EIO : 0;
}
