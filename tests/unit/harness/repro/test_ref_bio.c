/* hst-bio-2022 (harness/repro/ref_bio.h, repro_bio.h): the published
 * table as data, the best split, the scoring of the slow paths' share
 * and the commit's conclusion, and the report's columns picked from the
 * runs' cases by selector and HST build (mock ops). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/measure/case_result.h"
#include "harness/repro/ref_bio.h"
#include "harness/repro/repro_bio.h"

static const double u10[SP_BIO_N_PATHS] = { 1, 1, 1, 4, 8, 8, 16, 16, 1, 1 };
static const int u10_slow[SP_BIO_N_PATHS] = { 0, 0, 0, 1, 1, 1, 1, 1, 0, 0 };

static void the_published_table_loads(void **state)
{
	struct sp_bio_table t;
	double m[SP_BIO_N_COLS][SP_BIO_N_PATHS] = { { 0 } };
	int have[SP_BIO_N_COLS] = { 0 };
	struct sp_bio_score s;

	(void)state;
	assert_int_equal(sp_bio_load(SP_BIO_DEFAULT_DATA, &t), 0);
	assert_int_equal(t.n_paths, 10);
	assert_string_equal(t.dev[0], "sdd");
	assert_string_equal(t.dev[9], "sdm");
	assert_float_equal(t.share[SP_BIO_HST_BEFORE][0], 0.20, 1e-9);
	assert_float_equal(t.share[SP_BIO_BEST][3], 0.04, 1e-9);
	/* the four numbers the commit is about: the slow paths' totals */
	assert_int_equal(sp_bio_score(&t, m, have, u10_slow, 10, &s), 0);
	assert_float_equal(s.col[SP_BIO_ST].published_slow, 0.16, 1e-9);
	assert_float_equal(s.col[SP_BIO_HST_BEFORE].published_slow, 0.00, 1e-9);
	assert_float_equal(s.col[SP_BIO_HST_AFTER].published_slow, 0.14, 1e-9);
	assert_float_equal(s.col[SP_BIO_BEST].published_slow, 0.10, 1e-9);
	assert_int_equal(s.holds, -1);	/* nothing was run */
}

static void bad_tables_are_one_message(void **state)
{
	struct sp_bio_table t;

	(void)state;
	assert_int_equal(sp_bio_parse("path\tST\tHST_before\tHST_after\tbest\n"
				      "sdd 0.1 0.2 0.3\n", "t.tsv", &t), -EINVAL);
	assert_int_equal(t.n_paths, 0);
	assert_int_equal(sp_bio_parse("sdd 0.1 0.2 0.3 1.5\n", "t.tsv", &t),
			 -EINVAL);
	assert_int_equal(sp_bio_parse("sdd 0.1 0.2 0.3 nan\n", "t.tsv", &t),
			 -EINVAL);
	assert_int_equal(sp_bio_parse("sdd 0.1 0.2 0.3 0.4 x\n", "t.tsv", &t),
			 -EINVAL);
	/* a whole table, but not of ten paths */
	assert_int_equal(sp_bio_parse("a 0 0 0 0\nb 0 0 0 0\n", "t.tsv", &t),
			 -EINVAL);
}

/* 1 / cost gives the published best column to its two decimals */
static void the_best_split_is_the_published_one(void **state)
{
	struct sp_bio_table t;
	double best[SP_BIO_N_PATHS], zero[2] = { 1, 0 };
	size_t i;

	(void)state;
	assert_int_equal(sp_bio_load(SP_BIO_DEFAULT_DATA, &t), 0);
	assert_int_equal(sp_bio_best_split(u10, 10, best), 0);
	for (i = 0; i < 10; i++)
		assert_float_equal(best[i], t.share[SP_BIO_BEST][i], 0.005);
	assert_float_equal(best[0], 1 / 5.625, 1e-12);
	assert_int_equal(sp_bio_best_split(zero, 2, best), -EINVAL);
	assert_int_equal(sp_bio_best_split(u10, 0, best), -EINVAL);
}

/* Measured as published: TVD ~0 and the conclusion holds; an HST
 * before the fix that does not starve, or an after that stays low, is
 * no reproduction of it. */
static void the_conclusion_is_judged(void **state)
{
	struct sp_bio_table t;
	double m[SP_BIO_N_COLS][SP_BIO_N_PATHS];
	int have[SP_BIO_N_COLS] = { 1, 1, 1, 1 }, c;
	struct sp_bio_score s;
	size_t i;

	(void)state;
	assert_int_equal(sp_bio_load(SP_BIO_DEFAULT_DATA, &t), 0);
	for (c = 0; c < SP_BIO_N_COLS; c++) {
		double sum = 0;

		for (i = 0; i < 10; i++)
			sum += t.share[c][i];
		for (i = 0; i < 10; i++)
			m[c][i] = t.share[c][i] / sum;
	}
	assert_int_equal(sp_bio_score(&t, m, have, u10_slow, 10, &s), 0);
	for (c = 0; c < SP_BIO_N_COLS; c++)
		assert_true(s.col[c].tvd < 1e-9);
	assert_float_equal(s.col[SP_BIO_HST_AFTER].measured_slow, 0.14 / 0.99, 1e-9);
	assert_int_equal(s.holds, 1);
	assert_non_null(strstr(s.why, "starves"));
	/* before the fix as ST: it does not starve the slow paths */
	memcpy(m[SP_BIO_HST_BEFORE], m[SP_BIO_ST], sizeof(m[0]));
	assert_int_equal(sp_bio_score(&t, m, have, u10_slow, 10, &s), 0);
	assert_int_equal(s.holds, 0);
	assert_non_null(strstr(s.why, "does not starve"));
	assert_true(s.col[SP_BIO_HST_BEFORE].tvd > 0.1);
	/* after the fix as before it: not restored, not alike ST */
	assert_int_equal(sp_bio_load(SP_BIO_DEFAULT_DATA, &t), 0);
	memcpy(m[SP_BIO_HST_BEFORE], t.share[SP_BIO_HST_BEFORE], sizeof(m[0]));
	memcpy(m[SP_BIO_HST_AFTER], t.share[SP_BIO_HST_BEFORE], sizeof(m[0]));
	assert_int_equal(sp_bio_score(&t, m, have, u10_slow, 10, &s), 0);
	assert_int_equal(s.holds, 0);
	assert_non_null(strstr(s.why, "not alike"));
	/* the path count is the table's */
	assert_int_equal(sp_bio_score(&t, m, have, u10_slow, 9, &s), -EINVAL);
}

