#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/log.h"
#include "harness/measure/diskstats.h"
#include "harness/measure/fio_json.h"

#include "tests/unit/log_capture.h"

static int setup(void **state)
{
	(void)state;
	capture_start(SP_LOG_WARN);
	return 0;
}

static int load(const char *rel, struct sp_fio_result *r)
{
	const char *src = getenv("SRCDIR");
	char path[1024];
	char *text = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/tests/fixtures/fio/%s",
		 src ? src : ".", rel);
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &text, NULL), 0);
	ret = sp_fio_parse(text, rel, r);
	free(text);
	return ret;
}

static void single_job_randread(void **state)
{
	struct sp_fio_result r;
	const struct sp_fio_dir *rd;

	(void)state;
	assert_int_equal(load("randread-psync-1job.json", &r), 0);
	assert_string_equal(r.version, "fio-3.33");
	assert_int_equal(r.n_jobs, 1);
	assert_int_equal(r.pct_kind, SP_FIO_PCT_EXACT);
	rd = &r.total.dir[SP_FIO_READ];
	assert_int_equal(rd->ios, 4096);
	assert_int_equal(rd->bytes, 16777216);
	assert_float_equal(rd->iops, 11669.51567, 1e-6);
	assert_float_equal(rd->lat_mean_us, 84.80680542, 1e-6);
	/* percentiles are ordered, and completion is within total latency */
	assert_true(rd->clat_p50_us > 0);
	assert_true(rd->clat_p50_us <= rd->clat_p99_us);
	assert_true(rd->clat_p99_us <= rd->clat_p999_us);
	assert_true(rd->clat_mean_us <= rd->lat_mean_us);
	/* no writes: zero count, no percentiles */
	assert_int_equal(r.total.dir[SP_FIO_WRITE].ios, 0);
	assert_true(r.total.dir[SP_FIO_WRITE].clat_p99_us < 0);
	assert_int_equal(r.total.error, 0);
	assert_int_equal(n_err, 0);
	sp_fio_result_free(&r);
}

static void two_jobs_sum_and_weight(void **state)
{
	struct sp_fio_result r;
	const struct sp_fio_dir *t, *a, *b;

	(void)state;
	assert_int_equal(load("randrw-2jobs.json", &r), 0);
	assert_int_equal(r.n_jobs, 2);
	assert_int_equal(r.group_reporting, 0);
	assert_int_equal(r.pct_kind, SP_FIO_PCT_MAX);
	a = &r.jobs[0].dir[SP_FIO_READ];
	b = &r.jobs[1].dir[SP_FIO_READ];
	t = &r.total.dir[SP_FIO_READ];
	assert_int_equal(a->ios, 14508);
	assert_int_equal(b->ios, 14384);
	assert_int_equal(t->ios, 14508 + 14384);
	assert_float_equal(t->iops, 14493.506494 + 14369.63037, 1e-6);
	assert_float_equal(t->bw_kib, 57974 + 57478, 1e-9);
	assert_float_equal(t->clat_mean_us,
			   (53.040194996 * 14508 + 53.478256813 * 14384) / 28892,
			   1e-6);
	assert_float_equal(t->clat_p99_us, 234.496, 1e-9);	/* the worse job */
	assert_float_equal(t->clat_p999_us, 602.112, 1e-9);
	assert_int_equal(t->runtime_ms, 1001);
	assert_int_equal(r.total.dir[SP_FIO_WRITE].ios, 14440 + 14599);
	sp_fio_result_free(&r);
}

static void group_reporting_percentiles_are_exact(void **state)
{
	struct sp_fio_result r;

	(void)state;
	assert_int_equal(load("randrw-2jobs-group.json", &r), 0);
	assert_int_equal(r.n_jobs, 1);
	assert_int_equal(r.group_reporting, 1);
	assert_int_equal(r.pct_kind, SP_FIO_PCT_EXACT);
	assert_int_equal(r.total.dir[SP_FIO_READ].ios, 17165);
	sp_fio_result_free(&r);
}

static void job_error_after_warning_lines(void **state)
{
	struct sp_fio_result r;

	(void)state;
	assert_int_equal(load("error-readonly-missing.json", &r), 0);
	assert_int_equal(r.jobs[0].error, 2);
	assert_int_equal(r.total.error, 2);
	assert_int_equal(r.total.dir[SP_FIO_READ].ios, 0);
	sp_fio_result_free(&r);
}

/* continue_on_error: the count and the first errno in the JSON, which
 * blocks failed to verify only on stderr */
