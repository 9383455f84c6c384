#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/repro/repro_compare.h"

#include "tests/unit/harness/repro/ref_fixture.h"

static const struct sp_ref_case *find(const char *topo, const char *rw,
				      int qd, enum sp_ref_selector sel)
{
	const struct sp_ref_case *c = sp_ref_find(&reference, topo,
						  sp_ref_rw_parse(rw), qd, sel);

	assert_non_null(c);
	return c;
}

/* A measured case that did exactly what the published table shows. */
static void as_published(const struct sp_ref_case *ref, const char *rw,
			 struct sp_case_result *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	snprintf(m->topology, sizeof(m->topology), "%s", ref->topology);
	snprintf(m->rw, sizeof(m->rw), "%s", rw);
	snprintf(m->selector, sizeof(m->selector), "%s",
		 ref->selector == SP_REF_ST ? "service-time" :
		 "historical-service-time");
	m->iodepth = ref->iodepth;
	m->n_paths = ref->n_paths;
	for (i = 0; i < ref->n_paths; i++) {
		m->path[i].v[SP_DS_READS] = ref->paths[i].v[SP_REF_READS];
		m->path[i].v[SP_DS_WRITES] = ref->paths[i].v[SP_REF_WRTS];
	}
}

static void the_published_run_matches_itself(void **state)
{
	const struct sp_ref_case *ref = find("skew4", "randread", 1, SP_REF_HST);
	struct sp_case_result m;
	struct sp_repro_row row;

	(void)state;
	as_published(ref, "randread", &m);
	assert_int_equal(sp_repro_compare(ref, &m, &row), 0);
	assert_float_equal(row.tvd, 0, 1e-12);
	assert_float_equal(row.slow_measured, row.slow_published, 1e-12);
	assert_float_equal(row.tvd_target, 0.05, 1e-12);
	assert_true(row.meets_target);
}

static void moving_io_moves_the_distance(void **state)
{
	const struct sp_ref_case *ref = find("skew4", "read", 1, SP_REF_ST);
	struct sp_case_result m;
	struct sp_repro_row row;
	uint64_t moved;

	(void)state;
	as_published(ref, "read", &m);
	/* a tenth of all reads go from path 1 to the slow path 4 */
	moved = 12800;
	m.path[0].v[SP_DS_READS] -= moved;
	m.path[3].v[SP_DS_READS] += moved;
	assert_int_equal(sp_repro_compare(ref, &m, &row), 0);
	assert_float_equal(row.tvd, 0.1, 0.001);
	assert_float_equal(row.slow_measured - row.slow_published, 0.1, 0.001);
	assert_false(row.meets_target);	/* ST qd1 wants <= 0.01 */
}

static void the_direction_follows_the_rw_mode(void **state)
{
	/* write runs count writes, not the stray reads beside them */
	const struct sp_ref_case *ref = find("equal3", "write", 1, SP_REF_ST);
	struct sp_case_result m;
	struct sp_repro_row row;

	(void)state;
	as_published(ref, "write", &m);
	m.path[0].v[SP_DS_READS] = 100000;
	assert_int_equal(sp_repro_compare(ref, &m, &row), 0);
	assert_float_equal(row.tvd, 0, 1e-12);
	/* reads alone are no I/O for a write run */
	memset(m.path, 0, sizeof(m.path));
	m.path[0].v[SP_DS_READS] = 100000;
	assert_int_equal(sp_repro_compare(ref, &m, &row), -EINVAL);
}

static void path_count_mismatch_is_refused(void **state)
{
	const struct sp_ref_case *ref = find("u10", "read", 1, SP_REF_ST);
	struct sp_case_result m;
	struct sp_repro_row row;

	(void)state;
	as_published(ref, "read", &m);
	m.n_paths = 4;
	assert_int_equal(sp_repro_compare(ref, &m, &row), -EINVAL);
	as_published(ref, "read", &m);
	memset(m.path, 0, sizeof(m.path));
	assert_int_equal(sp_repro_compare(ref, &m, &row), -EINVAL);
}

