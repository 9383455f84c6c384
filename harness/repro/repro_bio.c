/* hst-bio-2022's runs and report; see repro_bio.h. */
#include "harness/repro/repro_bio.h"

#include "common/file.h"
#include "common/log.h"
#include "common/units.h"
#include "harness/measure/case_result.h"
#include "harness/measure/diskstats.h"
#include "harness/measure/shares.h"
#include "harness/repro/repro_run.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a run of the experiment measured, column by column. */
struct bio_measured {
	double share[SP_BIO_N_COLS][SP_BIO_N_PATHS];
	int have[SP_BIO_N_COLS];
	int slow[SP_BIO_N_PATHS];
	double delay_ns[SP_BIO_N_PATHS];
	char label[SP_BIO_N_PATHS][32];
	uint64_t ios[SP_BIO_N_COLS];
	size_t n_paths;
	char ran_on[160];	/* what the first case recorded of its machine */
};

/* The guest's uptime, after waiting (sleep_s: simulated time on exact
 * time) until it passes SP_BIO_MIN_UPTIME_S; -1 when not known. */
static double wait_uptime(const struct sp_repro_ops *ops)
{
	double up = -1;

	if (!ops->uptime_s || ops->uptime_s(ops->ctx, &up))
		return -1;
	if (up < SP_BIO_MIN_UPTIME_S) {
		unsigned int wait = (unsigned int)ceil(SP_BIO_MIN_UPTIME_S - up);

		sp_repro_say(ops, "reproduce: up %.0f s; waiting %u s: before "
			     "c06dfd124d46 a bio's jiffies start time is 300 s "
			     "behind ktime only once the machine is up that long",
			     up, wait);
		ops->sleep_s(ops->ctx, wait);
		if (ops->uptime_s(ops->ctx, &up))
			return -1;
	}
	return up;
}

/* OUT/runs/before/uptime: the uptime the prebio run had, so that a
 * --report-only report states it too; -1 when it is not there. */
static void uptime_save(const char *before, double uptime_s)
{
	char path[PATH_MAX];
	FILE *f;

	if (uptime_s < 0 || sp_repro_path_printf(path, sizeof(path), "%s/uptime",
						  before))
		return;
	f = sp_repro_fopen_new(path);
	if (f) {
		fprintf(f, "%.0f\n", uptime_s);
		fclose(f);
	}
}

static double uptime_load(const char *out)
{
	char path[PATH_MAX], text[32];
	double v;

	if (sp_repro_path_printf(path, sizeof(path), "%s/runs/before/uptime", out) ||
	    sp_file_read_prefix(path, text, sizeof(text)) ||
	    sscanf(text, "%lf", &v) != 1 || !(v >= 0 && v < 1e12))
		return -1;
	return v;
}

static int run_one(const struct sp_repro_ops *ops,
		   const struct sp_repro_bio_opts *o, const char *selectors,
		   const char *hst, const char *dir)
{
	struct sp_repro_run run = {
		.selectors = selectors, .rw = SP_BIO_RW, .iodepths = "64",
		.warmup_s = o->warmup_s, .hst = hst, .out = dir,
	};

	if (o->ios > 0)
		run.ios = o->ios;
	else
		run.runtime_s = o->runtime_s;
	return ops->run(ops->ctx, &run) ? -EIO : 0;
}

int sp_repro_bio(const struct sp_repro_ops *ops,
		 const struct sp_repro_bio_opts *o,
		 const struct sp_bio_table *pub, const char *out,
		 struct sp_bio_score *s)
{
	const struct sp_repro_up up = { .topology = SP_BIO_TOPOLOGY, .scale = 1 };
	char after[PATH_MAX], before[PATH_MAX];
	double uptime = -1;
	int ret;

	if (sp_repro_path_printf(after, sizeof(after), "%s/runs/after", out) ||
	    sp_repro_path_printf(before, sizeof(before), "%s/runs/before", out))
		return -ENAMETOOLONG;
	sp_repro_say(ops, "reproduce hst-bio-2022: %s, %s at iodepth %d: ST and "
		     "HST (stock, with c06dfd124d46), then HST before it (prebio); "
		     "output in %s", SP_BIO_TOPOLOGY, SP_BIO_RW, SP_BIO_IODEPTH, out);
	if (ops->up(ops->ctx, &up))
		return -EIO;
	ret = run_one(ops, o, "st,hst", "stock", after);
	if (!ret) {
		uptime = wait_uptime(ops);
		ret = run_one(ops, o, "hst", "prebio", before);
	}
	if (!ret)
		uptime_save(before, uptime);
	ops->down(ops->ctx);
	if (ret)
		return ret;
	return sp_repro_bio_report(ops, o, pub, out, uptime, s);
}

/* Column col from the case of selector sel_short (and HST build) in
 * cases; the first one sets the paths, delays and slow marks. */
