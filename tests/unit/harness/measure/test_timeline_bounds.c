/* Unit tests of the bounds on a timeline's times (issue 23 item 14): a
 * case JSON or timeline TSV carries t_ms/took_ms up to INT64_MAX, and
 * the fault metrics add them. Parsing refuses a time past SP_TL_MS_MAX,
 * naming the file and the value; the metrics of events built directly
 * with such times do not overflow (run under UBSan to see it: make
 * BUILD=build-ubsan CFLAGS="-O1 -g -fsanitize=undefined
 * -fno-sanitize-recover=all" build-ubsan/tests/unit/harness/measure/
 * test_timeline_bounds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "harness/measure/case_faults.h"
#include "harness/measure/timeline.h"
#include "tests/unit/log_capture.h"

static const char *const devs2[] = { "sdb", "dm-0" };

static const char faults_fmt[] =
	"{ \"faults\": { \"verify\": false, \"errors_counted\": true, "
	"\"timeline\": true, \"fio_errors\": 0, \"first_error\": 0, "
	"\"verify_errors\": 0, \"events\": [ { \"t_ms\": %s, \"took_ms\": %s, "
	"\"path\": \"p1\", \"dev\": \"sdb\", \"how\": \"hang\", "
	"\"event\": \"restored\" } ] } }";

/* sp_case_faults_from_json of one event with these times. */
static int parse_times(const char *t_ms, const char *took_ms)
{
	struct sp_case_faults f;
	char text[1024];
	json_object *o;
	int ret;

	snprintf(text, sizeof(text), faults_fmt, t_ms, took_ms);
	o = json_tokener_parse(text);
	assert_non_null(o);
	ret = sp_case_faults_from_json(o, "cases/c.json", &f);
	json_object_put(o);
	return ret;
}

static void case_json_times_bounded(void **state)
{
	char at_max[32], past_max[32];

	(void)state;
	snprintf(at_max, sizeof(at_max), "%" PRId64, (int64_t)SP_TL_MS_MAX);
	snprintf(past_max, sizeof(past_max), "%" PRId64,
		 (int64_t)SP_TL_MS_MAX + 1);
	assert_int_equal(parse_times("1000", "20"), 0);
	assert_int_equal(parse_times(at_max, at_max), 0);

	capture_start(SP_LOG_ERR);
	assert_int_equal(parse_times("9223372036854775807", "0"), -EINVAL);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "cases/c.json"));
	assert_non_null(strstr(last_err, "\"t_ms\""));
	assert_non_null(strstr(last_err, "9223372036854775807"));

	assert_int_equal(parse_times("1000", "9223372036854775807"), -EINVAL);
	assert_non_null(strstr(last_err, "\"took_ms\""));
	assert_non_null(strstr(last_err, "9223372036854775807"));
	assert_int_equal(parse_times("1000", past_max), -EINVAL);
	assert_non_null(strstr(last_err, past_max));
	sp_log_set_hook(NULL, NULL);
}

static void tsv_times_bounded(void **state)
{
	struct sp_timeline tl;
	char text[256];

	(void)state;
	snprintf(text, sizeof(text), "t_ms\tdev\tios_done\tin_flight\tsectors\t"
		 "path_state\n%" PRId64 "\tsdb\t1\t0\t8\tA\n",
		 (int64_t)SP_TL_MS_MAX + 1);
	capture_start(SP_LOG_ERR);
	assert_int_equal(sp_tl_parse_tsv(text, "c.timeline.tsv", &tl), -EINVAL);
	assert_non_null(strstr(last_err, "c.timeline.tsv:2"));
	sp_log_set_hook(NULL, NULL);
}

/* Events from the run loop, not a file: times at INT64_MAX must not
 * make t_ms + took_ms overflow (undefined behaviour). */
static void metrics_do_not_overflow(void **state)
{
	struct sp_tl_sample s = { 0 };
	struct sp_tl_event ev[2];
	struct sp_tl_fault_metrics m[2];
	struct sp_timeline tl;
	size_t n = 0;
	int64_t t;

	(void)state;
	assert_int_equal(sp_tl_init(&tl, devs2, 2), 0);
	for (t = 0; t <= 400; t += 100) {
		s.t_ms = t;
		s.dev = 0;
		s.ios = (uint64_t)t;
		s.state = t >= 200 ? SP_TL_FAILED : SP_TL_ACTIVE;
		assert_int_equal(sp_tl_add(&tl, &s), 0);
		s.dev = 1;
		s.state = SP_TL_UNKNOWN;
		assert_int_equal(sp_tl_add(&tl, &s), 0);
	}
	memset(ev, 0, sizeof(ev));
	ev[0].t_ms = 100;
	ev[0].kind = SP_TL_EV_APPLIED;
	ev[1].t_ms = 300;
	ev[1].took_ms = INT64_MAX;
	ev[1].kind = SP_TL_EV_RESTORED;
	for (int i = 0; i < 2; i++) {
		strcpy(ev[i].path, "p1");
		strcpy(ev[i].dev, "sdb");
		strcpy(ev[i].how, "hang");
	}
	sp_tl_fault_metrics(&tl, ev, 2, m, 2, &n);
	assert_int_equal(n, 1);
	/* failed at 200: 100 ms after the fault, before the restore ended */
	assert_int_equal(m[0].failover_ms, 100);

	ev[0].t_ms = INT64_MAX - 1;
	ev[1].t_ms = INT64_MAX;
	sp_tl_fault_metrics(&tl, ev, 2, m, 2, &n);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].failover_ms, -1);
	assert_int_equal(m[0].reinstate_ms, -1);
	sp_tl_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(case_json_times_bounded),
		cmocka_unit_test(tsv_times_bounded),
		cmocka_unit_test(metrics_do_not_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
