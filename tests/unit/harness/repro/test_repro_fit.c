/* Unit tests of harness/repro/repro_fit.c (issue 26: --hst 5.8:auto):
 * the skew ladder's parse, the fit's score from one skew's cases, the
 * choice of the best skew (ties to the smallest), and the two builds'
 * table with its tally, a target lost by 5.8 counted as lost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/repro/repro_fit.h"
#include "tests/unit/log_capture.h"

#include "tests/unit/harness/repro/ref_fixture.h"

/* A case that moved what the published row moved, path by path; fast
 * > 0: everything on the first path instead. */
static void as_published(const struct sp_ref_case *ref, struct sp_case_result *m,
			 int fast)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	snprintf(m->topology, sizeof(m->topology), "%s", ref->topology);
	snprintf(m->rw, sizeof(m->rw), "%s", sp_ref_rw_name(ref->rw));
	snprintf(m->selector, sizeof(m->selector), "%s",
		 ref->selector == SP_REF_ST ? "service-time" :
		 "historical-service-time");
	m->iodepth = ref->iodepth;
	m->n_paths = ref->n_paths;
	for (i = 0; i < ref->n_paths; i++) {
		snprintf(m->path[i].name, sizeof(m->path[i].name), "%s",
			 ref->paths[i].dev);
		m->path[i].v[SP_DS_READS] = fast ? (i == 0 ? 1000 : 0) :
					    ref->paths[i].v[SP_REF_READS];
		m->path[i].n_fields = 11;
	}
}

/* ST and HST at topo randread qd into c[0..1]; hst_fast as above. */
static void point(struct sp_case_result *c, const char *topo, int qd, int hst_fast)
{
	as_published(sp_ref_find(&reference, topo, SP_REF_RANDREAD, qd, SP_REF_ST),
		     &c[0], 0);
	as_published(sp_ref_find(&reference, topo, SP_REF_RANDREAD, qd, SP_REF_HST),
		     &c[1], hst_fast);
}

static void the_default_ladder_parses_and_bad_items_are_named(void **state)
{
	struct sp_repro_fit_row rows[SP_REPRO_FIT_MAX];
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(sp_repro_fit_skews_parse(sp_repro_fit_default_skews,
						  rows, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 6);
	assert_int_equal(rows[0].skew_ns, 0);
	assert_int_equal(rows[2].skew_ns, 20000000);
	assert_string_equal(rows[5].label, "200ms");
	assert_int_equal(sp_repro_fit_skews_parse("0,20ms,fast", rows, &n, err,
						  sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'fast' is not a skew"));
	assert_int_equal(sp_repro_fit_skews_parse("20ms,0.02s", rows, &n, err,
						  sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'0.02s' twice"));
	assert_int_equal(sp_repro_fit_skews_parse("", rows, &n, err,
						  sizeof(err)), -EINVAL);
	assert_int_equal(sp_repro_fit_skews_parse("1ms,2ms,3ms,4ms,5ms,6ms,7ms,"
						  "8ms,9ms,10ms,11ms,12ms,13ms,"
						  "14ms,15ms,16ms,17ms", rows,
						  &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than 16"));
}

static void the_score_is_the_mean_hst_tvd_of_the_four_points(void **state)
{
	struct sp_case_result c[8];
	struct sp_repro_fit_row row = { .skew_ns = 0 };

	(void)state;
	point(&c[0], "skew4", 32, 0);
	point(&c[2], "skew4", 64, 0);
	point(&c[4], "u10", 32, 0);
	point(&c[6], "u10", 64, 0);
	assert_int_equal(sp_repro_fit_score(&reference, c, 8, &row), 0);
	assert_int_equal(row.n_points, 4);
	assert_true(row.mean_tvd < 1e-9);
	/* u10 qd 64's HST all on one path: its TVD, a quarter in the mean */
	point(&c[6], "u10", 64, 1);
	assert_int_equal(sp_repro_fit_score(&reference, c, 8, &row), 0);
	assert_true(row.tvd[3] > 0.8);
	assert_float_equal(row.mean_tvd, row.tvd[3] / 4, 1e-9);
	/* a point not measured: no fit from part of them */
	assert_int_equal(sp_repro_fit_score(&reference, c, 6, &row), -ENOENT);
}

static void the_best_is_the_least_or_within_a_tie_the_smallest_skew(void **state)
{
	struct sp_repro_fit_row rows[4] = {
		{ .skew_ns = 0, .mean_tvd = 0.060 },
		{ .skew_ns = 20000000, .mean_tvd = 0.005 },
		{ .skew_ns = 120000000, .mean_tvd = 0.004 },
		{ .skew_ns = 200000000, .mean_tvd = 0.0045 },
	};

	(void)state;
	assert_int_equal(sp_repro_fit_best(rows, 4), 1);
	rows[1].mean_tvd = 0.010;
	assert_int_equal(sp_repro_fit_best(rows, 4), 2);
	rows[0].mean_tvd = 0.001;
	assert_int_equal(sp_repro_fit_best(rows, 4), 0);
}

/* builds.md of one u10 point, stock meeting both targets and 5.8
 * missing HST's, into a malloc'd text */
static char *builds_text(const char *skew, const struct sp_repro_fit_row *fit,
			 size_t n_fit, struct sp_repro_builds_tally *t)
{
	struct sp_case_result stock[2], b58[2];
	struct sp_repro_plan plan;
	char err[128], *text = NULL;
	size_t len = 0;
	FILE *md;

	assert_int_equal(sp_repro_plan_parse("u10/randread/32", &plan, err,
					     sizeof(err)), 0);
	point(stock, "u10", 32, 0);
	point(b58, "u10", 32, 1);
	md = open_memstream(&text, &len);
	assert_non_null(md);
	assert_int_equal(sp_repro_builds_write(md, &reference, &plan, stock, 2,
					       b58, 2, skew, fit, n_fit, 0, t),
			 0);
	fclose(md);
	return text;
}

static void both_builds_side_by_side_count_a_lost_target(void **state)
{
	struct sp_repro_fit_row fit[1] = { { .skew_ns = 0, .label = "0" } };
	struct sp_repro_builds_tally t;
	char *text;

	(void)state;
	text = builds_text("0", fit, 1, &t);
	assert_int_equal(t.points, 1);
	assert_int_equal(t.targets, 2);
	assert_int_equal(t.met_stock, 2);
	assert_int_equal(t.met_58, 1);
	assert_int_equal(t.lost, 1);
	assert_int_equal(t.agree_stock, 1);
	assert_non_null(strstr(text, "| u10 randread 32 | 15.5% | 15.5% 0.000 |"));
	assert_non_null(strstr(text, "(missed)"));
	assert_non_null(strstr(text, "a hypothesis"));
	free(text);
	/* two reproductions already run (--builds): no fit table */
	text = builds_text("20ms", NULL, 0, &t);
	assert_int_equal(t.lost, 1);
	assert_non_null(strstr(text, "5.8 at skew 20ms\n"));
	assert_non_null(strstr(text, "no fit was run"));
	assert_null(strstr(text, "## The fit"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_default_ladder_parses_and_bad_items_are_named),
		cmocka_unit_test(the_score_is_the_mean_hst_tvd_of_the_four_points),
		cmocka_unit_test(the_best_is_the_least_or_within_a_tie_the_smallest_skew),
		cmocka_unit_test(both_builds_side_by_side_count_a_lost_target),
	};

	return cmocka_run_group_tests(tests, load_reference, free_reference);
}
