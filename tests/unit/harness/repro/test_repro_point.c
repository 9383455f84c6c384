/* Unit tests of harness/repro/repro_point.c (issue 23 T9): a planned
 * point's published rows and verdicts. The published table's verdict is
 * its own: judged whether the point was measured or not, lab-shaped or
 * not, so a summary cannot say "published: 0" for skew4 randread qd 1
 * (25.0 % vs 11.2 %). A reference without the point's row is an error
 * naming the point, never "not measured". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/repro/repro_point.h"
#include "tests/unit/log_capture.h"

#include "tests/unit/harness/repro/ref_fixture.h"

/* A measured case that moved the given share of its I/O per path. */
static void measured(const struct sp_ref_case *ref, struct sp_case_result *m,
		     const char *selector, const uint64_t *reads)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	snprintf(m->topology, sizeof(m->topology), "%s", ref->topology);
	snprintf(m->rw, sizeof(m->rw), "%s", sp_ref_rw_name(ref->rw));
	snprintf(m->selector, sizeof(m->selector), "%s", selector);
	m->iodepth = ref->iodepth;
	m->n_paths = ref->n_paths;
	for (i = 0; i < ref->n_paths; i++) {
		snprintf(m->path[i].name, sizeof(m->path[i].name), "sd%c",
			 (char)('b' + i));
		m->path[i].v[SP_DS_READS] = reads[i];
		m->path[i].n_fields = 11;
	}
}

/* skew4 randread qd 1, measured as the lab once did: 25.0 % vs 12.1 %. */
static void measured_point(struct sp_case_result *c)
{
	static const uint64_t st[] = { 250, 250, 250, 250 };
	static const uint64_t hst[] = { 293, 293, 293, 121 };

	measured(sp_ref_find(&reference, "skew4", SP_REF_RANDREAD, 1, SP_REF_ST),
		 &c[0], "service-time", st);
	measured(sp_ref_find(&reference, "skew4", SP_REF_RANDREAD, 1, SP_REF_HST),
		 &c[1], "historical-service-time", hst);
}

static void a_measured_point_is_judged_twice(void **state)
{
	struct sp_case_result c[2];
	struct sp_repro_point pt;

	(void)state;
	measured_point(c);
	assert_int_equal(sp_repro_point_judge(&reference, c, 2, "skew4",
					      SP_REF_RANDREAD, 1, &pt), 0);
	assert_true(pt.measured);
	assert_true(pt.claimed);
	assert_ptr_equal(pt.m_st, &c[0]);
	assert_ptr_equal(pt.m_hst, &c[1]);
	assert_true(pt.verdict.holds);
	assert_float_equal(pt.hst.slow_measured, 0.121, 1e-3);
	/* the published table: 25.0 % under ST, 11.2 % under HST */
	assert_true(pt.published.holds);
	assert_float_equal(pt.published.st_slow, 0.250, 1e-3);
	assert_float_equal(pt.published.hst_slow, 0.112, 1e-3);
}

/* What the summary's "published" count reads: the table's verdict,
 * also where the run did not finish or measured only one selector. */
static void the_published_verdict_needs_no_measurement(void **state)
{
	struct sp_case_result c[2];
	struct sp_repro_point pt;

	(void)state;
	assert_int_equal(sp_repro_point_judge(&reference, NULL, 0, "skew4",
					      SP_REF_RANDREAD, 1, &pt), 0);
	assert_false(pt.measured);
	assert_true(pt.claimed);
	assert_true(pt.published.holds);
	measured_point(c);
	assert_int_equal(sp_repro_point_judge(&reference, c, 1, "skew4",
					      SP_REF_RANDREAD, 1, &pt), 0);
	assert_false(pt.measured);
	assert_true(pt.published.holds);
	/* u10 randwrite qd 32: the one point the table does not bear out */
	assert_int_equal(sp_repro_point_judge(&reference, NULL, 0, "u10",
					      SP_REF_RANDWRITE, 32, &pt), 0);
	assert_true(pt.claimed);
	assert_false(pt.published.holds);
}

/* A reference that lacks the point's row: one of the table's rows gone
 * (a stale or cut data file), the rest in place. */
static void a_missing_published_row_fails_loudly(void **state)
{
	struct sp_reference cut = reference;
	struct sp_case_result c[2];
	struct sp_repro_point pt;
	const struct sp_ref_case *hst;
	size_t i, at;

	(void)state;
	hst = sp_ref_find(&reference, "skew4", SP_REF_RANDREAD, 1, SP_REF_HST);
	assert_non_null(hst);
	at = (size_t)(hst - reference.cases);
	cut.cases = calloc(reference.n_cases, sizeof(*cut.cases));
	assert_non_null(cut.cases);
	for (i = 0, cut.n_cases = 0; i < reference.n_cases; i++)
		if (i != at)
			cut.cases[cut.n_cases++] = reference.cases[i];
	measured_point(c);

	capture_start(SP_LOG_ERR);
	assert_int_equal(sp_repro_point_judge(&cut, c, 2, "skew4",
					      SP_REF_RANDREAD, 1, &pt), -ENOENT);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "skew4 randread iodepth 1"));
	assert_non_null(strstr(last_err, "no HST row"));
	/* a topology the table does not have at all */
	assert_int_equal(sp_repro_point_judge(&cut, c, 2, "mixed4",
					      SP_REF_RANDREAD, 1, &pt), -ENOENT);
	assert_non_null(strstr(last_err, "mixed4 randread iodepth 1"));
	sp_log_set_hook(NULL, NULL);
	free(cut.cases);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_measured_point_is_judged_twice),
		cmocka_unit_test(the_published_verdict_needs_no_measurement),
		cmocka_unit_test(a_missing_published_row_fails_loudly),
	};

	return cmocka_run_group_tests(tests, load_reference, free_reference);
}
