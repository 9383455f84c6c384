#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "harness/measure/compare.h"

/* errors and warnings */
#include "tests/unit/log_capture.h"
#include "tests/unit/harness/measure/case_fixture.h"

static int setup(void **state)
{
	(void)state;
	capture_start(SP_LOG_WARN);
	return 0;
}

/* HST moves I/O off the slow path: the comparison must say so. */
static void compare_measures_the_shift(void **state)
{
	struct sp_case_result st, hst;
	struct sp_case_pair p = { &st, &hst };
	struct sp_comparison cmp;

	(void)state;
	filled_pair(&st, &hst, 1);
	assert_int_equal(sp_compare(&p, &cmp), 0);
	assert_int_equal(cmp.n_paths, 3);
	assert_float_equal(cmp.slow_share_a, 42677.0 / 128030.0, 1e-9);
	assert_float_equal(cmp.slow_share_b, 32677.0 / 128030.0, 1e-9);
	assert_float_equal(cmp.tv, 10000.0 / 128030.0, 1e-9);
	assert_float_equal(cmp.share_b[0], 52676.0 / 128030.0, 1e-9);
	assert_float_equal(cmp.lat_b.iops, 2 * cmp.lat_a.iops, 1e-9);
	assert_int_equal(n_err, 0);
}

/* The service times are those of the per-case summary, read and write
 * ticks over all I/Os; slow in either case is slow in the pair. */
static void compare_takes_the_summary_service_times(void **state)
{
	struct sp_case_result st, hst;
	struct sp_case_pair p = { &st, &hst };
	struct sp_path_summary sum[3];
	struct sp_comparison cmp;
	size_t i;

	(void)state;
	filled_pair(&st, &hst, 0);
	hst.path[1].v[SP_DS_WRITES] = 100;
	hst.path[1].v[SP_DS_WTICKS] = 900;
	st.slow[2] = 0;
	hst.slow[0] = 1;
	assert_int_equal(sp_compare(&p, &cmp), 0);
	assert_int_equal(sp_diskstats_summarise(hst.path, 3, sum), 0);
	for (i = 0; i < 3; i++)
		assert_float_equal(cmp.svc_ms_b[i], sum[i].svc_ms, 0);
	assert_float_equal(cmp.svc_ms_b[1],
			   (double)(hst.path[1].v[SP_DS_RTICKS] + 900) /
			   (double)(hst.path[1].v[SP_DS_READS] + 100), 1e-12);
	assert_float_equal(cmp.svc_ms_a[0], 59032.0 / 42676.0, 1e-9);
	assert_int_equal(cmp.slow[0], 1);
	assert_int_equal(cmp.slow[1], 0);
	assert_int_equal(cmp.slow[2], 1);
	/* a path that saw nothing has no service time */
	hst.path[1].v[SP_DS_READS] = hst.path[1].v[SP_DS_WRITES] = 0;
	assert_int_equal(sp_compare(&p, &cmp), 0);
	assert_true(cmp.svc_ms_b[1] < 0);
}

static void compare_refuses_different_paths(void **state)
{
	struct sp_case_result st, hst;
	struct sp_case_pair p = { &st, &hst };
	struct sp_comparison cmp;

	(void)state;
	filled_pair(&st, &hst, 0);
	strcpy(hst.path[1].name, "sdx");
	assert_int_equal(sp_compare(&p, &cmp), -EINVAL);
	assert_non_null(strstr(last_err, "sdx"));
	hst.n_paths = 2;
	assert_int_equal(sp_compare(&p, &cmp), -EINVAL);
	assert_non_null(strstr(last_err, "3 paths against 2"));
}

static void compare_refuses_a_case_without_io(void **state)
{
	struct sp_case_result st, hst;
	struct sp_case_pair p = { &st, &hst };
	struct sp_comparison cmp;
	size_t i;

	(void)state;
	filled_pair(&st, &hst, 0);
	hst.iodepth = 8;	/* the message names the idle case */
	for (i = 0; i < hst.n_paths; i++)
		hst.path[i].v[SP_DS_READS] = 0;
	assert_int_equal(sp_compare(&p, &cmp), -EINVAL);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "three randread qd8: a case with no I/O"));
	assert_int_equal(cmp.n_paths, 0);
}

