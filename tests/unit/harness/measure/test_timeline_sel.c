/* Unit tests of the selector state in a timeline: the selector's
 * per-path args out of the map's status (hostile ones too), the two
 * TSV columns and the clock comment (old 6-column files still read),
 * each interval's measured latency, and what report makes of them
 * (harness/report/render_selector.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure/timeline.h"
#include "harness/report/render_selector.h"
#include "tests/unit/log_capture.h"

static const char *const devs3[] = { "sdb", "sdc", "dm-0" };

static const char diskstats_t0[] =
	"   8      16 sdb 100 0 800 200 50 0 400 100 1 20 15 0 0 0 0 0 0\n"
	"   8      32 sdc 200 0 1600 10 0 0 0 0 2 20 15 0 0 0 0 0 0\n"
	" 253       0 dm-0 300 0 2400 10 50 0 400 5 3 20 15 0 0 0 0 0 0\n";

/* Two HST paths: sdb's estimate 2 ms (2000000 << 10), 3 outstanding,
 * stale after 5 s of CLOCK_MONOTONIC; sdc failed, 1 ms, none. */
static const char status_hst[] =
	"0 2097152 multipath 2 1 0 0 1 1 A 0 2 3 "
	"8:16 A 0 2048000000 3 5000000000 8:32 F 1 1024000000 0 0";

