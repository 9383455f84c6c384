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

#define MS SP_NSEC_PER_MSEC
#define S SP_NSEC_PER_SEC

/* Two paths (sda = p1, sdb = p2) at 1000 IOPS each while healthy; a
 * path under a fault completes nothing and the map fails it 300 ms
 * later, takes it back 200 ms after the restore. fio runs fio_ms of the
 * fake clock, which moves only when the loop waits. */
struct mock {
	char log[8192];
	int64_t clock, fio_t0, fio_ms;
	int running, fio_runs;
	int interrupt_at_ms;		/* since fio started; 0 never */
	int fail_apply, fail_restore;
	int64_t broken_since[2], fixed_at[2];	/* -1: never */
	uint64_t ios[2];
	int64_t last_ms;
	int waits;
	int fio_status;			/* fio's exit status */
	const char *fio_err;		/* fio's stderr */
	char *fio_json;
	char argv[1024];
};

static void logf_(struct mock *m, const char *fmt, ...)
{
	char s[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	strncat(m->log, s, sizeof(m->log) - strlen(m->log) - 1);
	strncat(m->log, " ", sizeof(m->log) - strlen(m->log) - 1);
}

static int path_of(const char *label)
{
	return !strcmp(label, "p2");
}

static int broken(const struct mock *m, int p, int64_t at_ms)
{
	return m->broken_since[p] >= 0 && at_ms >= m->broken_since[p] &&
	       (m->fixed_at[p] < 0 || at_ms < m->fixed_at[p]);
}

/* counts move on with the clock, 1 I/O per ms per working path */
static void advance(struct mock *m)
{
	int64_t now = m->clock / MS, t;
	int p;

	for (t = m->last_ms; t < now; t++)
		for (p = 0; p < 2; p++)
			if (!broken(m, p, t))
				m->ios[p]++;
	m->last_ms = now;
}

static int m_diskstats(void *ctx, char **text)
{
	struct mock *m = ctx;

	advance(m);
	if (!m->running)	/* the case's snapshots, not the timeline's */
		logf_(m, "ds");
	*text = malloc(512);
	snprintf(*text, 512,
		 "   8       0 sda %llu 0 %llu 100 0 0 0 0 4 100 100 0 0 0 0 0 0\n"
		 "   8      16 sdb %llu 0 %llu 400 0 0 0 0 4 400 400 0 0 0 0 0 0\n"
		 " 254       0 dm-0 %llu 0 %llu 500 0 0 0 0 8 500 500 0 0 0 0 0 0\n",
		 (unsigned long long)m->ios[0], (unsigned long long)m->ios[0] * 8,
		 (unsigned long long)m->ios[1], (unsigned long long)m->ios[1] * 8,
		 (unsigned long long)(m->ios[0] + m->ios[1]),
		 (unsigned long long)(m->ios[0] + m->ios[1]) * 8);
	return 0;
}

static int m_dm_status(void *ctx, char **text)
{
	struct mock *m = ctx;
	int64_t now = m->clock / MS;
	char st[2];
	int p;

	for (p = 0; p < 2; p++) {
		/* failed 300 ms into a fault, back 200 ms after the fix */
		int failed = m->broken_since[p] >= 0 &&
			     now >= m->broken_since[p] + 300 &&
			     (m->fixed_at[p] < 0 || now < m->fixed_at[p] + 200);

		st[p] = failed ? 'F' : 'A';
	}
	*text = malloc(256);
	snprintf(*text, 256, "0 2048 multipath 2 1 0 0 1 1 A 0 2 2 8:0 %c 0 0 1 "
		 "8:16 %c 0 0 1", st[0], st[1]);
	return 0;
}

static int m_selector_set(void *ctx, const struct sp_dm_selector *sel)
{
	logf_(ctx, "sel:%s", sp_selector_short_name(sel->kind));
	return 0;
}

static int m_fio_start(void *ctx, const char *const *argv)
{
	struct mock *m = ctx;
	size_t i;

	m->argv[0] = '\0';
	for (i = 0; argv[i]; i++) {
		strncat(m->argv, argv[i], sizeof(m->argv) - strlen(m->argv) - 2);
		strcat(m->argv, " ");
	}
	m->running = 1;
	m->fio_runs++;
	m->fio_t0 = m->clock;
	logf_(m, "fio");
	return 0;
}

static int m_fio_wait(void *ctx, unsigned int ms, int *status, char **out,
		      char **errout)
{
	struct mock *m = ctx;

	assert_true(m->running);
	assert_true(ms <= 1000);
	assert_true(++m->waits < 100000);	/* the loop must move on */
	m->clock += (int64_t)ms * MS;
	if (m->interrupt_at_ms &&
	    m->clock - m->fio_t0 >= (int64_t)m->interrupt_at_ms * MS) {
		sp_run_interrupted = 1;
		return 0;
	}
	if (m->clock - m->fio_t0 < m->fio_ms * MS)
		return 0;
	m->running = 0;
	logf_(m, "done@%lld", (long long)((m->clock - m->fio_t0) / MS));
	*status = m->fio_status;
	*out = strdup(m->fio_json);
	*errout = strdup(m->fio_err ? m->fio_err : "");
	return 1;
}

static void m_fio_stop(void *ctx)
{
	struct mock *m = ctx;

	m->running = 0;
	logf_(m, "stop@%lld", (long long)((m->clock - m->fio_t0) / MS));
}

static int64_t m_now(void *ctx)
{
	return ((struct mock *)ctx)->clock;
}

static int64_t since_fio_ms(const struct mock *m)
{
	return (m->clock - m->fio_t0) / MS;
}

static int m_apply(void *ctx, const struct sp_fault *f, char *err,
		   size_t errlen)
{
	struct mock *m = ctx;
	int p = path_of(f->path);

	logf_(m, "apply:%s@%lld", f->path, (long long)since_fio_ms(m));
	if (m->fail_apply) {
		snprintf(err, errlen, "cannot stop tgtd of %s", f->path);
		return -EIO;
	}
	m->broken_since[p] = m->clock / MS;
	m->fixed_at[p] = -1;
	return 0;
}

static int m_flap(void *ctx, const struct sp_fault *f, int down, char *err,
		  size_t errlen)
{
	struct mock *m = ctx;

	(void)err;
	(void)errlen;
	logf_(m, "%s:%s@%lld", down ? "down" : "up", f->path,
	      (long long)since_fio_ms(m));
	return 0;
}

static int m_restore(void *ctx, const char *path, char *err, size_t errlen)
{
	struct mock *m = ctx;

	logf_(m, "restore:%s@%lld", path, (long long)since_fio_ms(m));
	if (m->fail_restore) {
		snprintf(err, errlen, "tgtd of %s did not come back", path);
		return -EIO;
	}
	m->fixed_at[path_of(path)] = m->clock / MS;
	return 0;
}

static struct sp_run_ops mock_ops(struct mock *m)
{
	struct sp_run_ops ops = {
		.selector_set = m_selector_set, .diskstats = m_diskstats,
		.fio_start = m_fio_start, .fio_wait = m_fio_wait,
		.fio_stop = m_fio_stop, .now_ns = m_now,
		.dm_status = m_dm_status, .fault_apply = m_apply,
		.fault_flap = m_flap, .fault_restore = m_restore, .ctx = m,
	};
	return ops;
}

static void mock_init(struct mock *m, int64_t fio_ms)
{
	const char *src = getenv("SRCDIR");
	char path[1024];

	memset(m, 0, sizeof(*m));
	m->fio_ms = fio_ms;
	m->clock = 1000 * S;
	m->last_ms = m->clock / MS;
	m->broken_since[0] = m->broken_since[1] = -1;
	m->fixed_at[0] = m->fixed_at[1] = -1;
	snprintf(path, sizeof(path),
		 "%s/tests/fixtures/fio/randread-psync-1job.json",
		 src ? src : ".");
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &m->fio_json,
				      NULL), 0);
	sp_run_interrupted = 0;
}

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
	memset(p, 0, sizeof(*p));
	p->n_sel = 2;
	p->sel[0] = SP_SEL_ST;
	p->sel[1] = SP_SEL_HST;
	p->n_rw = 1;
	strcpy(p->rw[0], "randread");
	p->n_bs = 1;
	p->bs[0] = 4096;
	p->n_qd = 1;
	p->iodepth[0] = 1;
	p->numjobs = 1;
	p->size_bytes = 1 << 20;
}

