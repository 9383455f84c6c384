/* Unit tests of `slowpath run`'s faults and timelines (run_watch.c and
 * its use in run_loop.c) on a fake clock: faults applied, flapped and
 * restored when due,
 * anything still broken restored before the next case and on Ctrl-C or
 * error, the timeline sampled at 10 Hz and saved with the case, fio's
 * error counts and verify failures recorded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/log.h"
#include "common/units.h"
#include "harness/run/run_faults.h"
#include "harness/run/run_fio.h"
#include "harness/run/run_loop.h"
#include "tests/unit/harness/run/run_mock.h"

#define MS SP_NSEC_PER_MSEC
#define S SP_NSEC_PER_SEC

static void target_init(struct sp_run_target *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->topology, "t");
	strcpy(t->map_name, "slowpath-t");
	strcpy(t->device, "/dev/mapper/slowpath-t");
	strcpy(t->dm_name, "dm-0");
	t->n_paths = 2;
	strcpy(t->path[0], "sda");
	strcpy(t->path[1], "sdb");
	strcpy(t->label[0], "p1");
	strcpy(t->label[1], "p2");
	sp_dm_selector_init(&t->initial, SP_SEL_ST);
}

static struct sp_fault fault(const char *path, enum sp_fault_how how,
			     int64_t at_ms, int64_t for_ms)
{
	struct sp_fault f;

	memset(&f, 0, sizeof(f));
	strcpy(f.path, path);
	f.how = how;
	f.at_ns = at_ms * MS;
	f.for_ns = for_ms * MS;
	return f;
}

/* st,hst x randread x qd 1: two cases */
static void plan_init(struct sp_run_plan *p)
{
	run_mock_plan(p);
}

static char *read_case_file(const char *dir, const char *name)
{
	char path[1024], *text = NULL;

	snprintf(path, sizeof(path), "%s/cases/%s", dir, name);
	if (sp_file_read(path, SP_FILE_TEXT_MAX, &text, NULL))
		return NULL;
	return text;
}

