/* Unit tests of harness/repro/ref_cover_letter.c: the cover letter's table as
 * published cases, scored by repro_compare.c as the 2020 tables are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/repro/ref_cover_letter.h"
#include "harness/repro/repro_compare.h"

static struct sp_ref_topologies topos;

static int load_topos(void **state)
{
	char err[512];

	(void)state;
	return sp_ref_topologies_load("topologies", &topos, err, sizeof(err));
}

static void the_data_file_loads(void **state)
{
	struct sp_reference ref;
	const struct sp_ref_case *c;
	double s[SP_REF_MAX_PATHS];

	(void)state;
	assert_int_equal(sp_cover_load(SP_COVER_DEFAULT_DATA, &topos, &ref), 0);
	assert_int_equal(ref.n_cases, 4);
	c = sp_ref_find(&ref, "skew4", SP_REF_RANDWRITE, 64, SP_REF_ST);
	assert_non_null(c);
	assert_int_equal(c->n_paths, 4);
	assert_int_equal(sp_ref_shares(c, s), 0);
	/* the slow path (4) has the published share, the rest split */
	assert_float_equal(s[3], 0.106, 1e-5);
	assert_float_equal(s[0], 0.894 / 3, 1e-5);
	c = sp_ref_find(&ref, "skew4", SP_REF_RANDWRITE, 1, SP_REF_HST);
	assert_int_equal(sp_ref_shares(c, s), 0);
	assert_float_equal(s[3], 0.112, 1e-5);
	assert_null(sp_ref_find(&ref, "skew4", SP_REF_RANDWRITE, 2, SP_REF_ST));
	sp_ref_free(&ref);
}

static void bad_rows_name_their_line(void **state)
{
	struct sp_reference ref;

	(void)state;
	assert_int_equal(sp_cover_parse("topology\trw\tiodepth\tselector\tslow_share\n"
					 "skew4\trandwrite\t1\tST\t1.5\n", "x.tsv",
					 &topos, &ref), -EINVAL);
	assert_int_equal(sp_cover_parse("skew4\trandwrite\t1\tXX\t0.2\n", "x.tsv",
					 &topos, &ref), -EINVAL);
	/* equal3 has no slow path to put a share on */
	assert_int_equal(sp_cover_parse("equal3\trandwrite\t1\tST\t0.2\n", "x.tsv",
					 &topos, &ref), -EINVAL);
	assert_int_equal(sp_cover_parse("# nothing\n", "x.tsv", &topos, &ref),
			 -EINVAL);
}

/* A line longer than the parser's buffer is refused, never cut to a
 * shorter one that parses (before: 0.2 and 290 zeros read as 0.2). */
static void a_line_too_long_is_refused(void **state)
{
	struct sp_reference ref;
	char text[400];

	(void)state;
	snprintf(text, sizeof(text), "skew4\trandwrite\t1\tST\t0.2%0290d\n", 0);
	assert_int_equal(sp_cover_parse(text, "x.tsv", &topos, &ref), -EINVAL);
	snprintf(text, sizeof(text), "skew4\trandwrite\t1\tST\t0.2%010d\n", 0);
	assert_int_equal(sp_cover_parse(text, "x.tsv", &topos, &ref), 0);
	sp_ref_free(&ref);
}

/* A measured case with these per-path writes. */
static void measured(struct sp_case_result *m, const char *sel, int qd,
		     const uint64_t *w)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	snprintf(m->topology, sizeof(m->topology), "skew4");
	snprintf(m->rw, sizeof(m->rw), "randwrite");
	snprintf(m->selector, sizeof(m->selector), "%s", sel);
	m->iodepth = qd;
	m->n_paths = 4;
	for (i = 0; i < 4; i++)
		m->path[i].v[SP_DS_WRITES] = w[i];
}

static void scored_as_the_2020_tables(void **state)
{
	struct sp_reference ref;
	struct sp_case_result st, hst;
	struct sp_repro_row rst, rhst;
	struct sp_repro_verdict v;
	uint64_t even[4] = { 2500, 2500, 2500, 2500 };
	uint64_t avoid[4] = { 3000, 3000, 2900, 1100 };

	(void)state;
	assert_int_equal(sp_cover_load(SP_COVER_DEFAULT_DATA, &topos, &ref), 0);
	measured(&st, "service-time", 1, even);
	measured(&hst, "historical-service-time", 1, avoid);
	assert_int_equal(sp_repro_compare(sp_ref_find(&ref, "skew4",
		SP_REF_RANDWRITE, 1, SP_REF_ST), &st, &rst), 0);
	assert_int_equal(sp_repro_compare(sp_ref_find(&ref, "skew4",
		SP_REF_RANDWRITE, 1, SP_REF_HST), &hst, &rhst), 0);
	assert_float_equal(rst.tvd, 0, 1e-9);
	assert_true(rst.meets_target);
	/* slow 0.112 -> 0.110, the fast ones 0.296 -> 0.300 x2, 0.290:
	 * (0.002 + 0.004 + 0.004 + 0.006) / 2 */
	assert_float_equal(rhst.tvd, 0.008, 1e-4);
	assert_float_equal(rhst.slow_published, 0.112, 1e-5);
	assert_float_equal(rhst.tvd_target, 0.05, 1e-12);
	assert_int_equal(sp_repro_verdict(&rst, &rhst, 1, &v), 0);
	assert_int_equal(v.claim, SP_CLAIM_HST_AVOIDS);
	assert_true(v.holds);
	sp_ref_free(&ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_data_file_loads),
		cmocka_unit_test(bad_rows_name_their_line),
		cmocka_unit_test(a_line_too_long_is_refused),
		cmocka_unit_test(scored_as_the_2020_tables),
	};

	return cmocka_run_group_tests(tests, load_topos, NULL);
}
