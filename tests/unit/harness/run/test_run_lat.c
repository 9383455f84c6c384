/* harness/run/run_lat: a path's store latency over a case from its two
 * hist readings, and what makes it no answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/lat_hist.h"
#include "common/log.h"
#include "harness/run/run_lat.h"

static char *text_of(const struct sp_lat_hist *h)
{
	size_t need = sp_lat_format(h, NULL, 0);
	char *t = malloc(need + 1);

	sp_lat_format(h, t, need + 1);
	return t;
}

static void quiet(enum sp_log_level lvl, const char *msg, void *ctx)
{
	(void)lvl;
	(void)msg;
	(void)ctx;
}

/* 100 commands of 1 ms before the case, 300 of 2 ms in it: the case's
 * quantiles are its own, not the LUN's since creation */
static void the_case_is_the_difference(void **state)
{
	static struct sp_lat_hist h;
	struct sp_case_lat lat = { 0 };
	char *before, *after;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		sp_lat_add(&h, 1000000);
	before = text_of(&h);
	for (i = 0; i < 300; i++)
		sp_lat_add(&h, 2000000);
	after = text_of(&h);
	assert_int_equal(sp_run_lat_path(before, after, 300, "sda", &lat), 0);
	assert_int_equal(lat.has, 1);
	assert_int_equal(lat.count, 300);
	assert_true(lat.p50_ns >= 1980000 && lat.p50_ns <= 2020000);
	assert_int_equal(lat.p99_ns, lat.p50_ns);

	/* diskstats saw more I/Os than the store's file holds: it lags */
	memset(&lat, 0, sizeof(lat));
	assert_int_equal(sp_run_lat_path(before, after, 301, "sda", &lat), -EINVAL);
	assert_int_equal(lat.has, 0);
	/* the counts went down: a LUN made again mid-case */
	assert_int_equal(sp_run_lat_path(after, before, 0, "sda", &lat), -EINVAL);
	/* a path the case sent nothing to: no distribution, and none
	 * written (a store_lat of count 0 is refused when read back:
	 * run --kernels' merged report failed on one, host/121) */
	assert_int_equal(sp_run_lat_path(after, after, 0, "sda", &lat), -ENODATA);
	assert_int_equal(lat.has, 0);
	/* a hostile file */
	assert_int_equal(sp_run_lat_path("rm -rf /", after, 0, "sda", &lat), -EINVAL);
	assert_int_equal(lat.has, 0);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_case_is_the_difference),
	};

	sp_log_set_hook(quiet, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
