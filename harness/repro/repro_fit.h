/* reproduce --hst 5.8:auto: which clock skew of the 2020 HST build fits
 * the published HST points at iodepth 32 and 64, and the reproduction
 * under both builds side by side. A fit is a hypothesis about the 2020
 * machines' clocks, never a measurement of them: the table says so.
 * Pure: the runs are the caller's (harness/boots/boots_hstfit.c). */
#ifndef SP_REPRO_FIT_H
#define SP_REPRO_FIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/repro/reference.h"
#include "harness/repro/repro_plan.h"

#define SP_REPRO_FIT_MAX 16
/* Skews whose mean TVD is this close to the best fit as well: the
 * smallest of them is taken (the least departure from today's clock). */
#define SP_REPRO_FIT_TIE 0.002

/* The skews tried when --fit-skews is not given: 0 (the fixed clock)
 * up past 120 ms, where every path looks stale to the 5.8 selector. */
extern const char *const sp_repro_fit_default_skews;

struct sp_repro_fit_row {
	int64_t skew_ns;
	char label[24];		/* as given: "20ms" */
	size_t n_points;	/* fit points measured */
	double tvd[4];		/* HST TVD per fit point, plan order */
	double mean_tvd;
};

/* The fit's points: u10 and skew4, randread, iodepth 32 and 64. */
void sp_repro_fit_plan(struct sp_repro_plan *plan);

/* "0,20ms,200ms" into rows (labels and skews, in order), at most
 * SP_REPRO_FIT_MAX, no two alike. 0 or -EINVAL (err names the item). */
int sp_repro_fit_skews_parse(const char *list, struct sp_repro_fit_row *rows,
			     size_t *n, char *err, size_t errlen);

/* row's HST TVD at each fit point from one skew's cases. 0, or -ENOENT
 * when a point was not measured (a fit from part of its points is not
 * the fit asked for). */
int sp_repro_fit_score(const struct sp_reference *ref,
		       const struct sp_case_result *cases, size_t n,
		       struct sp_repro_fit_row *row);

/* The best row: the least mean TVD, or within SP_REPRO_FIT_TIE of it
 * the smallest |skew|. n > 0. */
size_t sp_repro_fit_best(const struct sp_repro_fit_row *rows, size_t n);

struct sp_repro_builds_tally {
	size_t points, agree_stock, agree_58;	/* verdict as published */
	size_t targets, met_stock, met_58;	/* TVD targets of both selectors */
	size_t lost;		/* targets stock meets and 5.8 does not */
};

/* builds.md: the fit table (none when n_fit is 0), then every planned
 * point's verdict and HST TVD under the stock build and under 5.8 at
 * skew (its label, "20ms"). 0, or -errno when a planned point cannot be
 * judged. */
int sp_repro_builds_write(FILE *md, const struct sp_reference *ref,
			  const struct sp_repro_plan *plan,
			  const struct sp_case_result *stock, size_t n_stock,
			  const struct sp_case_result *b58, size_t n_58,
			  const char *skew,
			  const struct sp_repro_fit_row *fit, size_t n_fit,
			  size_t best, struct sp_repro_builds_tally *tally);

#endif
