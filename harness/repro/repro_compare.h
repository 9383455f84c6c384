/* Published against measured: how close one run of slowpath comes to a
 * table of the 2020 HST vs ST experiment, and whether the experiment's
 * conclusion holds in that run. Pure. */
#ifndef SP_REPRO_COMPARE_H
#define SP_REPRO_COMPARE_H

#include <stddef.h>

#include "harness/measure/case_result.h"
#include "harness/repro/reference.h"

struct sp_repro_row {
	const struct sp_ref_case *published;
	size_t n_paths;
	double published_share[SP_REF_MAX_PATHS];
	double measured_share[SP_REF_MAX_PATHS];
	double tvd;			/* total variation distance */
	double slow_published, slow_measured;	/* slow paths' share */
	double tvd_target;		/* < 0: the issue sets no target */
	int meets_target;
};

/* Shares in the run's direction; the measured case must have the
 * published path count. -EINVAL (one sp_err) otherwise. */
int sp_repro_compare(const struct sp_ref_case *published,
		     const struct sp_case_result *measured,
		     struct sp_repro_row *row);

/* The fidelity targets, the same on every topology: ST at qd 1 and 2
 * <= 0.01; HST at qd 1 and 2 <= 0.05; qd 32 and 64 <= 0.08; elsewhere
 * none (-1). */
double sp_repro_tvd_target(enum sp_ref_selector sel, int iodepth);

enum sp_repro_claim {
	SP_CLAIM_EVEN,		/* no slow path: every selector spreads evenly */
	SP_CLAIM_HST_AVOIDS,	/* low iodepth: HST moves I/O off slow paths */
	SP_CLAIM_CONVERGE,	/* high iodepth: ST and HST end up alike */
};

struct sp_repro_verdict {
	enum sp_repro_claim claim;
	int holds;
	double st_slow, hst_slow;	/* slow paths' share, measured */
	char why[160];
};

/* How far apart "moves off" and "alike" are, in share points. */
#define SP_REPRO_MOVED_MIN 0.05
#define SP_REPRO_ALIKE_MAX 0.05
#define SP_REPRO_EVEN_MAX 0.05

/* Judges the published conclusion from the measured shares of the ST
 * and HST runs of one point (same topology, rw and iodepth). -ERANGE
 * for an iodepth from 3 to 31 on a topology with slow paths, where the
 * experiment makes no claim. */
int sp_repro_verdict(const struct sp_repro_row *st,
		     const struct sp_repro_row *hst, int iodepth,
		     struct sp_repro_verdict *verdict);

/* The same judgement of the published shares of those rows: whether
 * the published table itself bears the conclusion out at that point
 * (u10 randwrite qd 32 does not: ST 17.8 %, HST 6.0 %). A faithful
 * reproduction agrees with this verdict, not with the claim. */
int sp_repro_verdict_published(const struct sp_repro_row *st,
			       const struct sp_repro_row *hst, int iodepth,
			       struct sp_repro_verdict *verdict);

const char *sp_repro_claim_text(enum sp_repro_claim claim);

/* The case of topo, rw, iodepth and selector (its short name) among
 * cases; where a case was run again for a smaller standard error, the
 * one with the most I/O. NULL when there is none. */
const struct sp_case_result *sp_repro_find_case(const struct sp_case_result *cases,
						size_t n, const char *topo,
						const char *rw, int iodepth,
						const char *sel_short);

#endif
