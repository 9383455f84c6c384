#include "harness/report/render_plot.h"

#include "common/log.h"
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

int sp_plot_shares_data(FILE *out, const struct sp_case_pair *p)
{
	struct sp_comparison cmp;
	size_t i;
	int ret = sp_compare(p, &cmp);

	if (ret)
		return ret;
	fprintf(out, "# dev %s %s (percent of I/Os)\n",
		sp_selector_short(p->a->selector), sp_selector_short(p->b->selector));
	for (i = 0; i < cmp.n_paths; i++)
		fprintf(out, "%s%s %.3f %.3f\n", p->a->path[i].name,
			cmp.slow[i] ? "(slow)" : "",
			100 * cmp.share_a[i], 100 * cmp.share_b[i]);
	return ferror(out) ? -EIO : 0;
}

int sp_plot_latency_data(FILE *out, const struct sp_case_pair *pairs,
			 size_t n, size_t first)
{
	struct sp_case_latency la, lb;
	size_t i;

	fprintf(out, "# iodepth mean_%s p99_%s mean_%s p99_%s (us)\n",
		sp_selector_short(pairs[first].a->selector),
		sp_selector_short(pairs[first].a->selector),
		sp_selector_short(pairs[first].b->selector),
		sp_selector_short(pairs[first].b->selector));
	for (i = sp_pair_series_next(pairs, n, first, 0); i < n;
	     i = sp_pair_series_next(pairs, n, first, pairs[i].a->iodepth)) {
		sp_case_latency(pairs[i].a, &la);
		sp_case_latency(pairs[i].b, &lb);
		fprintf(out, "%d %.3f %.3f %.3f %.3f\n", pairs[i].a->iodepth,
			la.mean_us, la.p99_us, lb.mean_us, lb.p99_us);
	}
	return ferror(out) ? -EIO : 0;
}

static const char *const terminals[][2] = {
	{ "png", "eval sprintf('set terminal %s size 900,540', png_term)" },
	{ "svg", "set terminal svg size 900,540 dynamic" },
};

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
			fprintf(out, "\n%s\nset output 'share-%s.%s'\n"
				"set title \"%s %s bs=%s iodepth=%d: share of I/Os per path\" noenhanced\n"
				"set style data histograms\nset style histogram clustered gap 1\nset xtics rotate by -35\n"
				"set style fill solid 0.8 border -1\nunset logscale x\n"
				"set xlabel 'path'\nset ylabel 'share of I/Os (%%)'\nset yrange [0:*]\n"
				"plot 'share-%s.dat' using 2:xtic(1) title '%s', '' using 3 title '%s'\n",
				terminals[t][1], name, terminals[t][0],
				pairs[i].a->topology, pairs[i].a->rw,
				bs, pairs[i].a->iodepth, name,
				sp_selector_short(pairs[i].a->selector),
				sp_selector_short(pairs[i].b->selector));
	}
	for (i = 0; i < n && !ret; i++) {
		const char *sa = sp_selector_short(pairs[i].a->selector);
		const char *sb = sp_selector_short(pairs[i].b->selector);

		if (!sp_pair_first_of_series(pairs, i))
			continue;
		sp_case_bs_text(pairs[i].a->bs, bs, sizeof(bs));
		ret = sp_plot_latency_name(&pairs[i], name, sizeof(name));
		for (t = 0; t < 2 && !ret; t++)
			fprintf(out, "\n%s\nset output 'latency-%s.%s'\n"
				"set title \"%s %s bs=%s: completion latency vs iodepth\" noenhanced\n"
				"set style data linespoints\nset logscale x 2\nset xtics norotate\n"
				"set xlabel 'iodepth'\nset ylabel 'clat (us)'\nset yrange [0:*]\n"
				"plot 'latency-%s.dat' using 1:2 title 'mean %s', '' using 1:3 title 'p99 %s', "
				"'' using 1:4 title 'mean %s', '' using 1:5 title 'p99 %s'\n",
				terminals[t][1], name, terminals[t][0],
				pairs[i].a->topology, pairs[i].a->rw,
				bs, name, sa, sa, sb, sb);
	}
	fputs("set output\n", out);
	return ret ? ret : ferror(out) ? -EIO : 0;
}

static FILE *open_in(const char *dir, const char *prefix, const char *name,
		     const char *suffix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%s%s", dir, prefix, name, suffix);
	f = fopen(path, "w");
	if (!f)
		sp_err("%s: %s", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, int ret)
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
		sp_err("no %s/%s pairs to plot (same topology, rw, bs, iodepth, numjobs)",
		       base, other);
		free(pairs);
		return -EINVAL;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		ret = -errno;
		sp_err("%s: %s", dir, strerror(errno));
	}
	for (i = 0; i < np && !ret; i++) {
		ret = sp_plot_share_name(&pairs[i], name, sizeof(name));
		if (!ret && !(f = open_in(dir, "share-", name, ".dat")))
			ret = -EIO;
		if (!ret)
			ret = close_out(f, sp_plot_shares_data(f, &pairs[i]));
		if (ret || !sp_pair_first_of_series(pairs, i))
			continue;
		ret = sp_plot_latency_name(&pairs[i], name, sizeof(name));
		if (!ret && !(f = open_in(dir, "latency-", name, ".dat")))
			ret = -EIO;
		if (!ret)
			ret = close_out(f, sp_plot_latency_data(f, pairs, np, i));
	}
	if (!ret && !(f = open_in(dir, "plots", "", ".gp")))
		ret = -EIO;
	if (!ret)
		ret = close_out(f, sp_plot_script(f, pairs, np));
	if (!ret)
		ret = ops->run(dir, "plots.gp", ops->ctx);
	free(pairs);
	return ret;
}

static int exec_gnuplot(const char *dir, const char *script, void *ctx)
{
	const char *argv[] = { "gnuplot", script, NULL };
	struct sp_proc_opts o = { .dir = dir };
	struct sp_proc p;
	int ret;

	(void)ctx;
	sp_proc_init(&p);
	ret = sp_proc_run(&p, argv, &o);
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
