/* reproduce --hst 5.8:auto's fit and its two-build table (repro_fit.h). */
#include "harness/repro/repro_fit.h"

#include "common/strbuf.h"
#include "harness/repro/repro_point.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const sp_repro_fit_default_skews = "0,10ms,20ms,50ms,120ms,200ms";

static const struct { const char *topo; int qd; } fit_points[4] = {
	{ "skew4", 32 }, { "skew4", 64 }, { "u10", 32 }, { "u10", 64 },
};

void sp_repro_fit_plan(struct sp_repro_plan *plan)
{
	char err[8];

	/* a fixed spec: it parses */
	(void)sp_repro_plan_parse("skew4/randread/32+64,u10/randread/32+64",
				  plan, err, sizeof(err));
}

int sp_repro_fit_skews_parse(const char *list, struct sp_repro_fit_row *rows,
			     size_t *n, char *err, size_t errlen)
{
	char copy[512], build[40], why[160], *save = NULL, *item;
	struct sp_hst_choice c;
	size_t i;

	*n = 0;
	if (!list || strlen(list) >= sizeof(copy) || !*list)
		return sp_errf(err, errlen, -EINVAL, "--fit-skews: want a "
			       "comma list of skews such as %s",
			       sp_repro_fit_default_skews);
	strcpy(copy, list);
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		/* the one parser of a skew: --hst 5.8:SKEW's */
		snprintf(build, sizeof(build), "5.8:%.30s", item);
		if (strlen(item) >= sizeof(rows->label) ||
		    sp_hst_choice_parse(build, &c, why, sizeof(why)))
			return sp_errf(err, errlen, -EINVAL, "--fit-skews: "
				       "'%s' is not a skew (e.g. 20ms, 0)", item);
		for (i = 0; i < *n; i++)
			if (rows[i].skew_ns == c.skew_ns)
				return sp_errf(err, errlen, -EINVAL, "--fit-skews: "
					       "'%s' twice", item);
		if (*n == SP_REPRO_FIT_MAX)
			return sp_errf(err, errlen, -EINVAL, "--fit-skews: more "
				       "than %d skews", SP_REPRO_FIT_MAX);
		memset(&rows[*n], 0, sizeof(rows[*n]));
		rows[*n].skew_ns = c.skew_ns;
		snprintf(rows[*n].label, sizeof(rows[*n].label), "%s", item);
		(*n)++;
	}
	if (!*n)
		return sp_errf(err, errlen, -EINVAL, "--fit-skews: no skew in '%s'",
			       list);
	return 0;
}

int sp_repro_fit_score(const struct sp_reference *ref,
		       const struct sp_case_result *cases, size_t n,
		       struct sp_repro_fit_row *row)
{
	struct sp_repro_point pt;
	double sum = 0;
	size_t i;
	int ret;

	row->n_points = 0;
	for (i = 0; i < 4; i++) {
		ret = sp_repro_point_judge(ref, cases, n, fit_points[i].topo,
					   SP_REF_RANDREAD, fit_points[i].qd, &pt);
		if (ret)
			return ret;
		if (!pt.measured)
			return -ENOENT;
		row->tvd[i] = pt.hst.tvd;
		sum += pt.hst.tvd;
		row->n_points++;
	}
	row->mean_tvd = sum / 4;
	return 0;
}

size_t sp_repro_fit_best(const struct sp_repro_fit_row *rows, size_t n)
{
	size_t i, least = 0, best;

	for (i = 1; i < n; i++)
		if (rows[i].mean_tvd < rows[least].mean_tvd)
			least = i;
	best = least;
	for (i = 0; i < n; i++)
		if (rows[i].mean_tvd <= rows[least].mean_tvd + SP_REPRO_FIT_TIE &&
		    llabs(rows[i].skew_ns) < llabs(rows[best].skew_ns))
			best = i;
	return best;
}

static void fit_table(FILE *md, const struct sp_repro_fit_row *fit,
		      size_t n_fit, size_t best)
{
	size_t i;

	fprintf(md, "## The fit: HST TVD to the published table, randread\n\n"
		"A fit of the 5.8 selector's clock skew is a hypothesis about "
		"the 2020 machines' clocks (sched_clock() ahead of "
		"CLOCK_MONOTONIC), not a measurement of them.\n\n"
		"| skew | skew4 qd 32 | skew4 qd 64 | u10 qd 32 | u10 qd 64 | mean |\n"
		"|---|---|---|---|---|---|\n");
	for (i = 0; i < n_fit; i++)
		fprintf(md, "| %s%s | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
			fit[i].label, i == best ? " (fit)" : "", fit[i].tvd[0],
			fit[i].tvd[1], fit[i].tvd[2], fit[i].tvd[3],
			fit[i].mean_tvd);
	fprintf(md, "\nThe fit takes the least mean TVD; of skews within %.3f "
		"of it, the smallest.\n\n", SP_REPRO_FIT_TIE);
}

