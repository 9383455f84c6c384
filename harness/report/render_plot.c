/* gnuplot plots of a saved run: data files, the script, running it. */
#include "harness/report/render_plot.h"

#include "common/log.h"
#include "common/name.h"
#include "common/outdir.h"
#include "common/proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sp_plot_share_name(const struct sp_case_pair *p, char *buf, size_t len)
{
	char *dash;
	int ret = sp_case_stem(p->a, buf, len);

	/* the stem ends in the selector, which the plot holds both of */
	if (!ret && (dash = strrchr(buf, '-')))
		*dash = '\0';
	return ret;
}

int sp_plot_latency_name(const struct sp_case_pair *p, char *buf, size_t len)
{
	char *qd;
	int ret = sp_plot_share_name(p, buf, len);

	if (!ret && (qd = strstr(buf, "-qd"))) {
		char *rest = strchr(qd + 1, '-');	/* keep "-jN" */

		memmove(qd, rest ? rest : "", strlen(rest ? rest : "") + 1);
	}
	return ret;
}

void sp_plot_path_tag(const struct sp_case_result *c, size_t i, int slow,
		      char *buf, size_t len)
{
	int64_t fastest = 0;
	size_t j;

	if (!c->label[i][0]) {
		snprintf(buf, len, "%s%s", c->path[i].name, slow ? "(slow)" : "");
		return;
	}
	for (j = 0; j < c->n_paths; j++)
		if (c->delay_ns[j] > 0 && (!fastest || c->delay_ns[j] < fastest))
			fastest = c->delay_ns[j];
	if (!fastest || !c->delay_ns[i])
		snprintf(buf, len, "%s", c->label[i]);
	else
		snprintf(buf, len, "%s x%.3g %.3g ms", c->label[i],
			 (double)c->delay_ns[i] / (double)fastest,
			 (double)c->delay_ns[i] / 1e6);
}

int sp_plot_shares_data(FILE *out, const struct sp_case_pair *p)
{
	struct sp_comparison cmp;
	char tag[64];
	size_t i;
	int ret = sp_compare(p, &cmp);

	if (ret)
		return ret;
	fprintf(out, "# path %s %s (percent of I/Os)\n",
		sp_selector_short(p->a->selector), sp_selector_short(p->b->selector));
	/* a tag holds spaces: gnuplot reads a double-quoted column whole,
	 * and a label or disk name never holds a quote (sp_name_ok) */
	for (i = 0; i < cmp.n_paths; i++) {
		sp_plot_path_tag(p->a, i, cmp.slow[i], tag, sizeof(tag));
		fprintf(out, "\"%s\" %.3f %.3f\n", tag,
			100 * cmp.share_a[i], 100 * cmp.share_b[i]);
	}
	return ferror(out) ? -EIO : 0;
}

int sp_plot_latency_data(FILE *out, const struct sp_case_pair *pairs,
			 size_t n, size_t first)
{
	struct sp_case_latency la, lb;
	size_t i;

	fprintf(out, "# iodepth mean_%s p99_%s mean_%s p99_%s (ms)\n",
		sp_selector_short(pairs[first].a->selector),
		sp_selector_short(pairs[first].a->selector),
		sp_selector_short(pairs[first].b->selector),
		sp_selector_short(pairs[first].b->selector));
	for (i = sp_pair_series_next(pairs, n, first, 0); i < n;
	     i = sp_pair_series_next(pairs, n, first, pairs[i].a->iodepth)) {
		sp_case_latency(pairs[i].a, &la);
		sp_case_latency(pairs[i].b, &lb);
		fprintf(out, "%d %.4f %.4f %.4f %.4f\n", pairs[i].a->iodepth,
			la.mean_us / 1e3, la.p99_us / 1e3, lb.mean_us / 1e3,
			lb.p99_us / 1e3);
	}
	return ferror(out) ? -EIO : 0;
}

static const char *const terminals[][2] = {
	{ "png", "eval sprintf('set terminal %s size 900,540', png_term)" },
	{ "svg", "set terminal svg size 900,540 dynamic" },
};

/* Everything from a case file reaches the script only through here: a
 * single-quoted gnuplot string, where gnuplot expands no backquote and
 * no @macro and only '' is special. A control character would end the
 * command line, and a backquote is dropped as well, so no later edit
 * to double quotes can bring command substitution back. */
static void gp_str(FILE *out, const char *prefix, const char *s,
		   const char *suffix)
{
	fputc('\'', out);
	fputs(prefix, out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			fputs("''", out);
		else if (c < 0x20 || c == 0x7f || c == '`')
			fputc('_', out);
		else
			fputc(c, out);
	}
	fputs(suffix, out);
	fputc('\'', out);
}