static void counted_errors_and_verify_failures(void **state)
{
	const char *src = getenv("SRCDIR");
	struct sp_fio_result r;
	char path[1024], *text = NULL;

	(void)state;
	assert_int_equal(load("verify-errors.json", &r), 0);
	assert_true(r.jobs[0].has_total_err);
	assert_int_equal(r.total.total_err, 2);
	assert_int_equal(r.total.first_error, 84);
	assert_int_equal(r.total.error, 84);
	sp_fio_result_free(&r);
	snprintf(path, sizeof(path), "%s/tests/fixtures/fio/verify-errors.stderr",
		 src ? src : ".");
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &text, NULL), 0);
	assert_int_equal(sp_fio_verify_errors(text), 2);
	free(text);
	assert_int_equal(sp_fio_verify_errors("verify: bad magic header 0, "
					      "wanted acca\nfio: io_u error\n"
					      "verify: bad header offset 1\n"), 2);
	assert_int_equal(sp_fio_verify_errors(""), 0);
	/* without continue_on_error fio prints no count */
	assert_int_equal(load("randread-psync-1job.json", &r), 0);
	assert_false(r.total.has_total_err);
	sp_fio_result_free(&r);
}

static void bad_inputs_say_why_once(void **state)
{
	struct sp_fio_result r;

	(void)state;
	assert_int_equal(load("truncated.json", &r), -EINVAL);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "truncated.json"));
	assert_non_null(strstr(last_err, "ends early"));
	assert_int_equal(load("malformed.json", &r), -EINVAL);
	assert_int_equal(n_err, 2);
	assert_non_null(strstr(last_err, "malformed"));
	assert_int_equal(load("not-fio.json", &r), -EINVAL);
	assert_non_null(strstr(last_err, "\"jobs\""));
	assert_int_equal(sp_fio_parse("fio: nothing ran\n", "stdout", &r), -EINVAL);
	assert_non_null(strstr(last_err, "no JSON object"));
	assert_int_equal(sp_fio_parse("{\"jobs\":[{\"jobname\":\"j\",\"error\":0}]}",
				      "x", &r), -EINVAL);
	assert_non_null(strstr(last_err, "job 0"));
	assert_non_null(strstr(last_err, "\"read\""));
	assert_int_equal(n_err, 5);
}

static void disk_util_of_dm_and_slaves(void **state)
{
	struct sp_fio_result r;
	const struct sp_fio_disk *dm, *sdb;

	(void)state;
	assert_int_equal(load("handmade-dm-disk-util.json", &r), 0);
	assert_int_equal(r.n_disks, 4);
	dm = sp_fio_disk_find(&r, "dm-0");
	sdb = sp_fio_disk_find(&r, "sdb");
	assert_non_null(dm);
	assert_non_null(sdb);
	assert_true(dm->has_aggr);
	assert_false(sdb->has_aggr);
	assert_int_equal(dm->read_ios, 128030);
	assert_int_equal(dm->aggr_read_ios, 128030 / 3);
	assert_int_equal(sdb->read_ios, 42677);
	assert_null(sp_fio_disk_find(&r, "sdz"));
	sp_fio_result_free(&r);
}

static void disk_util_tolerance_follows_runtime(void **state)
{
	(void)state;
	/* 250 ms missed at each end of a 2 s run is a quarter of it */
	assert_float_equal(sp_fio_disk_util_tolerance(2000), 0.25, 1e-12);
	assert_float_equal(sp_fio_disk_util_tolerance(600000), 0.02, 1e-12);
	assert_float_equal(sp_fio_disk_util_tolerance(100), 1.0, 1e-12);
	assert_float_equal(sp_fio_disk_util_tolerance(0), 1.0, 1e-12);
}

static void crosscheck_against_diskstats(void **state)
{
	struct sp_fio_result r;

	(void)state;
	assert_int_equal(load("handmade-dm-disk-util.json", &r), 0);
	assert_int_equal(sp_fio_crosscheck(&r, "sda", 42676, 0, 0.01), 0);
	/* a few I/Os at the edges of fio's window are normal */
	assert_int_equal(sp_fio_crosscheck(&r, "sda", 42700, 1, 0.01), 0);
	assert_int_equal(n_err, 0);
	/* a path credited with another's I/O is not */
	assert_int_equal(sp_fio_crosscheck(&r, "sdc", 30000, 0, 0.01), -EDOM);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "sdc"));
	assert_non_null(strstr(last_err, "42677"));
	assert_int_equal(sp_fio_crosscheck(&r, "sdc", 42677, 500, 0.01), -EDOM);
	assert_int_equal(sp_fio_crosscheck(&r, "sdq", 1, 1, 0.01), -ENOENT);
	/* the map carried exactly what fio completed */
	assert_int_equal(sp_fio_crosscheck_total(&r, "dm-0", 128030, 0, 0.02), 0);
	assert_int_equal(sp_fio_crosscheck_total(&r, "dm-0", 64000, 0, 0.02), -EDOM);
	sp_fio_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(single_job_randread, setup),
		cmocka_unit_test_setup(two_jobs_sum_and_weight, setup),
		cmocka_unit_test_setup(group_reporting_percentiles_are_exact, setup),
		cmocka_unit_test_setup(job_error_after_warning_lines, setup),
		cmocka_unit_test_setup(bad_inputs_say_why_once, setup),
		cmocka_unit_test_setup(counted_errors_and_verify_failures, setup),
		cmocka_unit_test_setup(disk_util_of_dm_and_slaves, setup),
		cmocka_unit_test_setup(crosscheck_against_diskstats, setup),
		cmocka_unit_test_setup(disk_util_tolerance_follows_runtime, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