static struct sp_repro_verdict judge_published(const char *topo,
					       const char *rw, int qd)
{
	struct sp_case_result m_st, m_hst;
	struct sp_repro_row st, hst;
	struct sp_repro_verdict v;
	const struct sp_ref_case *ref_st = find(topo, rw, qd, SP_REF_ST);
	const struct sp_ref_case *ref_hst = find(topo, rw, qd, SP_REF_HST);

	as_published(ref_st, rw, &m_st);
	as_published(ref_hst, rw, &m_hst);
	assert_int_equal(sp_repro_compare(ref_st, &m_st, &st), 0);
	assert_int_equal(sp_repro_compare(ref_hst, &m_hst, &hst), 0);
	assert_int_equal(sp_repro_verdict(&st, &hst, qd, &v), 0);
	return v;
}

static void the_published_conclusion_holds_in_the_published_data(void **state)
{
	struct sp_repro_verdict v;

	(void)state;
	v = judge_published("skew4", "randread", 1);
	assert_int_equal(v.claim, SP_CLAIM_HST_AVOIDS);
	assert_true(v.holds);
	assert_true(v.st_slow > 0.2 && v.hst_slow < 0.15);
	v = judge_published("u10", "read", 2);
	assert_int_equal(v.claim, SP_CLAIM_HST_AVOIDS);
	assert_true(v.holds);
	v = judge_published("skew4", "read", 64);
	assert_int_equal(v.claim, SP_CLAIM_CONVERGE);
	assert_true(v.holds);
	v = judge_published("equal3", "randwrite", 32);
	assert_int_equal(v.claim, SP_CLAIM_EVEN);
	assert_true(v.holds);
}

static void the_published_exception_is_reported(void **state)
{
	/* u10 randwrite qd32: 17.8 % under ST against 6.0 % under HST */
	struct sp_repro_verdict v = judge_published("u10", "randwrite", 32);

	(void)state;
	assert_int_equal(v.claim, SP_CLAIM_CONVERGE);
	assert_false(v.holds);
	assert_non_null(strstr(v.why, "apart"));
}

/* The report scores a run against what the published table itself
 * says at the point: whatever was measured, u10 randwrite qd 32's
 * published shares do not converge and u10 read qd 32's do. */
static void the_published_verdict_ignores_the_measurement(void **state)
{
	struct sp_case_result m_st, m_hst;
	struct sp_repro_row st, hst;
	struct sp_repro_verdict v;
	const struct sp_ref_case *rw_st = find("u10", "randwrite", 32, SP_REF_ST);
	const struct sp_ref_case *rw_hst = find("u10", "randwrite", 32, SP_REF_HST);
	const struct sp_ref_case *r_st = find("u10", "read", 32, SP_REF_ST);
	const struct sp_ref_case *r_hst = find("u10", "read", 32, SP_REF_HST);

	(void)state;
	/* measured: both selectors exactly as ST was published (converge) */
	as_published(rw_st, "randwrite", &m_st);
	as_published(rw_st, "randwrite", &m_hst);
	assert_int_equal(sp_repro_compare(rw_st, &m_st, &st), 0);
	assert_int_equal(sp_repro_compare(rw_hst, &m_hst, &hst), 0);
	assert_int_equal(sp_repro_verdict(&st, &hst, 32, &v), 0);
	assert_true(v.holds);
	assert_int_equal(sp_repro_verdict_published(&st, &hst, 32, &v), 0);
	assert_int_equal(v.claim, SP_CLAIM_CONVERGE);
	assert_false(v.holds);
	assert_true(v.st_slow > v.hst_slow + 0.1);
	/* measured: HST with half the published reads on the slow paths
	 * (4-8), as far off as the lab's 10 % against ST's 16 % */
	as_published(r_st, "read", &m_st);
	as_published(r_hst, "read", &m_hst);
	for (size_t i = 3; i < 8; i++)
		m_hst.path[i].v[SP_DS_READS] /= 2;
	assert_int_equal(sp_repro_compare(r_st, &m_st, &st), 0);
	assert_int_equal(sp_repro_compare(r_hst, &m_hst, &hst), 0);
	assert_int_equal(sp_repro_verdict(&st, &hst, 32, &v), 0);
	assert_false(v.holds);
	assert_int_equal(sp_repro_verdict_published(&st, &hst, 32, &v), 0);
	assert_true(v.holds);
}