/* A target of one selector's row under both builds, into the tally. */
static void tally_target(const struct sp_repro_row *s, const struct sp_repro_row *f,
			 struct sp_repro_builds_tally *t)
{
	if (s->tvd_target < 0)
		return;
	t->targets++;
	t->met_stock += s->meets_target;
	t->met_58 += f->meets_target;
	t->lost += s->meets_target && !f->meets_target;
}

static const char *agree_text(const struct sp_repro_point *pt)
{
	if (!pt->claimed)
		return "-";
	return pt->verdict.holds == pt->published.holds ? "as published" :
	       "differs";
}

/* One row of the table; 0 or -errno. */
static int builds_point(FILE *md, const struct sp_reference *ref,
			const struct sp_case_result *stock, size_t n_stock,
			const struct sp_case_result *b58, size_t n_58,
			const char *topo, enum sp_ref_rw rw, int qd,
			struct sp_repro_builds_tally *t)
{
	struct sp_repro_point s, f;
	int ret;

	ret = sp_repro_point_judge(ref, stock, n_stock, topo, rw, qd, &s);
	if (!ret)
		ret = sp_repro_point_judge(ref, b58, n_58, topo, rw, qd, &f);
	if (ret)
		return ret;
	fprintf(md, "| %s %s %d | %.1f%% |", topo, sp_ref_rw_name(rw), qd,
		100 * s.hst.slow_published);
	if (!s.measured || !f.measured) {
		fprintf(md, " not measured under %s | | | |\n",
			!s.measured ? "stock" : "5.8");
		return 0;
	}
	t->points++;
	t->agree_stock += s.claimed && s.verdict.holds == s.published.holds;
	t->agree_58 += f.claimed && f.verdict.holds == f.published.holds;
	tally_target(&s.st, &f.st, t);
	tally_target(&s.hst, &f.hst, t);
	fprintf(md, " %.1f%% %.3f%s | %s | %.1f%% %.3f%s | %s |\n",
		100 * s.hst.slow_measured, s.hst.tvd,
		s.hst.tvd_target >= 0 && !s.hst.meets_target ? " (missed)" : "",
		agree_text(&s), 100 * f.hst.slow_measured, f.hst.tvd,
		f.hst.tvd_target >= 0 && !f.hst.meets_target ? " (missed)" : "",
		agree_text(&f));
	return 0;
}

int sp_repro_builds_write(FILE *md, const struct sp_reference *ref,
			  const struct sp_repro_plan *plan,
			  const struct sp_case_result *stock, size_t n_stock,
			  const struct sp_case_result *b58, size_t n_58,
			  const char *skew,
			  const struct sp_repro_fit_row *fit, size_t n_fit,
			  size_t best, struct sp_repro_builds_tally *tally)
{
	size_t t, q;
	int rw, ret = 0;

	memset(tally, 0, sizeof(*tally));
	fprintf(md, "# HST vs ST (2020): the stock build and 5.8 at skew %s\n\n",
		skew);
	if (n_fit)
		fit_table(md, fit, n_fit, best);
	else
		fprintf(md, "The skew is what the 5.8 runs recorded; no fit "
			"was run with them.\n\n");
	fprintf(md, "## Every point under both builds\n\n"
		"HST's slow-path share and TVD to the published table, and "
		"whether the experiment's verdict there is the published "
		"table's.\n\n"
		"| point | published HST | stock HST | stock verdict | 5.8 HST | 5.8 verdict |\n"
		"|---|---|---|---|---|---|\n");
	for (t = 0; t < SP_REPRO_N_TOPOS && !ret; t++)
		for (rw = 0; rw < SP_REF_N_RW && !ret; rw++)
			for (q = 0; q < SP_REPRO_N_QD && !ret; q++)
				if (plan->want[t][rw][q])
					ret = builds_point(md, ref, stock, n_stock,
							   b58, n_58,
							   sp_repro_topologies[t],
							   (enum sp_ref_rw)rw,
							   sp_repro_iodepths[q], tally);
	if (ret)
		return ret;
	fprintf(md, "\nVerdict as published: stock %zu, 5.8 %zu of %zu points. "
		"TVD targets met (ST and HST): stock %zu, 5.8 %zu of %zu; "
		"met by stock and lost by 5.8: %zu.\n", tally->agree_stock,
		tally->agree_58, tally->points, tally->met_stock,
		tally->met_58, tally->targets, tally->lost);
	return 0;
}