static char *tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/test_run_watch.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void rmtree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void quiet(enum sp_log_level l, const char *msg, void *ctx)
{
	(void)l; (void)msg; (void)ctx;
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
	struct mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	struct sp_timeline tl;
	struct sp_tl_fault_metrics fm[4];
	struct sp_tl_stall stall;
	char *dir = tmpdir(), *text;
	const char *a;
	size_t n, i;

	(void)state;
	mock_init(&m, 5000);
	ops = mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.timeline = 1;
	p.n_faults = 2;
	p.faults[0] = fault("p2", SP_FAULT_HANG, 1000, 2000);
	p.faults[1] = fault("p1", SP_FAULT_DOWN, 4000, 0);
	sp_log_set_hook(quiet, NULL);
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
	rmtree(dir);
}

static void flap_ticks(void **state)
{
	struct mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = tmpdir();

	(void)state;
	mock_init(&m, 2000);
	ops = mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.n_sel = 1;
	p.n_faults = 1;
	p.faults[0] = fault("p1", SP_FAULT_FLAP, 200, 1000);
	p.faults[0].flap_period_ns = 300 * MS;
	sp_log_set_hook(quiet, NULL);
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
	rmtree(dir);
}

static void ctrl_c_and_errors_restore(void **state)
{
	struct mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = tmpdir();

	(void)state;
	/* Ctrl-C with p2 hung: fio stopped, p2 restored, selector back */
	mock_init(&m, 5000);
	m.interrupt_at_ms = 1500;
	ops = mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.timeline = 1;
	p.n_faults = 1;
	p.faults[0] = fault("p2", SP_FAULT_HANG, 1000, 0);
	sp_log_set_hook(quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s),
			 -EINTR);
	assert_non_null(strstr(m.log, "apply:p2@1000 stop@1500 "
			       "restore:p2@1500 sel:st "));
	assert_int_equal(s.done, 0);
	sp_run_summary_free(&s);
	free(m.fio_json);
	rmtree(dir);

	/* a fault that cannot be applied stops fio and the run */
	dir = tmpdir();
	mock_init(&m, 5000);
	m.fail_apply = 1;
	ops = mock_ops(&m);
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
	rmtree(dir);

	/* a restore that fails: the case is not trusted, the run stops */
	dir = tmpdir();
	mock_init(&m, 3000);
	m.fail_restore = 1;
	ops = mock_ops(&m);
	p.n_faults = 1;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s),
			 -EIO);
	assert_non_null(strstr(m.log, "done@3000 ds ds restore:p2@3000 sel:st "));
	assert_int_equal(s.done, 0);
	sp_log_set_hook(NULL, NULL);
	sp_run_summary_free(&s);
	free(m.fio_json);
	rmtree(dir);
}