static void status_with_selector_args(void **state)
{
	struct sp_mpath_path mp[4];
	struct sp_tl_path_view v[3];
	struct sp_timeline tl;
	size_t n;

	(void)state;
	assert_int_equal(sp_mpath_status_parse(status_hst, mp, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(mp[0].n_sel, 3);
	assert_true(mp[0].sel[0] == 2048000000ull);
	assert_true(mp[0].sel[1] == 3);
	assert_true(mp[0].sel[2] == 5000000000ull);
	assert_int_equal(mp[1].n_sel, 3);
	assert_false(mp[1].active);

	assert_int_equal(sp_tl_init(&tl, devs3, 3), 0);
	sp_tl_path_states(&tl, diskstats_t0, mp, n, v);
	assert_int_equal(v[0].state, 'A');
	assert_int_equal(v[0].n_sel, 3);
	assert_true(v[1].sel[0] == 1024000000ull);
	assert_int_equal(sp_tl_add_diskstats(&tl, 0, diskstats_t0, v), 0);
	assert_int_equal(tl.s[0].n_sel, 3);
	assert_true(tl.s[0].sel[2] == 5000000000ull);
	assert_true(tl.s[0].ticks_ms == 300);	/* read 200 + write 100 */
	assert_int_equal(tl.s[0].has_ticks, 1);
	assert_int_equal(tl.s[2].n_sel, 0);	/* the map has none */
	sp_tl_free(&tl);
}

static void hostile_selector_args(void **state)
{
	struct sp_mpath_path mp[4];
	size_t n;

	(void)state;
	/* past 2^64 - 1, signed, not numbers: the path kept, no args */
	assert_int_equal(sp_mpath_status_parse("0 0 1 1 A 0 1 3 8:16 A 0 "
		"99999999999999999999999 1 2", mp, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(mp[0].n_sel, 0);
	assert_true(mp[0].sel[0] == 0);
	assert_int_equal(sp_mpath_status_parse("0 0 1 1 A 0 1 1 8:16 A 0 -5",
					       mp, 4, &n), 0);
	assert_int_equal(mp[0].n_sel, 0);
	assert_int_equal(sp_mpath_status_parse("0 0 1 1 A 0 1 2 8:16 A 0 "
					       "12 x7", mp, 4, &n), 0);
	assert_int_equal(mp[0].n_sel, 0);
	/* five args: three kept, the next path still found */
	assert_int_equal(sp_mpath_status_parse("0 0 1 1 A 0 2 5 8:16 A 0 "
		"1 2 3 4 5 8:32 A 0 6 7 8 9 10", mp, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(mp[0].n_sel, 3);
	assert_true(mp[0].sel[2] == 3);
	assert_true(mp[1].sel[0] == 6);
	/* round-robin: no args */
	assert_int_equal(sp_mpath_status_parse("0 0 1 1 A 0 1 0 8:16 A 0",
					       mp, 4, &n), 0);
	assert_int_equal(mp[0].n_sel, 0);
	/* more args promised than the status has */
	assert_int_equal(sp_mpath_status_parse("0 0 1 1 A 0 1 3 8:16 A 0 1",
					       mp, 4, &n), -EINVAL);
	assert_int_equal(sp_mpath_status_parse("0 0 1 1 A 0 1 4000000000 "
					       "8:16 A 0 1 2 3", mp, 4, &n),
			 -EINVAL);
}

static char *write_tsv(const struct sp_timeline *tl)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(sp_tl_write_tsv(f, tl, NULL, 0), 0);
	fclose(f);
	return text;
}

static void tsv_selector_columns(void **state)
{
	struct sp_timeline tl, back;
	struct sp_tl_sample s = { 0 };
	char *text;

	(void)state;
	assert_int_equal(sp_tl_init(&tl, devs3, 3), 0);
	assert_int_equal(tl.mono_ns_t0, -1);
	tl.mono_ns_t0 = 123456789;
	s.t_ms = 100;
	s.ios = 7;
	s.ticks_ms = 35;
	s.has_ticks = 1;
	s.n_sel = 3;
	s.sel[0] = UINT64_MAX;
	s.sel[1] = 2;
	s.sel[2] = 9;
	s.state = 'A';
	assert_int_equal(sp_tl_add(&tl, &s), 0);
	s.dev = 2;
	s.n_sel = 0;
	s.state = '-';
	assert_int_equal(sp_tl_add(&tl, &s), 0);
	text = write_tsv(&tl);
	assert_non_null(strstr(text, "# clock\tmonotonic_ns_at_t0\t123456789\n"));
	assert_non_null(strstr(text, "100\tsdb\t7\t0\t0\tA\t35\t"
			       "18446744073709551615,2,9\n"));
	assert_non_null(strstr(text, "100\tdm-0\t7\t0\t0\t-\t35\t-\n"));
	assert_int_equal(sp_tl_parse_tsv(text, "x.tsv", &back), 0);
	assert_int_equal(back.mono_ns_t0, 123456789);
	assert_int_equal(back.n, 2);
	assert_int_equal(back.s[0].n_sel, 3);
	assert_true(back.s[0].sel[0] == UINT64_MAX);
	assert_true(back.s[0].ticks_ms == 35);
	assert_int_equal(back.s[1].n_sel, 0);
	sp_tl_free(&back);
	sp_tl_free(&tl);
	free(text);
}

static void tsv_old_and_hostile_rows(void **state)
{
	static const char *const bad[] = {
		"0\tsdb\t1\t2\t3\tA\t5\n",			/* no selector */
		"0\tsdb\t1\t2\t3\tA\t-5\t-\n",
		"0\tsdb\t1\t2\t3\tA\t5\t1,2,3,4\n",		/* four */
		"0\tsdb\t1\t2\t3\tA\t5\t1,,2\n",
		"0\tsdb\t1\t2\t3\tA\t5\t1,\n",
		"0\tsdb\t1\t2\t3\tA\t5\t+1\n",
		"0\tsdb\t1\t2\t3\tA\t5\t18446744073709551616\n",
		"0\tsdb\t1\t2\t3\tA\t5\t1 junk\n",
		"# clock\tmonotonic_ns_at_t0\t-1\n0\tsdb\t1\t2\t3\tA\n",
		"# clock\tmonotonic_ns_at_t0\t99999999999999999999\n",
	};
	struct sp_timeline back;
	size_t i;

	(void)state;
	/* a file of before selector state: as it was, no ticks */
	assert_int_equal(sp_tl_parse_tsv("t_ms\tdev\tios_done\tin_flight\t"
		"sectors\tpath_state\n0\tsdb\t1\t2\t3\tA\n100\tsdb\t9\t2\t3\tF\n",
		"old.tsv", &back), 0);
	assert_int_equal(back.n, 2);
	assert_int_equal(back.s[1].state, 'F');
	assert_int_equal(back.s[1].n_sel, 0);
	assert_int_equal(back.s[1].has_ticks, 0);
	assert_int_equal(back.mono_ns_t0, -1);
	assert_false(sp_tl_has_selector(&back));
	sp_tl_free(&back);
	capture_start(SP_LOG_ERR);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sp_tl_parse_tsv(bad[i], "bad.tsv", &back),
				 -EINVAL);
		assert_non_null(strstr(last_err, "bad.tsv:"));
	}
	sp_log_set_hook(NULL, NULL);
}

/* sdb at 2 ms a command, then 4 ms; sdc none completed, then one row
 * without ticks. HST args on sdb only. */
static void build(struct sp_timeline *tl)
{
	static const struct { int64_t t; uint64_t ios, ticks; } sdb[] = {
		{ 0, 0, 0 }, { 100, 50, 100 }, { 200, 75, 200 }, { 300, 75, 200 },
	};
	struct sp_tl_sample s;
	size_t i;

	assert_int_equal(sp_tl_init(tl, devs3, 3), 0);
	tl->mono_ns_t0 = 1000000000;
	for (i = 0; i < 4; i++) {
		memset(&s, 0, sizeof(s));
		s.t_ms = sdb[i].t;
		s.ios = sdb[i].ios;
		s.ticks_ms = sdb[i].ticks;
		s.has_ticks = 1;
		s.state = 'A';
		s.n_sel = 3;
		s.sel[0] = (uint64_t)(2000000 + 2000000 * (i > 1)) << 10;
		s.sel[1] = i;
		s.sel[2] = 1000000000 + (uint64_t)sdb[i].t * 1000000 + 50000000;
		assert_int_equal(sp_tl_add(tl, &s), 0);
		s.dev = 1;
		s.ios = 10;
		s.n_sel = 0;
		s.has_ticks = i != 3;
		assert_int_equal(sp_tl_add(tl, &s), 0);
		s.dev = 2;
		s.state = '-';
		assert_int_equal(sp_tl_add(tl, &s), 0);
	}
}

static void interval_latency(void **state)
{
	struct sp_tl_interval *iv;
	struct sp_timeline tl;
	size_t n;

	(void)state;
	build(&tl);
	assert_int_equal(sp_tl_intervals(&tl, &iv, &n), 0);
	assert_int_equal(n, 3);
	assert_true(fabs(iv[0].lat_ms[0] - 2.0) < 1e-9);	/* 100/50 */
	assert_true(fabs(iv[1].lat_ms[0] - 4.0) < 1e-9);	/* 100/25 */
	assert_true(iv[2].lat_ms[0] < 0);	/* none completed */
	assert_true(iv[0].lat_ms[1] < 0);
	assert_true(iv[2].lat_ms[1] < 0);	/* a row without ticks */
	assert_int_equal(iv[1].n_sel[0], 3);
	assert_true(iv[1].sel[0][0] == (uint64_t)4000000 << 10);
	free(iv);
	sp_tl_free(&tl);
}

static void what_the_selector_saw(void **state)
{
	struct sp_case_result c;
	struct sp_timeline tl;
	char *text = NULL;
	size_t len;
	FILE *f;

	(void)state;
	memset(&c, 0, sizeof(c));
	strcpy(c.topology, "two");
	strcpy(c.selector, "historical-service-time");
	strcpy(c.rw, "randread");
	c.bs = 4096;
	c.iodepth = 1;
	c.numjobs = 1;
	c.n_paths = 2;
	strcpy(c.path[0].name, "sdb");
	strcpy(c.path[1].name, "sdc");
	strcpy(c.label[0], "p1");
	strcpy(c.label[1], "p2");
	c.delay_ns[0] = 2000000;
	c.delay_ns[1] = 8000000;
	build(&tl);
	assert_true(sp_tl_has_selector(&tl));

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(sp_render_selector(f, &c, &tl), 0);
	fclose(f);
	/* estimates 2, 2, 4, 4 ms; 75 I/Os in 200 ms of ticks */
	assert_non_null(strstr(text, "what hst saw per path"));
	assert_non_null(strstr(text, "p1 x1 2 ms"));
	assert_non_null(strstr(text, "estimate    3.000 ms"));
	assert_non_null(strstr(text, "measured    2.667 ms"));
	free(text);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(sp_plot_selector_data(f, &c, &tl), 0);
	fclose(f);
	/* t, then sdb's estimate, latency, outstanding, stale in 50 ms;
	 * sdc: only a latency column, none */
	assert_non_null(strstr(text, "0.100 2.0000 2.0000 1.0000 50.0000 - - - -\n"));
	assert_non_null(strstr(text, "0.300 4.0000 - 3.0000 50.0000 - - - -\n"));
	free(text);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(sp_plot_selector_script(f, &c, &tl), 0);
	fclose(f);
	assert_non_null(strstr(text, "set output 'selector-two-randread-4k-qd1-hst.png'"));
	assert_non_null(strstr(text, "set output 'selector-two-randread-4k-qd1-hst.svg'"));
	assert_non_null(strstr(text, "using 1:2 with lines lw 2 lc 1 title 'p1 x1 2 ms HST estimate'"));
	assert_non_null(strstr(text, "using 1:3 with lines lw 1 dt 2 lc 1 title 'p1 x1 2 ms measured'"));
	assert_non_null(strstr(text, "using 1:8 with lines lw 2 lc 2 title 'p2 x4 8 ms'"));
	assert_non_null(strstr(text, "unset label 1"));
	free(text);
	sp_tl_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(status_with_selector_args),
		cmocka_unit_test(hostile_selector_args),
		cmocka_unit_test(tsv_selector_columns),
		cmocka_unit_test(tsv_old_and_hostile_rows),
		cmocka_unit_test(interval_latency),
		cmocka_unit_test(what_the_selector_saw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