/* Mean weighted by I/O count, p99 the worse direction that saw I/O. */
static void latency_weighs_both_directions(void **state)
{
	struct sp_case_result c;
	struct sp_case_latency lat;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.fio.dir[SP_FIO_READ] = (struct sp_fio_dir){ .ios = 300, .iops = 30,
		.clat_mean_us = 100, .clat_p99_us = 400 };
	c.fio.dir[SP_FIO_WRITE] = (struct sp_fio_dir){ .ios = 100, .iops = 10,
		.clat_mean_us = 500, .clat_p99_us = 900 };
	sp_case_latency(&c, &lat);
	assert_float_equal(lat.iops, 40, 1e-12);
	assert_float_equal(lat.mean_us, 200, 1e-12);
	assert_float_equal(lat.p99_us, 900, 1e-12);
	/* a direction without I/O does not lend its p99 */
	c.fio.dir[SP_FIO_WRITE].ios = 0;
	sp_case_latency(&c, &lat);
	assert_float_equal(lat.mean_us, 100, 1e-12);
	assert_float_equal(lat.p99_us, 400, 1e-12);
	c.fio.dir[SP_FIO_READ].ios = 0;
	sp_case_latency(&c, &lat);
	assert_true(lat.mean_us < 0);
	assert_true(lat.p99_us < 0);
}

static void pairing_matches_points(void **state)
{
	struct sp_case_result c[4];
	struct sp_case_pair pairs[4];

	(void)state;
	filled_case(&c[0], "historical-service-time");
	filled_case(&c[1], "service-time");
	filled_case(&c[2], "service-time");
	c[2].iodepth = 32;		/* no hst partner */
	filled_case(&c[3], "round-robin");
	assert_int_equal(sp_pair_cases(c, 4, "st", "hst", pairs), 1);
	assert_ptr_equal(pairs[0].a, &c[1]);
	assert_ptr_equal(pairs[0].b, &c[0]);
	assert_int_equal(sp_pair_cases(c, 4, "rr", "service-time", pairs), 1);
	assert_ptr_equal(pairs[0].b, &c[1]);
}

/* Latency plots walk one series (topology, rw, bs, numjobs) by
 * increasing iodepth, whatever order the pairs came in. */
static void series_walk_by_iodepth(void **state)
{
	static const int qd[] = { 32, 1, 8, 1, 2 };
	struct sp_case_result c[5][2];
	struct sp_case_pair pairs[5];
	size_t i, order[5], k = 0;

	(void)state;
	for (i = 0; i < 5; i++) {
		filled_pair(&c[i][0], &c[i][1], 0);
		c[i][0].iodepth = c[i][1].iodepth = qd[i];
		pairs[i] = (struct sp_case_pair){ &c[i][0], &c[i][1] };
	}
	c[3][0].numjobs = c[3][1].numjobs = 4;	/* a series of its own */
	assert_true(sp_pair_same_series(&pairs[0], &pairs[4]));
	assert_false(sp_pair_same_series(&pairs[1], &pairs[3]));
	assert_true(sp_pair_first_of_series(pairs, 0));
	assert_false(sp_pair_first_of_series(pairs, 2));
	assert_true(sp_pair_first_of_series(pairs, 3));
	for (i = sp_pair_series_next(pairs, 5, 2, 0); i < 5;
	     i = sp_pair_series_next(pairs, 5, 2, pairs[i].a->iodepth))
		order[k++] = i;
	assert_int_equal(k, 4);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 4);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 0);
	assert_int_equal(sp_pair_series_next(pairs, 5, 3, 0), 3);
	assert_int_equal(sp_pair_series_next(pairs, 5, 3, 1), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(compare_measures_the_shift, setup),
		cmocka_unit_test_setup(compare_takes_the_summary_service_times, setup),
		cmocka_unit_test_setup(compare_refuses_different_paths, setup),
		cmocka_unit_test_setup(compare_refuses_a_case_without_io, setup),
		cmocka_unit_test_setup(latency_weighs_both_directions, setup),
		cmocka_unit_test_setup(pairing_matches_points, setup),
		cmocka_unit_test_setup(series_walk_by_iodepth, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