/* --- the report's columns from the runs' cases, through mock ops --- */

static char said[4096];

static void fill_case(struct sp_case_result *c, const char *sel,
		      const char *build, const double *share)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	snprintf(c->topology, sizeof(c->topology), "u10-bio");
	snprintf(c->selector, sizeof(c->selector), "%s", sel);
	snprintf(c->rw, sizeof(c->rw), "randwrite");
	c->iodepth = 64;
	c->n_paths = 10;
	snprintf(c->env.hst_build, sizeof(c->env.hst_build), "%s", build);
	for (i = 0; i < 10; i++) {
		c->path[i].v[SP_DS_WRITES] = (uint64_t)(share[i] * 100000);
		c->delay_ns[i] = (int64_t)(u10[i] * 5000000);
		c->slow[i] = u10_slow[i];
		snprintf(c->label[i], sizeof(c->label[i]), "p%zu", i + 1);
	}
}

static int mock_load(void *ctx, const char *dir, struct sp_case_result **cases,
		     size_t *n)
{
	static const double st[10] = { .17, .17, .17, .06, .03, .03, .02, .02, .17, .16 };
	static const double before[10] = { .2, .2, .2, 0, 0, 0, 0, 0, .2, .2 };
	static const double after[10] = { .17, .17, .17, .06, .03, .03, .01, .01, .18, .17 };
	int wrong_build = ctx != NULL;

	*cases = calloc(3, sizeof(**cases));
	if (strstr(dir, "/runs/after")) {
		/* a prebio HST among the after run's is not its column */
		fill_case(&(*cases)[0], "historical-service-time", "prebio", before);
		fill_case(&(*cases)[1], "service-time", "stock", st);
		fill_case(&(*cases)[2], "historical-service-time",
			  wrong_build ? "5.8" : "stock", after);
		*n = 3;
	} else {
		fill_case(&(*cases)[0], "historical-service-time", "prebio", before);
		*n = 1;
	}
	return 0;
}

static void mock_say(void *ctx, const char *line)
{
	(void)ctx;
	strncat(said, line, sizeof(said) - strlen(said) - 2);
	strcat(said, "\n");
}

static void the_report_takes_each_column_from_its_run(void **state)
{
	struct sp_repro_ops ops = { .load_cases = mock_load, .say = mock_say };
	struct sp_repro_bio_opts o = { .ios = 20000, .host = "h" };
	char dir[] = "/tmp/test_ref_bio.XXXXXX", path[PATH_MAX], *text;
	struct sp_bio_table t;
	struct sp_bio_score s;
	FILE *f;
	long len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sp_bio_load(SP_BIO_DEFAULT_DATA, &t), 0);
	said[0] = '\0';
	assert_int_equal(sp_repro_bio_report(&ops, &o, &t, dir, 320, &s), 0);
	assert_float_equal(s.col[SP_BIO_ST].measured_slow, 0.16 / 1.00, 0.002);
	assert_float_equal(s.col[SP_BIO_HST_BEFORE].measured_slow, 0, 1e-9);
	assert_float_equal(s.col[SP_BIO_HST_AFTER].measured_slow, 0.14, 0.002);
	assert_float_equal(s.col[SP_BIO_BEST].measured_slow, 0.625 / 5.625, 1e-9);
	assert_int_equal(s.holds, 1);
	assert_non_null(strstr(said, "HST before the fix 0.000 (0.00)"));
	snprintf(path, sizeof(path), "%s/report.md", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_non_null(strstr(text, "| published | 0.16 | 0.00 | 0.14 | 0.10 |"));
	assert_non_null(strstr(text, "up 320 s"));
	assert_non_null(strstr(text, "| p4 (sdg) | 20ms | yes |"));
	assert_non_null(strstr(text, "holds"));
	free(text);
	/* written again over itself; an after run without a stock HST
	 * case is one message, no report */
	assert_int_equal(sp_repro_bio_report(&ops, &o, &t, dir, -1, NULL), 0);
	ops.ctx = (void *)1;
	assert_int_equal(sp_repro_bio_report(&ops, &o, &t, dir, -1, NULL), -ENOENT);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_published_table_loads),
		cmocka_unit_test(bad_tables_are_one_message),
		cmocka_unit_test(the_best_split_is_the_published_one),
		cmocka_unit_test(the_conclusion_is_judged),
		cmocka_unit_test(the_report_takes_each_column_from_its_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