static int take_col(const struct sp_case_result *cases, size_t n,
		    const char *sel_short, const char *build, int col,
		    struct bio_measured *m)
{
	const struct sp_case_result *c = NULL;
	struct sp_path_summary sum[SP_CASE_MAX_PATHS];
	size_t i;

	for (i = 0; i < n && !c; i++)
		if (!strcmp(sp_selector_short(cases[i].selector), sel_short) &&
		    cases[i].iodepth == SP_BIO_IODEPTH &&
		    !strcmp(cases[i].rw, SP_BIO_RW) &&
		    (!build || !strcmp(cases[i].env.hst_build, build)))
			c = &cases[i];
	if (!c)
		return -ENOENT;
	if (c->n_paths != SP_BIO_N_PATHS ||
	    (m->n_paths && c->n_paths != m->n_paths) ||
	    sp_diskstats_summarise(c->path, c->n_paths, sum))
		return -EINVAL;
	if (!m->n_paths) {
		const struct sp_case_env *e = &c->env;

		snprintf(m->ran_on, sizeof(m->ran_on), "%s%s%s, time %s, kernel %s",
			 e->mode[0] ? e->mode : "?", e->engine[0] ? " " : "",
			 e->engine, e->time[0] ? e->time : "?",
			 e->kernel[0] ? e->kernel : "?");
		m->n_paths = c->n_paths;
		for (i = 0; i < c->n_paths; i++) {
			m->delay_ns[i] = (double)c->delay_ns[i];
			m->slow[i] = c->slow[i];
			snprintf(m->label[i], sizeof(m->label[i]), "%s",
				 c->label[i][0] ? c->label[i] : "?");
		}
	}
	for (i = 0; i < c->n_paths; i++)
		m->share[col][i] = sum[i].share_writes;
	m->ios[col] = sp_case_path_ios(c, NULL);
	m->have[col] = 1;
	return 0;
}

static int load_dir(const struct sp_repro_ops *ops, const char *dir,
		    const char *sel, const char *build, int col,
		    struct bio_measured *m)
{
	struct sp_case_result *cases = NULL;
	size_t n = 0;
	int ret = ops->load_cases(ops->ctx, dir, &cases, &n);

	if (!ret)
		ret = take_col(cases, n, sel, build, col, m);
	free(cases);
	if (ret)
		sp_err("reproduce hst-bio-2022: %s: no %s%s%s case of %s "
		       "qd %d with %d paths", dir, sel, build ? " " : "",
		       build ? build : "", SP_BIO_RW, SP_BIO_IODEPTH,
		       SP_BIO_N_PATHS);
	return ret;
}

static int measure(const struct sp_repro_ops *ops, const char *out,
		   struct bio_measured *m)
{
	char after[PATH_MAX], before[PATH_MAX];
	int ret;

	memset(m, 0, sizeof(*m));
	if (sp_repro_path_printf(after, sizeof(after), "%s/runs/after", out) ||
	    sp_repro_path_printf(before, sizeof(before), "%s/runs/before", out))
		return -ENAMETOOLONG;
	ret = load_dir(ops, after, "st", NULL, SP_BIO_ST, m);
	if (!ret)
		ret = load_dir(ops, after, "hst", "stock", SP_BIO_HST_AFTER, m);
	if (!ret)
		ret = load_dir(ops, before, "hst", "prebio", SP_BIO_HST_BEFORE, m);
	/* the best split of the paths as the lab ran them: serial, each
	 * command served in its path's delay */
	if (!ret && sp_bio_best_split(m->delay_ns, m->n_paths,
				      m->share[SP_BIO_BEST])) {
		sp_err("reproduce hst-bio-2022: a path ran with no delay; "
		       "the best split needs each path's cost");
		ret = -EINVAL;
	}
	m->have[SP_BIO_BEST] = !ret;
	return ret;
}

static void report_totals(FILE *f, const struct bio_measured *m,
			  const struct sp_bio_score *s)
{
	int c;

	fprintf(f, "## The slow paths' total share\n\n|  |");
	for (c = 0; c < SP_BIO_N_COLS; c++)
		fprintf(f, " %s |", sp_bio_col_title(c));
	fprintf(f, "\n|---|---|---|---|---|\n| published |");
	for (c = 0; c < SP_BIO_N_COLS; c++)
		fprintf(f, " %.2f |", s->col[c].published_slow);
	fprintf(f, "\n| measured |");
	for (c = 0; c < SP_BIO_N_COLS; c++)
		fprintf(f, " %.3f |", s->col[c].measured_slow);
	fprintf(f, "\n| TVD to the published column |");
	for (c = 0; c < SP_BIO_N_COLS; c++)
		fprintf(f, " %.3f |", s->col[c].tvd);
	fprintf(f, "\n| I/Os counted |");
	for (c = 0; c < SP_BIO_N_COLS; c++)
		if (c == SP_BIO_BEST)
			fprintf(f, " (1 / delay) |");
		else
			fprintf(f, " %llu |", (unsigned long long)m->ios[c]);
	fprintf(f, "\n\n");
}

