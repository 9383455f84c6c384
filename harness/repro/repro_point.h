/* One planned point of a reproduction judged: its published ST and HST
 * rows, its measured cases, and the verdict of each. The published
 * table's verdict needs no measurement, so it is judged for every
 * point, measured or not, lab-shaped or not: the summary's "published"
 * count is the published table's, whatever this run did. Pure. */
#ifndef SP_REPRO_POINT_H
#define SP_REPRO_POINT_H

#include <stddef.h>

#include "harness/measure/case_result.h"
#include "harness/repro/reference.h"
#include "harness/repro/repro_compare.h"

struct sp_repro_point {
	const char *topology;
	enum sp_ref_rw rw;
	int iodepth;
	const struct sp_ref_case *p_st, *p_hst;	/* never NULL once judged */
	const struct sp_case_result *m_st, *m_hst;	/* NULL: not run */
	int measured;		/* both ran and compare with their rows */
	struct sp_repro_row st, hst;	/* when measured */
	int claimed;		/* the experiment claims something here */
	struct sp_repro_verdict verdict;	/* measured and claimed */
	struct sp_repro_verdict published;	/* claimed: the table's own */
};

/* Judges topology/rw/iodepth: its rows looked up in ref, its cases
 * among cases (sp_repro_find_case). 0, or -ENOENT when ref has no ST or
 * HST row for the point (one sp_err naming the point and the selector:
 * a table that lacks a planned point is broken, and its point must not
 * be counted as "not measured" or as the table not bearing the
 * conclusion out), -EINVAL when a row cannot be judged (its topology's
 * slow paths unknown). */
int sp_repro_point_judge(const struct sp_reference *ref,
			 const struct sp_case_result *cases, size_t n,
			 const char *topology, enum sp_ref_rw rw, int iodepth,
			 struct sp_repro_point *pt);

#endif
