#include "harness/repro/repro_compare.h"

#include "common/log.h"
#include "harness/measure/shares.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int rw_is_read(const char *rw)
{
	return !strcmp(rw, "read") || !strcmp(rw, "randread");
}

int sp_repro_compare(const struct sp_ref_case *published,
		     const struct sp_case_result *measured,
		     struct sp_repro_row *row)
{
	struct sp_path_summary sum[SP_REF_MAX_PATHS];
	int slow[SP_REF_MAX_PATHS], read = rw_is_read(measured->rw), any = 0;
	size_t i;
	int ret;

	memset(row, 0, sizeof(*row));
	if (measured->n_paths != published->n_paths) {
		sp_err("%s: the run has %zu paths but the published %s table has %zu",
		       measured->topology, measured->n_paths,
		       published->topology, published->n_paths);
		return -EINVAL;
	}
	row->published = published;
	row->n_paths = published->n_paths;
	ret = sp_ref_shares(published, row->published_share);
	if (ret)
		return ret;
	/* the shares the per-case tables show, in the run's direction; a
	 * direction no path used is left at 0 there */
	ret = sp_diskstats_summarise(measured->path, row->n_paths, sum);
	if (ret)
		return ret;
	for (i = 0; i < row->n_paths; i++) {
		row->measured_share[i] = read ? sum[i].share_reads :
						sum[i].share_writes;
		any |= row->measured_share[i] > 0;
	}
	if (!any) {
		sp_err("%s %s qd%d %s: no path did any I/O in the run's direction",
		       measured->topology, measured->rw, measured->iodepth,
		       measured->selector);
		return -EINVAL;
	}
	row->tvd = sp_total_variation(row->published_share,
				      row->measured_share, row->n_paths);
	if (sp_ref_case_slow_marks(published, slow) < 0)
		memset(slow, 0, sizeof(slow));
	row->slow_published = sp_share_of(row->published_share, slow,
					  row->n_paths);
	row->slow_measured = sp_share_of(row->measured_share, slow,
					 row->n_paths);
	row->tvd_target = sp_repro_tvd_target(published->selector,
					      published->iodepth);
	row->meets_target = row->tvd_target >= 0 && row->tvd <= row->tvd_target;
	return 0;
}

double sp_repro_tvd_target(enum sp_ref_selector sel, int iodepth)
{
	if (iodepth >= 32)
		return 0.08;
	if (sel == SP_REF_ST && iodepth <= 2)
		return 0.01;
	/* HST at qd 1-2 on every topology: equal paths too, where an HST
	 * that strays is as wrong as one that starves a slow path */
	if (sel == SP_REF_HST && iodepth <= 2)
		return 0.05;
	return -1;
}

const char *sp_repro_claim_text(enum sp_repro_claim claim)
{
	switch (claim) {
	case SP_CLAIM_EVEN:
		return "equal paths: both selectors spread evenly";
	case SP_CLAIM_HST_AVOIDS:
		return "low iodepth: HST moves I/O off the slow paths";
	case SP_CLAIM_CONVERGE:
		return "high iodepth: ST and HST converge";
	}
	return "?";
}

static double max_distance_from_even(const struct sp_repro_row *row)
{
	double even = 1.0 / (double)row->n_paths, worst = 0;
	size_t i;

	for (i = 0; i < row->n_paths; i++)
		worst = fmax(worst, fabs(row->measured_share[i] - even));
	return worst;
}

int sp_repro_verdict(const struct sp_repro_row *st,
		     const struct sp_repro_row *hst, int iodepth,
		     struct sp_repro_verdict *verdict)
{
	int slow[SP_REF_MAX_PATHS];
	int n_slow;

	memset(verdict, 0, sizeof(*verdict));
	if (!st->published || !hst->published || st->n_paths != hst->n_paths)
		return -EINVAL;
	n_slow = sp_ref_case_slow_marks(st->published, slow);
	if (n_slow < 0)
		return -EINVAL;
	verdict->st_slow = st->slow_measured;
	verdict->hst_slow = hst->slow_measured;
	if (n_slow == 0) {
		double worst = fmax(max_distance_from_even(st),
				    max_distance_from_even(hst));

		verdict->claim = SP_CLAIM_EVEN;
		verdict->holds = worst <= SP_REPRO_EVEN_MAX;
		snprintf(verdict->why, sizeof(verdict->why),
			 "the furthest path is %.1f pp from an even share (limit %.0f)",
			 100 * worst, 100 * SP_REPRO_EVEN_MAX);
	} else if (iodepth <= 2) {
		double moved = st->slow_measured - hst->slow_measured;

		verdict->claim = SP_CLAIM_HST_AVOIDS;
		verdict->holds = moved >= SP_REPRO_MOVED_MIN;
		snprintf(verdict->why, sizeof(verdict->why),
			 "slow paths %.1f%% under ST, %.1f%% under HST (%+.1f pp; needs <= -%.0f)",
			 100 * st->slow_measured, 100 * hst->slow_measured,
			 -100 * moved, 100 * SP_REPRO_MOVED_MIN);
	} else if (iodepth >= 32) {
		double apart = fabs(st->slow_measured - hst->slow_measured);

		verdict->claim = SP_CLAIM_CONVERGE;
		verdict->holds = apart <= SP_REPRO_ALIKE_MAX;
		snprintf(verdict->why, sizeof(verdict->why),
			 "slow paths %.1f%% under ST, %.1f%% under HST (%.1f pp apart; limit %.0f)",
			 100 * st->slow_measured, 100 * hst->slow_measured,
			 100 * apart, 100 * SP_REPRO_ALIKE_MAX);
	} else {
		return -ERANGE;	/* the experiment claims nothing at 3..31 */
	}
	return 0;
}

/* A row whose measured shares are its published ones. */
static void as_published(const struct sp_repro_row *row,
			 struct sp_repro_row *out)
{
	*out = *row;
	memcpy(out->measured_share, row->published_share,
	       sizeof(out->measured_share));
	out->slow_measured = row->slow_published;
}

int sp_repro_verdict_published(const struct sp_repro_row *st,
			       const struct sp_repro_row *hst, int iodepth,
			       struct sp_repro_verdict *verdict)
{
	struct sp_repro_row pst, phst;

	as_published(st, &pst);
	as_published(hst, &phst);
	return sp_repro_verdict(&pst, &phst, iodepth, verdict);
}

const struct sp_case_result *sp_repro_find_case(const struct sp_case_result *cases,
						size_t n, const char *topo,
						const char *rw, int iodepth,
						const char *sel_short)
{
	const struct sp_case_result *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(cases[i].topology, topo) || strcmp(cases[i].rw, rw) ||
		    cases[i].iodepth != iodepth ||
		    strcmp(sp_selector_short(cases[i].selector), sel_short))
			continue;
		if (!best || sp_case_path_ios(&cases[i], NULL) >
			     sp_case_path_ios(best, NULL))
			best = &cases[i];
	}
	return best;
}