static void report_paths(FILE *f, const struct sp_bio_table *pub,
			 const struct bio_measured *m)
{
	char d[32];
	size_t i;
	int c;

	fprintf(f, "## Per path (published, then measured)\n\n"
		"| path | delay | slow |");
	for (c = 0; c < SP_BIO_N_COLS; c++)
		fprintf(f, " %s |", sp_bio_col_title(c));
	fprintf(f, "\n|---|---|---|---|---|---|---|\n");
	for (i = 0; i < m->n_paths; i++) {
		sp_format_duration((int64_t)llround(m->delay_ns[i]), d, sizeof(d));
		fprintf(f, "| %s (%s) | %s | %s |", m->label[i], pub->dev[i], d,
			m->slow[i] ? "yes" : "");
		for (c = 0; c < SP_BIO_N_COLS; c++)
			fprintf(f, " %.2f / %.3f |", pub->share[c][i],
				m->share[c][i]);
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static int write_report(const struct sp_repro_bio_opts *o,
			const struct sp_bio_table *pub, const char *out,
			const struct bio_measured *m, double uptime_s,
			const struct sp_bio_score *s)
{
	char path[PATH_MAX];
	FILE *f;

	if (sp_repro_path_printf(path, sizeof(path), "%s/report.md", out))
		return -ENAMETOOLONG;
	/* written again by a report of the same runs: remove, then new */
	remove(path);
	f = sp_repro_fopen_new(path);
	if (!f) {
		sp_err("reproduce hst-bio-2022: %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "# hst-bio-2022: HST's high-resolution timer for bio-based "
		"multipath\n\nThe published experiment: Linux commit "
		"c06dfd124d46 (2022), 10 paths of U-shaped cost, bio-based "
		"multipath, randwrite at iodepth 64, each path's share of the "
		"I/O. Here: %s (u10's paths, `queue_mode bio`), %llu I/Os in the "
		"ST run, on %s (as "
		"the cases recorded; reported on %s). "
		"HST after the fix is the stock build, HST before it the lab's "
		"hst-prebio (no `DM_PS_USE_HR_TIMER`); the best split is 1 / "
		"delay of the paths as run (serial paths).\n\n",
		SP_BIO_TOPOLOGY, (unsigned long long)m->ios[SP_BIO_ST],
		m->ran_on, o->host ? o->host : "?");
	if (uptime_s >= 0)
		fprintf(f, "HST before the fix ran with the machine up %.0f s: "
			"a bio's jiffies start time is then at least 300 s "
			"behind ktime_get_ns().\n\n", uptime_s);
	report_totals(f, m, s);
	report_paths(f, pub, m);
	fprintf(f, "## Verdict\n\nThe commit's conclusion (before the fix HST "
		"starves the slow paths; with it HST spreads as ST does) %s: "
		"%s.\n", s->holds > 0 ? "holds" : s->holds ? "cannot be judged"
		: "does not hold", s->why);
	return fclose(f) ? -EIO : 0;
}

int sp_repro_bio_report(const struct sp_repro_ops *ops,
			const struct sp_repro_bio_opts *o,
			const struct sp_bio_table *pub, const char *out,
			double uptime_s, struct sp_bio_score *s)
{
	struct bio_measured m;
	struct sp_bio_score local;
	int ret;

	if (!s)
		s = &local;
	if (uptime_s < 0)
		uptime_s = uptime_load(out);
	ret = measure(ops, out, &m);
	if (!ret)
		ret = sp_bio_score(pub, (const double (*)[SP_BIO_N_PATHS])m.share,
				   m.have, m.slow, m.n_paths, s);
	if (!ret)
		ret = write_report(o, pub, out, &m, uptime_s, s);
	if (ret)
		return ret;
	sp_repro_say(ops, "hst-bio-2022: the slow paths' share: ST %.3f "
		     "(published %.2f), HST before the fix %.3f (%.2f), after "
		     "it %.3f (%.2f), best split %.3f (%.2f); the conclusion %s",
		     s->col[SP_BIO_ST].measured_slow, s->col[SP_BIO_ST].published_slow,
		     s->col[SP_BIO_HST_BEFORE].measured_slow,
		     s->col[SP_BIO_HST_BEFORE].published_slow,
		     s->col[SP_BIO_HST_AFTER].measured_slow,
		     s->col[SP_BIO_HST_AFTER].published_slow,
		     s->col[SP_BIO_BEST].measured_slow,
		     s->col[SP_BIO_BEST].published_slow,
		     s->holds > 0 ? "holds" : "does not hold");
	sp_repro_say(ops, "hst-bio-2022: report in %s/report.md", out);
	return 0;
}