void sp_plot_quote(FILE *out, const char *prefix, const char *s,
		   const char *suffix)
{
	gp_str(out, prefix, s, suffix);
}

/* A flagged (lab-shaped) case says so on its plot too, in red at the
 * top, or a number the lab made would look like a finding in a
 * picture; label 1 is cleared on every other plot. */
static void mark_flagged(FILE *out, const struct sp_case_result *a,
			 const struct sp_case_result *b)
{
	char why[160];

	if (!sp_case_env_flagged(&a->env, a->n_paths, why, sizeof(why)) &&
	    !sp_case_env_flagged(&b->env, b->n_paths, why, sizeof(why))) {
		fputs("unset label 1\n", out);
		return;
	}
	fputs("set label 1 ", out);
	gp_str(out, "LAB-SHAPED, not a finding: ", why, "");
	fputs(" at graph 0.01, graph 0.97 front noenhanced textcolor rgb 'red'\n", out);
}

static void share_plot(FILE *out, const struct sp_case_pair *p,
		       const char *name, const char *bs, size_t t)
{
	char title[256];

	fprintf(out, "\n%s\nset output ", terminals[t][1]);
	gp_str(out, "share-", name, t ? ".svg" : ".png");
	snprintf(title, sizeof(title), "%s %s bs=%s iodepth=%d: share of I/Os "
		 "per path", p->a->topology, p->a->rw, bs, p->a->iodepth);
	fputs("\nset title ", out);
	gp_str(out, "", title, "");
	fputs(" noenhanced\n", out);
	mark_flagged(out, p->a, p->b);
	fputs("set style data histograms\nset style histogram clustered gap 1\n"
	      "set xtics rotate by -35 noenhanced\n"
	      "set style fill solid 0.8 border -1\nunset logscale x\n"
	      "set xlabel 'path'\nset ylabel 'share of I/Os (%)'\nset yrange [0:*]\n"
	      "plot ", out);
	gp_str(out, "share-", name, ".dat");
	fputs(" using 2:xtic(1) title ", out);
	gp_str(out, "", sp_selector_short(p->a->selector), "");
	fputs(", '' using 3 title ", out);
	gp_str(out, "", sp_selector_short(p->b->selector), "");
	fputc('\n', out);
}

/* The series' first flagged pair, else its first. */
static const struct sp_case_pair *series_flagged(const struct sp_case_pair *pairs,
						 size_t n, size_t first)
{
	size_t i;

	for (i = sp_pair_series_next(pairs, n, first, 0); i < n;
	     i = sp_pair_series_next(pairs, n, first, pairs[i].a->iodepth))
		if (sp_case_env_flagged(&pairs[i].a->env, pairs[i].a->n_paths, NULL, 0) ||
		    sp_case_env_flagged(&pairs[i].b->env, pairs[i].b->n_paths, NULL, 0))
			return &pairs[i];
	return &pairs[first];
}

static void latency_plot(FILE *out, const struct sp_case_pair *pairs, size_t n,
			 size_t first, const char *name, const char *bs, size_t t)
{
	const struct sp_case_pair *p = &pairs[first], *flagged;
	const char *sa = sp_selector_short(p->a->selector);
	const char *sb = sp_selector_short(p->b->selector);
	char title[256];

	fprintf(out, "\n%s\nset output ", terminals[t][1]);
	gp_str(out, "latency-", name, t ? ".svg" : ".png");
	snprintf(title, sizeof(title), "%s %s bs=%s: completion latency vs "
		 "iodepth", p->a->topology, p->a->rw, bs);
	fputs("\nset title ", out);
	gp_str(out, "", title, "");
	fputs(" noenhanced\n", out);
	flagged = series_flagged(pairs, n, first);
	mark_flagged(out, flagged->a, flagged->b);
	fputs("set style data linespoints\nset logscale x 2\nset xtics norotate\n"
	      "set xlabel 'iodepth'\nset ylabel 'clat (ms)'\nset yrange [0:*]\n"
	      "plot ", out);
	gp_str(out, "latency-", name, ".dat");
	fputs(" using 1:2 title ", out);
	gp_str(out, "mean ", sa, "");
	fputs(", '' using 1:3 title ", out);
	gp_str(out, "p99 ", sa, "");
	fputs(", '' using 1:4 title ", out);
	gp_str(out, "mean ", sb, "");
	fputs(", '' using 1:5 title ", out);
	gp_str(out, "p99 ", sb, "");
	fputc('\n', out);
}

