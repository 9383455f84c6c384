/* Unit tests of harness/measure/timeline*.c and case_faults.c: samples
 * from /proc/diskstats text, path states from a multipath status, the
 * TSV round trip, IOPS per interval, stalls, failover and reinstatement
 * per fault on synthetic timelines, and the case JSON's "faults". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure/case_faults.h"
#include "harness/measure/timeline.h"
#include "tests/unit/log_capture.h"

static const char *const devs3[] = { "sdb", "sdc", "dm-0" };

static const char diskstats_t0[] =
	"   8      16 sdb 100 0 800 10 50 0 400 5 1 20 15 0 0 0 0 0 0\n"
	"   8      32 sdc 200 0 1600 10 0 0 0 0 2 20 15 0 0 0 0 0 0\n"
	"   8       0 sda 9 0 9 9 9 0 9 9 0 9 9 0 0 0 0 0 0\n"
	" 253       0 dm-0 300 0 2400 10 50 0 400 5 3 20 15 0 0 0 0 0 0\n";

/* The status of a two-path ST map with sdc failed; ST has two per-path
 * args, queue_if_no_path on. */
static const char status_st[] =
	"0 2097152 multipath 2 1 0 0 1 1 A 0 2 2 8:16 A 0 0 1 8:32 F 3 0 1";

/* One row per device per tick: ios and in_flight of sdb, sdc, dm-0. */
struct row {
	int64_t t;
	uint64_t ios[3];
	uint32_t inf[3];
	char st[2];
};

static void build(struct sp_timeline *tl, const struct row *rows, size_t n)
{
	struct sp_tl_sample s;
	size_t i, d;

	assert_int_equal(sp_tl_init(tl, devs3, 3), 0);
	for (i = 0; i < n; i++)
		for (d = 0; d < 3; d++) {
			memset(&s, 0, sizeof(s));
			s.t_ms = rows[i].t;
			s.dev = (uint32_t)d;
			s.ios = rows[i].ios[d];
			s.in_flight = rows[i].inf[d];
			s.sectors = rows[i].ios[d] * 8;
			s.state = d < 2 ? rows[i].st[d] : '-';
			assert_int_equal(sp_tl_add(tl, &s), 0);
		}
}