static void verify_errors_recorded(void **state)
{
	const char *src = getenv("SRCDIR");
	struct mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = tmpdir(), path[1024], *err = NULL;

	(void)state;
	mock_init(&m, 500);
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
	ops = mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.n_sel = 1;
	strcpy(p.rw[0], "randwrite");
	p.verify = 1;
	p.timeline = 1;
	sp_log_set_hook(quiet, NULL);
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
	rmtree(dir);
}

/* an errno fio does not go on after: it stopped at it, one error */
static void uncounted_error_is_one(void **state)
{
	const char *src = getenv("SRCDIR");
	struct mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = tmpdir(), path[1024];

	(void)state;
	mock_init(&m, 500);
	free(m.fio_json);
	snprintf(path, sizeof(path), "%s/tests/fixtures/fio/"
		 "error-readonly-missing.json", src ? src : ".");
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &m.fio_json,
				      NULL), 0);
	m.fio_status = 1;
	ops = mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.n_sel = 1;
	p.n_faults = 1;
	p.faults[0] = fault("p1", SP_FAULT_ERROR, 100, 0);
	sp_log_set_hook(quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	sp_log_set_hook(NULL, NULL);
	assert_int_equal(s.with_errors, 1);
	assert_false(s.cases[0].faults.counted);
	assert_int_equal(s.cases[0].faults.fio_errors, 1);
	assert_int_equal(s.cases[0].faults.first_error, 2);
	sp_run_summary_free(&s);
	free(m.fio_json);
	rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(faults_timed_and_recorded),
		cmocka_unit_test(flap_ticks),
		cmocka_unit_test(ctrl_c_and_errors_restore),
		cmocka_unit_test(verify_errors_recorded),
		cmocka_unit_test(uncounted_error_is_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
