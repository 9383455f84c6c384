/* A planned point judged against its published rows (repro_point.h). */
#include "harness/repro/repro_point.h"

#include "common/log.h"
#include "dm/selector.h"
#include "harness/measure/shares.h"

#include <errno.h>
#include <string.h>

/* A row of the published shares alone, as sp_repro_compare fills its
 * published half: what the published verdict is judged from. */
static int published_row(const struct sp_ref_case *p, struct sp_repro_row *row)
{
	int slow[SP_REF_MAX_PATHS];
	int ret;

	memset(row, 0, sizeof(*row));
	row->published = p;
	row->n_paths = p->n_paths;
	ret = sp_ref_shares(p, row->published_share);
	if (ret)
		return ret;
	if (sp_ref_case_slow_marks(p, slow) < 0)
		return -EINVAL;
	row->slow_published = sp_share_of(row->published_share, slow,
					  row->n_paths);
	row->tvd_target = sp_repro_tvd_target(p->selector, p->iodepth);
	return 0;
}

static int find_rows(const struct sp_reference *ref, struct sp_repro_point *pt)
{
	enum sp_ref_selector sel;

	pt->p_st = sp_ref_find(ref, pt->topology, pt->rw, pt->iodepth, SP_REF_ST);
	pt->p_hst = sp_ref_find(ref, pt->topology, pt->rw, pt->iodepth,
				SP_REF_HST);
	if (pt->p_st && pt->p_hst)
		return 0;
	sel = pt->p_st ? SP_REF_HST : SP_REF_ST;
	sp_err("reproduce: %s %s iodepth %d: the published table has no %s "
	       "row for this point; a reference that lacks a planned point "
	       "cannot judge it", pt->topology, sp_ref_rw_name(pt->rw),
	       pt->iodepth, sp_ref_selector_name(sel));
	return -ENOENT;
}

/* The published verdict; -ERANGE (no claim here) is not an error. */
static int judge_published(struct sp_repro_point *pt)
{
	struct sp_repro_row st, hst;
	int ret;

	ret = published_row(pt->p_st, &st);
	if (!ret)
		ret = published_row(pt->p_hst, &hst);
	if (!ret)
		ret = sp_repro_verdict_published(&st, &hst, pt->iodepth,
						 &pt->published);
	if (ret == -ERANGE)
		return 0;
	if (ret) {
		sp_err("reproduce: %s %s iodepth %d: the published rows (line "
		       "%d, %d) cannot be judged: %s", pt->topology,
		       sp_ref_rw_name(pt->rw), pt->iodepth, pt->p_st->line,
		       pt->p_hst->line, strerror(-ret));
		return ret;
	}
	pt->claimed = 1;
	return 0;
}

int sp_repro_point_judge(const struct sp_reference *ref,
			 const struct sp_case_result *cases, size_t n,
			 const char *topology, enum sp_ref_rw rw, int iodepth,
			 struct sp_repro_point *pt)
{
	const char *rw_name = sp_ref_rw_name(rw);
	int ret;

	memset(pt, 0, sizeof(*pt));
	pt->topology = topology;
	pt->rw = rw;
	pt->iodepth = iodepth;
	ret = find_rows(ref, pt);
	if (!ret)
		ret = judge_published(pt);
	if (ret)
		return ret;
	pt->m_st = sp_repro_find_case(cases, n, topology, rw_name, iodepth,
				      sp_selector_short_name(SP_SEL_ST));
	pt->m_hst = sp_repro_find_case(cases, n, topology, rw_name, iodepth,
				       sp_selector_short_name(SP_SEL_HST));
	/* a case that does not fit its row (one sp_err) is not measured */
	pt->measured = pt->m_st && pt->m_hst &&
		       !sp_repro_compare(pt->p_st, pt->m_st, &pt->st) &&
		       !sp_repro_compare(pt->p_hst, pt->m_hst, &pt->hst);
	if (pt->measured && pt->claimed &&
	    sp_repro_verdict(&pt->st, &pt->hst, iodepth, &pt->verdict))
		return -EINVAL;	/* judged above from the same rows */
	return 0;
}