static void samples_from_diskstats_and_status(void **state)
{
	struct sp_mpath_path mp[4];
	struct sp_timeline tl;
	struct sp_tl_path_view views[3];
	size_t n;

	(void)state;
	assert_int_equal(sp_mpath_status_parse(status_st, mp, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(mp[0].major, 8);
	assert_int_equal(mp[0].minor, 16);
	assert_true(mp[0].active);
	assert_false(mp[1].active);
	assert_int_equal(mp[1].fail_count, 3);
	/* two groups, a round-robin with one arg per path, no prefix */
	assert_int_equal(sp_mpath_status_parse(
		"2 0 0 0 2 1 A 0 1 1 8:16 A 0 7 E 0 1 1 8:32 F 1 9", mp, 4,
		&n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(mp[1].minor, 32);
	assert_int_equal(sp_mpath_status_parse("0 100 linear 8:0 0", mp, 4, &n),
			 -EINVAL);
	assert_int_equal(sp_mpath_status_parse(
		"0 1 multipath 0 0 1 1 A 0 1 0 8:16 X 0", mp, 4, &n), -EINVAL);

	assert_int_equal(sp_tl_init(&tl, devs3, 3), 0);
	assert_int_equal(sp_mpath_status_parse(status_st, mp, 4, &n), 0);
	sp_tl_path_states(&tl, diskstats_t0, mp, n, views);
	assert_int_equal(views[0].state, 'A');
	assert_int_equal(views[1].state, 'F');
	assert_int_equal(sp_tl_add_diskstats(&tl, 100, diskstats_t0, views), 0);
	assert_int_equal(tl.n, 3);
	assert_int_equal(tl.s[0].ios, 150);	/* reads + writes */
	assert_int_equal(tl.s[0].sectors, 1200);
	assert_int_equal(tl.s[0].in_flight, 1);
	assert_int_equal(tl.s[1].state, 'F');
	assert_int_equal(tl.s[2].state, '-');	/* the map has no state */
	assert_int_equal(tl.s[2].ios, 350);
	/* a device gone from /proc/diskstats is an error, not a zero */
	capture_start(SP_LOG_ERR);
	assert_int_equal(sp_tl_add_diskstats(&tl, 200, "   8 16 sdb 1 0 1 1 1 "
					     "0 1 1 0 1 1\n", NULL), -ENOENT);
	sp_log_set_hook(NULL, NULL);
	sp_tl_free(&tl);
}

static const struct row healthy_then_stall[] = {
	{ 0, { 0, 0, 0 }, { 4, 4, 8 }, "AA" },
	{ 100, { 10, 10, 20 }, { 4, 4, 8 }, "AA" },
	{ 200, { 20, 20, 40 }, { 4, 4, 8 }, "AA" },
	/* sdc hangs at 250: nothing completes on the map from 200 */
	{ 300, { 20, 20, 40 }, { 4, 4, 8 }, "AA" },
	{ 400, { 20, 20, 40 }, { 4, 4, 8 }, "AA" },
	{ 500, { 20, 20, 40 }, { 4, 4, 8 }, "AF" },
	/* the map requeued sdc's I/O onto sdb */
	{ 600, { 40, 20, 60 }, { 8, 0, 8 }, "AF" },
	{ 700, { 60, 20, 80 }, { 8, 0, 8 }, "AF" },
	/* restored at 750; back in the map at 900 */
	{ 800, { 80, 20, 100 }, { 8, 0, 8 }, "AF" },
	{ 900, { 90, 30, 120 }, { 4, 4, 8 }, "AA" },
	/* fio ended: nothing in flight, no completions: idle, no stall */
	{ 1000, { 90, 30, 120 }, { 0, 0, 0 }, "AA" },
	{ 1100, { 90, 30, 120 }, { 0, 0, 0 }, "AA" },
	{ 1200, { 90, 30, 120 }, { 0, 0, 0 }, "AA" },
};

static const struct sp_tl_event hang_events[] = {
	{ 250, 0, "p2", "sdc", "hang", SP_TL_EV_APPLIED },
	{ 750, 0, "p2", "sdc", "hang", SP_TL_EV_RESTORED },
};

static void intervals_and_stall(void **state)
{
	struct sp_tl_interval *iv;
	struct sp_timeline tl;
	struct sp_tl_stall st;
	size_t n;

	(void)state;
	build(&tl, healthy_then_stall, sizeof(healthy_then_stall) /
	      sizeof(healthy_then_stall[0]));
	assert_int_equal(sp_tl_intervals(&tl, &iv, &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(iv[0].t_ms, 100);
	assert_true(fabs(iv[0].iops[0] - 100.0) < 1e-9);	/* 10 in 0.1 s */
	assert_true(fabs(iv[0].iops[2] - 200.0) < 1e-9);
	assert_true(fabs(iv[2].iops[2]) < 1e-9);
	assert_true(fabs(iv[5].iops[0] - 200.0) < 1e-9);	/* 500..600 */
	assert_int_equal(iv[5].in_flight[1], 0);
	assert_int_equal(iv[4].state[1], 'F');
	free(iv);

	/* from the last tick that moved (200) to the next that did (600) */
	sp_tl_stall(&tl, 2, -1, -1, &st);
	assert_int_equal(st.ms, 400);
	assert_int_equal(st.from_ms, 200);
	assert_int_equal(st.to_ms, 600);
	/* the path that hung: from 200 to 900, in flight all along */
	sp_tl_stall(&tl, 1, -1, -1, &st);
	assert_int_equal(st.ms, 700);
	/* a window after the stall sees none: the idle end is no stall */
	sp_tl_stall(&tl, 2, 600, -1, &st);
	assert_int_equal(st.ms, 0);
	/* a window that ends inside the stall sees it still open */
	sp_tl_stall(&tl, 2, -1, 450, &st);
	assert_int_equal(st.ms, 200);
	assert_int_equal(st.to_ms, 400);
	sp_tl_free(&tl);

	/* fewer than two ticks: no intervals */
	build(&tl, healthy_then_stall, 1);
	assert_int_equal(sp_tl_intervals(&tl, &iv, &n), 0);
	assert_int_equal(n, 0);
	assert_null(iv);
	sp_tl_free(&tl);
}

static void failover_and_reinstate(void **state)
{
	struct sp_tl_fault_metrics m[4];
	struct sp_tl_event ev[3];
	struct sp_timeline tl;
	size_t n;

	(void)state;
	build(&tl, healthy_then_stall, sizeof(healthy_then_stall) /
	      sizeof(healthy_then_stall[0]));
	sp_tl_fault_metrics(&tl, hang_events, 2, m, 4, &n);
	assert_int_equal(n, 1);
	assert_ptr_equal(m[0].applied, &hang_events[0]);
	assert_ptr_equal(m[0].restored, &hang_events[1]);
	assert_int_equal(m[0].failover_ms, 250);	/* F first at 500 */
	assert_int_equal(m[0].reinstate_ms, 150);	/* A again at 900 */
	assert_int_equal(m[0].stall.ms, 400);

	/* never restored, on a path the map never failed */
	memcpy(ev, hang_events, sizeof(hang_events));
	strcpy(ev[0].dev, "sdb");
	strcpy(ev[0].path, "p1");
	sp_tl_fault_metrics(&tl, ev, 2, m, 4, &n);
	assert_int_equal(n, 1);
	assert_null(m[0].restored);
	assert_int_equal(m[0].failover_ms, -1);
	assert_int_equal(m[0].reinstate_ms, -1);

	/* undone at 300, before the map failed the path at 500: the
	 * failure is not this fault's, and there is nothing to reinstate;
	 * one that took until 600 to undo did fail it */
	memcpy(ev, hang_events, sizeof(hang_events));
	ev[1].t_ms = 300;
	sp_tl_fault_metrics(&tl, ev, 2, m, 4, &n);
	assert_int_equal(m[0].failover_ms, -1);
	assert_int_equal(m[0].reinstate_ms, -1);
	ev[1].took_ms = 300;
	sp_tl_fault_metrics(&tl, ev, 2, m, 4, &n);
	assert_int_equal(m[0].failover_ms, 250);
	assert_int_equal(m[0].reinstate_ms, 600);	/* 300 to A at 900 */

	/* two faults: the first one's stall window ends at the second */
	memcpy(ev, hang_events, sizeof(hang_events));
	ev[2] = hang_events[0];
	ev[2].t_ms = 300;
	ev[1] = ev[2];
	ev[2] = hang_events[1];
	sp_tl_fault_metrics(&tl, ev, 3, m, 4, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].stall.ms, 100);	/* 200..300, still open */
	/* measured from the last tick at or before the fault */
	assert_int_equal(m[1].stall.ms, 300);
	assert_ptr_equal(m[0].restored, &ev[2]);
	/* an unknown device: nothing to say about its state */
	strcpy(ev[0].dev, "sdz");
	sp_tl_fault_metrics(&tl, ev, 3, m, 1, &n);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].failover_ms, -1);
	sp_tl_free(&tl);
}

/* Round-robin's shares do not wander: batch means say 0 where the
 * binomial sqrt(p (1 - p) / N) would say 1.8 pp for these 800 I/Os. */
static void share_se_by_batch_means(void **state)
{
	struct row rr[11], skewed[] = {
		{ 0, { 0, 0, 0 }, { 0 }, "AA" },
		{ 100, { 10, 0, 10 }, { 0 }, "AA" },
		{ 200, { 10, 10, 20 }, { 0 }, "AA" },
	};
	struct sp_timeline tl;
	double se[2], worst;
	size_t i;

	(void)state;
	for (i = 0; i < 11; i++)
		rr[i] = (struct row){ (int64_t)i * 100,
			{ 40 * i, 40 * i, 80 * i }, { 0 }, "AA" };
	build(&tl, rr, 11);
	assert_int_equal(sp_tl_share_se(&tl, 2, 10, se, &worst), 0);
	assert_true(worst < 1e-12 && se[0] < 1e-12 && se[1] < 1e-12);
	/* ten batches need eleven ticks */
	assert_int_equal(sp_tl_share_se(&tl, 2, 11, se, &worst), -ENODATA);
	assert_int_equal(sp_tl_share_se(&tl, 2, 1, se, &worst), -EINVAL);
	assert_int_equal(sp_tl_share_se(&tl, 4, 10, se, &worst), -EINVAL);
	sp_tl_free(&tl);

	/* all of batch 1 on sdb, all of batch 2 on sdc: p = 0.5, and
	 * var = 2/1 x (5^2 + 5^2) / 20^2 gives se 0.5 */
	build(&tl, skewed, 3);
	assert_int_equal(sp_tl_share_se(&tl, 2, 2, se, &worst), 0);
	assert_true(fabs(se[0] - 0.5) < 1e-9 && fabs(se[1] - 0.5) < 1e-9);
	assert_true(fabs(worst - 0.5) < 1e-9);
	sp_tl_free(&tl);

	/* a counter that went backwards is not a run's count */
	skewed[2].ios[0] = 5;
	build(&tl, skewed, 3);
	assert_int_equal(sp_tl_share_se(&tl, 2, 2, se, &worst), -ERANGE);
	sp_tl_free(&tl);
}

static void tsv_round_trip(void **state)
{
	struct sp_timeline tl, back;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	build(&tl, healthy_then_stall, 4);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(sp_tl_write_tsv(f, &tl, hang_events, 2), 0);
	fclose(f);
	assert_non_null(strstr(text, "t_ms\tdev\tios_done\tin_flight\tsectors\t"
			       "path_state\tticks_ms\tselector\n"));
	assert_non_null(strstr(text, "# fault\t250\tp2\tsdc\thang\tapplied\t0\n"));
	assert_non_null(strstr(text, "100\tsdc\t10\t4\t80\tA\t0\t-\n"));
	assert_int_equal(sp_tl_parse_tsv(text, "x.tsv", &back), 0);
	assert_int_equal(back.n_devs, 3);
	assert_string_equal(back.dev[2], "dm-0");
	assert_int_equal(back.n, tl.n);
	for (i = 0; i < tl.n; i++) {
		assert_int_equal(back.s[i].t_ms, tl.s[i].t_ms);
		assert_int_equal(back.s[i].dev, tl.s[i].dev);
		assert_int_equal(back.s[i].ios, tl.s[i].ios);
		assert_int_equal(back.s[i].in_flight, tl.s[i].in_flight);
		assert_int_equal(back.s[i].state, tl.s[i].state);
	}
	sp_tl_free(&back);
	sp_tl_free(&tl);
	free(text);

	capture_start(SP_LOG_ERR);
	assert_int_equal(sp_tl_parse_tsv("t_ms\tdev\n0\tsdb\t1\t2\t3\tQ\n",
					 "bad.tsv", &back), -EINVAL);
	assert_non_null(strstr(last_err, "bad.tsv:2"));
	assert_int_equal(sp_tl_parse_tsv("0\tsdb\t1\t2\t3\tA junk\n",
					 "bad.tsv", &back), -EINVAL);
	assert_int_equal(sp_tl_parse_tsv("# only comments\n", "e.tsv", &back),
			 -EINVAL);
	sp_log_set_hook(NULL, NULL);
}

static void faults_json_round_trip(void **state)
{
	struct sp_case_faults f = { 0 }, back;
	json_object *o = json_object_new_object(), *parsed;
	const char *text;
	char *bad;

	(void)state;
	/* nothing recorded: no key, and reading back gives nothing */
	sp_case_faults_to_json(&f, o);
	assert_false(json_object_object_get_ex(o, "faults", NULL));
	assert_int_equal(sp_case_faults_from_json(o, "c.json", &back), 0);
	assert_false(back.recorded);

	assert_int_equal(sp_case_faults_add(&f, 250, "p2", "sdc", "hang",
					    SP_TL_EV_APPLIED), 0);
	assert_int_equal(sp_case_faults_add(&f, 750, "p2", "sdc", "hang",
					    SP_TL_EV_RESTORED), 0);
	f.verify = 1;
	f.counted = 1;
	f.fio_errors = 5;
	f.verify_errors = 2;
	f.first_error = 5;
	f.timeline = 1;
	assert_int_equal(sp_case_faults_io_errors(&f), 3);
	sp_case_faults_to_json(&f, o);
	text = json_object_to_json_string(o);
	parsed = json_tokener_parse(text);
	assert_int_equal(sp_case_faults_from_json(parsed, "c.json", &back), 0);
	assert_true(back.recorded && back.verify && back.counted &&
		    back.timeline);
	assert_int_equal(back.fio_errors, 5);
	assert_int_equal(back.verify_errors, 2);
	assert_int_equal(back.n_events, 2);
	assert_int_equal(back.ev[1].t_ms, 750);
	assert_int_equal(back.ev[1].kind, SP_TL_EV_RESTORED);
	assert_string_equal(back.ev[0].dev, "sdc");
	json_object_put(parsed);

	/* a name that would reach a gnuplot script is refused */
	bad = strdup(text);
	memcpy(strstr(bad, "\"sdc\""), "\"s'c\"", 5);
	parsed = json_tokener_parse(bad);
	capture_start(SP_LOG_ERR);
	assert_int_equal(sp_case_faults_from_json(parsed, "c.json", &back),
			 -EINVAL);
	assert_non_null(strstr(last_err, "\"dev\""));
	sp_log_set_hook(NULL, NULL);
	json_object_put(parsed);
	free(bad);
	json_object_put(o);

	for (int i = 2; i < SP_TL_MAX_EVENTS; i++)
		assert_int_equal(sp_case_faults_add(&f, i, "p1", "sdb", "down",
						    SP_TL_EV_APPLIED), 0);
	assert_int_equal(sp_case_faults_add(&f, 1, "p1", "sdb", "down",
					    SP_TL_EV_APPLIED), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(samples_from_diskstats_and_status),
		cmocka_unit_test(intervals_and_stall),
		cmocka_unit_test(failover_and_reinstate),
		cmocka_unit_test(share_se_by_batch_means),
		cmocka_unit_test(tsv_round_trip),
		cmocka_unit_test(faults_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