static void targets_follow_the_issue_table(void **state)
{
	(void)state;
	assert_float_equal(sp_repro_tvd_target(SP_REF_ST, 2), 0.01, 0);
	assert_float_equal(sp_repro_tvd_target(SP_REF_HST, 1), 0.05, 0);
	assert_float_equal(sp_repro_tvd_target(SP_REF_HST, 1), 0.05, 0);
	assert_float_equal(sp_repro_tvd_target(SP_REF_HST, 2), 0.05, 0);
	assert_float_equal(sp_repro_tvd_target(SP_REF_HST, 8), -1, 0);
	assert_float_equal(sp_repro_tvd_target(SP_REF_HST, 64), 0.08, 0);
}

/* A case run again for a smaller error sits beside the first run: the
 * report takes the one with more I/O, whichever folder came first, and
 * never another selector's, iodepth's or rw's. */
static void the_longer_run_of_a_case_is_the_one_judged(void **state)
{
	struct sp_case_result c[5];
	size_t i;

	(void)state;
	as_published(find("u10", "read", 2, SP_REF_HST), "read", &c[0]);
	as_published(find("u10", "read", 2, SP_REF_ST), "read", &c[1]);
	c[2] = c[0];				/* run again: 10x the I/O */
	for (i = 0; i < c[2].n_paths; i++)
		c[2].path[i].v[SP_DS_READS] *= 10;
	c[3] = c[2];				/* even more, but qd 1 */
	c[3].iodepth = 1;
	for (i = 0; i < c[3].n_paths; i++)
		c[3].path[i].v[SP_DS_READS] *= 10;
	c[4] = c[3];				/* and randread at qd 2 */
	c[4].iodepth = 2;
	snprintf(c[4].rw, sizeof(c[4].rw), "randread");

	assert_ptr_equal(sp_repro_find_case(c, 5, "u10", "read", 2, "hst"), &c[2]);
	assert_ptr_equal(sp_repro_find_case(c, 5, "u10", "read", 2, "st"), &c[1]);
	assert_ptr_equal(sp_repro_find_case(c, 5, "u10", "read", 1, "hst"), &c[3]);
	assert_ptr_equal(sp_repro_find_case(c, 5, "u10", "randread", 2, "hst"), &c[4]);
	/* the longer one first: still the longer one */
	c[0] = c[2];
	as_published(find("u10", "read", 2, SP_REF_HST), "read", &c[2]);
	assert_ptr_equal(sp_repro_find_case(c, 5, "u10", "read", 2, "hst"), &c[0]);
	assert_null(sp_repro_find_case(c, 5, "u10", "read", 32, "hst"));
	assert_null(sp_repro_find_case(c, 5, "skew4", "read", 2, "hst"));
	assert_null(sp_repro_find_case(c, 0, "u10", "read", 2, "hst"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_published_run_matches_itself),
		cmocka_unit_test(moving_io_moves_the_distance),
		cmocka_unit_test(the_direction_follows_the_rw_mode),
		cmocka_unit_test(path_count_mismatch_is_refused),
		cmocka_unit_test(the_published_conclusion_holds_in_the_published_data),
		cmocka_unit_test(the_published_exception_is_reported),
		cmocka_unit_test(the_published_verdict_ignores_the_measurement),
		cmocka_unit_test(targets_follow_the_issue_table),
		cmocka_unit_test(the_longer_run_of_a_case_is_the_one_judged),
	};

	return cmocka_run_group_tests(tests, load_reference, free_reference);
}