static void faults_timed_and_recorded(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	struct sp_timeline tl;
	struct sp_tl_fault_metrics fm[4];
	struct sp_tl_stall stall;
	char *dir = run_mock_tmpdir("test_run_watch"), *text;
	const char *a;
	size_t n, i;

	(void)state;
	run_mock_init_timed(&m, 5000);
	ops = run_mock_fault_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.timeline = 1;
	p.n_faults = 2;
	p.faults[0] = fault("p2", SP_FAULT_HANG, 1000, 2000);
	p.faults[1] = fault("p1", SP_FAULT_DOWN, 4000, 0);
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	sp_log_set_hook(NULL, NULL);
	assert_int_equal(s.done, 2);
	/* per case: p2 broken at 1 s, back at 3 s; p1 broken at 4 s and,
	 * with no for=, restored when fio ends, before the next case */
	a = strstr(m.log, "apply:p2@1000 ");
	assert_non_null(a);
	a = strstr(a, "restore:p2@3000 ");
	assert_non_null(a);
	a = strstr(a, "apply:p1@4000 ");
	assert_non_null(a);
	/* the timeline's last sample and the case's snapshot after fio
	 * are fio's alone: taken before the restore */
	a = strstr(a, "done@5000 ds ds restore:p1@5000 sel:hst");
	assert_non_null(a);
	assert_non_null(strstr(a, "apply:p2@1000 "));
	assert_non_null(strstr(m.log, "done@5000 ds ds restore:p1@5000 sel:st"));
	/* continue_on_error when paths break */
	assert_non_null(strstr(m.argv, "--continue_on_error=all"));
	assert_null(strstr(m.argv, "--verify"));

	/* the events with the case, the dev from the topology's label */
	assert_true(s.cases[0].faults.recorded);
	assert_true(s.cases[0].faults.timeline);
	assert_int_equal(s.cases[0].faults.n_events, 4);
	assert_string_equal(s.cases[0].faults.ev[0].dev, "sdb");
	assert_string_equal(s.cases[0].faults.ev[0].how, "hang");
	assert_int_equal(s.cases[0].faults.ev[0].kind, SP_TL_EV_APPLIED);
	assert_int_equal(s.cases[0].faults.ev[1].kind, SP_TL_EV_RESTORED);
	assert_int_equal(s.cases[0].faults.ev[3].t_ms, 5000);
	assert_int_equal(s.with_errors, 0);

	/* the timeline next to the case JSON: 10 Hz over 5 s */
	text = read_case_file(dir, "t-randread-4k-qd1-st.timeline.tsv");
	assert_non_null(text);
	assert_non_null(strstr(text, "# fault\t1000\tp2\tsdb\thang\tapplied\t0\n"));
	assert_int_equal(sp_tl_parse_tsv(text, "tsv", &tl), 0);
	free(text);
	assert_int_equal(tl.n_devs, 3);
	assert_string_equal(tl.dev[2], "dm-0");
	assert_true(tl.n / 3 >= 45 && tl.n / 3 <= 56);
	for (i = 3; i < tl.n; i += 3)	/* ticks ~100 ms apart */
		assert_true(tl.s[i].t_ms - tl.s[i - 3].t_ms <= 200);
	/* the selector's args with every tick (ST's "0 1" in the mock's
	 * status), none on the map; the clock at t_ms 0 */
	for (i = 0; i < tl.n; i++) {
		assert_int_equal(tl.s[i].n_sel, tl.s[i].dev < 2 ? 2 : 0);
		if (tl.s[i].dev < 2)
			assert_true(tl.s[i].sel[1] == 1);
	}
	assert_true(tl.mono_ns_t0 >= 0);
	sp_tl_fault_metrics(&tl, s.cases[0].faults.ev,
			    s.cases[0].faults.n_events, fm, 4, &n);
	assert_int_equal(n, 2);
	/* the mock fails a path 300 ms in, takes it back 200 ms after */
	assert_true(fm[0].failover_ms >= 300 && fm[0].failover_ms <= 500);
	assert_true(fm[0].reinstate_ms >= 200 && fm[0].reinstate_ms <= 400);
	assert_int_equal(fm[1].reinstate_ms, -1);	/* fio ended first */
	/* one path always worked: the map never stalled */
	sp_tl_stall(&tl, 2, -1, -1, &stall);
	assert_int_equal(stall.ms, 0);
	/* but p2 did, for the hang's 2 s */
	sp_tl_stall(&tl, 1, -1, -1, &stall);
	assert_true(stall.ms >= 1900 && stall.ms <= 2200);
	sp_tl_free(&tl);
	text = read_case_file(dir, "t-randread-4k-qd1-st.json");
	assert_non_null(strstr(text, "\"faults\""));
	assert_non_null(strstr(text, "\"restored\""));
	free(text);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void flap_ticks(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_watch");

	(void)state;
	run_mock_init_timed(&m, 2000);
	ops = run_mock_fault_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.n_sel = 1;
	p.n_faults = 1;
	p.faults[0] = fault("p1", SP_FAULT_FLAP, 200, 1000);
	p.faults[0].flap_period_ns = 300 * MS;
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	sp_log_set_hook(NULL, NULL);
	assert_non_null(strstr(m.log, "fio apply:p1@200 up:p1@500 down:p1@800 "
			       "up:p1@1100 restore:p1@1200 done@"));
	assert_non_null(strstr(m.log, "sel:st ds fio "));
	/* no timeline asked for, but faults turn it on only through the
	 * CLI's plan: this plan has none */
	assert_false(s.cases[0].faults.timeline);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void ctrl_c_and_errors_restore(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_watch");

	(void)state;
	/* Ctrl-C with p2 hung: fio stopped, p2 restored, selector back */
	run_mock_init_timed(&m, 5000);
	m.interrupt_at_ms = 1500;
	ops = run_mock_fault_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.timeline = 1;
	p.n_faults = 1;
	p.faults[0] = fault("p2", SP_FAULT_HANG, 1000, 0);
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s),
			 -EINTR);
	assert_non_null(strstr(m.log, "apply:p2@1000 stop@1500 "
			       "restore:p2@1500 sel:st "));
	assert_int_equal(s.done, 0);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);

	/* a fault that cannot be applied stops fio and the run */
	dir = run_mock_tmpdir("test_run_watch");
	run_mock_init_timed(&m, 5000);
	m.fail_apply = 1;
	ops = run_mock_fault_ops(&m);
	p.faults[1] = fault("p1", SP_FAULT_SLOW, 500, 0);
	p.faults[1].slow_factor = 10;
	p.n_faults = 2;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s),
			 -EIO);
	/* a failed apply may have done half of it: restored all the
	 * same (restore is idempotent), the fault never applied is not */
	assert_non_null(strstr(m.log, "fio apply:p1@500 stop@500 "
			       "restore:p1@500 sel:st "));
	assert_null(strstr(m.log, "restore:p2"));
	assert_null(strstr(m.log, "apply:p2"));
	assert_int_equal(s.done, 0);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);

	/* a restore that fails: the case is not trusted, the run stops */
	dir = run_mock_tmpdir("test_run_watch");
	run_mock_init_timed(&m, 3000);
	m.fail_restore = 1;
	ops = run_mock_fault_ops(&m);
	p.n_faults = 1;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s),
			 -EIO);
	assert_non_null(strstr(m.log, "done@3000 ds ds restore:p2@3000 sel:st "));
	assert_int_equal(s.done, 0);
	sp_log_set_hook(NULL, NULL);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void verify_errors_recorded(void **state)
{
	const char *src = getenv("SRCDIR");
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_watch"), path[1024], *err = NULL;

	(void)state;
	run_mock_init_timed(&m, 500);
	free(m.fio_json);
	snprintf(path, sizeof(path), "%s/tests/fixtures/fio/verify-errors.json",
		 src ? src : ".");
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &m.fio_json,
				      NULL), 0);
	snprintf(path, sizeof(path), "%s/tests/fixtures/fio/verify-errors.stderr",
		 src ? src : ".");
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &err, NULL), 0);
	m.fio_err = err;
	/* fio may end non-zero after counted errors: its JSON still counts */
	m.fio_status = 1;
	ops = run_mock_fault_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.n_sel = 1;
	strcpy(p.rw[0], "randwrite");
	p.verify = 1;
	p.timeline = 1;
	sp_log_set_hook(run_mock_quiet, NULL);
	/* fio's job error (EILSEQ) does not stop a counting run */
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	sp_log_set_hook(NULL, NULL);
	assert_non_null(strstr(m.argv, "--verify=crc32c "));
	assert_non_null(strstr(m.argv, "--verify_backlog=1024 "));
	assert_non_null(strstr(m.argv, "--verify_state_save=0 "));
	assert_non_null(strstr(m.argv, "--continue_on_error=all "));
	/* a medium error (ENODATA) is counted, not the end of fio */
	assert_non_null(strstr(m.argv, "--ignore_error=5:61:"));
	assert_int_equal(s.done, 1);
	assert_int_equal(s.with_errors, 1);
	assert_true(s.cases[0].faults.verify);
	assert_true(s.cases[0].faults.counted);
	assert_int_equal(s.cases[0].faults.fio_errors, 2);
	assert_int_equal(s.cases[0].faults.verify_errors, 2);
	assert_int_equal(s.cases[0].faults.first_error, 84);
	assert_int_equal(sp_case_faults_io_errors(&s.cases[0].faults), 0);
	sp_run_summary_free(&s);
	free(m.fio_json);
	free(err);
	run_mock_rmtree(dir);
}