int sp_plot_script(FILE *out, const struct sp_case_pair *pairs, size_t n)
{
	char name[256], bs[24];
	size_t i, t;
	int ret = 0;

	fputs("# written by slowpath report; gnuplot plots.gp\n"
	      "png_term = (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) ? 'pngcairo' : 'png'\n"
	      "set grid ytics\n"
	      "set key outside right top\n", out);
	for (i = 0; i < n && !ret; i++) {
		sp_case_bs_text(pairs[i].a->bs, bs, sizeof(bs));
		ret = sp_plot_share_name(&pairs[i], name, sizeof(name));
		for (t = 0; t < 2 && !ret; t++)
			share_plot(out, &pairs[i], name, bs, t);
	}
	for (i = 0; i < n && !ret; i++) {
		if (!sp_pair_first_of_series(pairs, i))
			continue;
		sp_case_bs_text(pairs[i].a->bs, bs, sizeof(bs));
		ret = sp_plot_latency_name(&pairs[i], name, sizeof(name));
		for (t = 0; t < 2 && !ret; t++)
			latency_plot(out, pairs, n, i, name, bs, t);
	}
	fputs("set output\n", out);
	return ret ? ret : ferror(out) ? -EIO : 0;
}

FILE *sp_plot_open_in(const char *dir, const char *prefix, const char *name,
		      const char *suffix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%s%s", dir, prefix, name, suffix);
	f = sp_outdir_fopen(path);
	if (!f)
		sp_err("%s: %s", path, errno == ELOOP ? "is a symbolic link, "
		       "not written through" : strerror(errno));
	return f;
}

int sp_plot_close_out(FILE *f, int ret)
{
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

int sp_plot_run(const char *dir, const struct sp_case_result *cases,
		size_t n, const char *base, const char *other,
		const struct sp_plot_ops *ops)
{
	struct sp_case_pair *pairs = calloc(n ? n : 1, sizeof(*pairs));
	char name[256];
	size_t i, np;
	FILE *f;
	int ret = 0;

	if (!pairs)
		return -ENOMEM;
	np = sp_pair_cases(cases, n, base, other, pairs);
	if (!np) {
		/* a run of one selector has nothing to compare: not an error */
		free(pairs);
		return -ENODATA;
	}
	{
		char err[SP_OUTDIR_ERRLEN];

		/* gnuplot runs as root in here */
		ret = sp_outdir_check(dir, SP_OUTDIR_CREATE, err, sizeof(err));
		if (ret)
			sp_err("%s", err);
	}
	for (i = 0; i < np && !ret; i++) {
		ret = sp_plot_share_name(&pairs[i], name, sizeof(name));
		if (!ret && !(f = sp_plot_open_in(dir, "share-", name, ".dat")))
			ret = -EIO;
		if (!ret)
			ret = sp_plot_close_out(f, sp_plot_shares_data(f, &pairs[i]));
		if (ret || !sp_pair_first_of_series(pairs, i))
			continue;
		ret = sp_plot_latency_name(&pairs[i], name, sizeof(name));
		if (!ret && !(f = sp_plot_open_in(dir, "latency-", name, ".dat")))
			ret = -EIO;
		if (!ret)
			ret = sp_plot_close_out(f, sp_plot_latency_data(f, pairs, np, i));
	}
	if (!ret && !(f = sp_plot_open_in(dir, "plots", "", ".gp")))
		ret = -EIO;
	if (!ret)
		ret = sp_plot_close_out(f, sp_plot_script(f, pairs, np));
	if (!ret)
		ret = ops->run(dir, "plots.gp", ops->ctx);
	free(pairs);
	return ret;
}

static int exec_gnuplot(const char *dir, const char *script, void *ctx)
{
	const char *argv[] = { "gnuplot", script, NULL };
	/* its warnings ("empty x range" for a one-iodepth series) are noise
	 * on a terminal: kept for -v, shown when gnuplot fails */
	struct sp_proc_opts o = { .dir = dir, .flags = SP_PROC_STDOUT_NULL |
						       SP_PROC_CAPTURE_ERR };
	struct sp_proc p;
	int ret;

	(void)ctx;
	sp_proc_init(&p);
	ret = sp_proc_run(&p, argv, &o);
	if (!ret && p.err.len && p.status)
		sp_err("gnuplot: %s", p.err.p);
	else if (!ret && p.err.len)
		sp_debug("gnuplot: %s", p.err.p);
	sp_proc_release(&p);
	if (ret == -ENOENT) {
		sp_err("gnuplot is not installed (apt-get install gnuplot-nox)");
		return -ENOENT;
	}
	if (ret) {
		sp_err("gnuplot %s/%s: %s", dir, script, strerror(-ret));
		return ret;
	}
	if (p.status) {
		/* the raw wait status, as this message has always shown */
		sp_err("gnuplot %s/%s failed (status %d)", dir, script,
		       p.signaled ? p.status - 128 : p.status << 8);
		return -EIO;
	}
	return 0;
}

const struct sp_plot_ops sp_plot_exec_gnuplot = { .run = exec_gnuplot };