/* nvme-tcp: no map status, the paths' states from path_states, the
 * map's row the paths' sum; failover and reinstate as with a map */
static void nvme_path_states_time_a_failover(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	struct sp_timeline tl;
	struct sp_tl_fault_metrics fm[2];
	char *dir = run_mock_tmpdir("test_run_watch"), *text;
	size_t n, i;

	(void)state;
	run_mock_init_timed(&m, 3000);
	ops = run_mock_nvme_ops(&m);
	target_init(&t);
	t.map_sums_paths = 1;
	plan_init(&p);
	p.n_sel = 1;
	p.timeline = 1;
	p.n_faults = 1;
	p.faults[0] = fault("p2", SP_FAULT_ANA, 1000, 1000);
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	sp_log_set_hook(NULL, NULL);
	assert_int_equal(s.done, 1);
	text = read_case_file(dir, "t-randread-4k-qd1-st.timeline.tsv");
	assert_non_null(text);
	assert_non_null(strstr(text, "\tana\tapplied\t"));
	assert_non_null(strstr(text, "# dm-0: the paths' sum"));
	assert_int_equal(sp_tl_parse_tsv(text, "tsv", &tl), 0);
	free(text);
	for (i = 0; i < tl.n; i++)
		assert_int_equal(tl.s[i].n_sel, 0);
	/* the map's row is the paths' sum */
	for (i = 2; i < tl.n; i += 3)
		assert_true(tl.s[i].ios == tl.s[i - 2].ios + tl.s[i - 1].ios);
	sp_tl_fault_metrics(&tl, s.cases[0].faults.ev,
			    s.cases[0].faults.n_events, fm, 2, &n);
	assert_int_equal(n, 1);
	assert_true(fm[0].failover_ms >= 300 && fm[0].failover_ms <= 500);
	assert_true(fm[0].reinstate_ms >= 200 && fm[0].reinstate_ms <= 400);
	sp_tl_free(&tl);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

/* an errno fio does not go on after: it stopped at it, one error */
static void uncounted_error_is_one(void **state)
{
	const char *src = getenv("SRCDIR");
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_watch"), path[1024];

	(void)state;
	run_mock_init_timed(&m, 500);
	free(m.fio_json);
	snprintf(path, sizeof(path), "%s/tests/fixtures/fio/"
		 "error-readonly-missing.json", src ? src : ".");
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &m.fio_json,
				      NULL), 0);
	m.fio_status = 1;
	ops = run_mock_fault_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.n_sel = 1;
	p.n_faults = 1;
	p.faults[0] = fault("p1", SP_FAULT_ERROR, 100, 0);
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	sp_log_set_hook(NULL, NULL);
	assert_int_equal(s.with_errors, 1);
	assert_false(s.cases[0].faults.counted);
	assert_int_equal(s.cases[0].faults.fio_errors, 1);
	assert_int_equal(s.cases[0].faults.first_error, 2);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(faults_timed_and_recorded),
		cmocka_unit_test(flap_ticks),
		cmocka_unit_test(ctrl_c_and_errors_restore),
		cmocka_unit_test(verify_errors_recorded),
		cmocka_unit_test(uncounted_error_is_one),
		cmocka_unit_test(nvme_path_states_time_a_failover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
