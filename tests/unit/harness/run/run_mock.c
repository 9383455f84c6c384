/* The one compiled copy of `slowpath run`'s scripted system
 * (run_mock.h says what it simulates). */
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
#include "common/units.h"
#include "tests/unit/harness/run/run_mock.h"

#define MS SP_NSEC_PER_MSEC
#define S SP_NSEC_PER_SEC

void run_mock_log(struct run_mock *m, const char *fmt, ...)
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

static int broken(const struct run_mock *m, int p, int64_t at_ms)
{
	return m->broken_since[p] >= 0 && at_ms >= m->broken_since[p] &&
	       (m->fixed_at[p] < 0 || at_ms < m->fixed_at[p]);
}

/* timed: counts move on with the clock, 1 I/O per ms per working path */
static void advance(struct run_mock *m)
{
	int64_t now = m->clock / MS, t;
	int p;

	for (t = m->last_ms; t < now; t++)
		for (p = 0; p < 2; p++)
			if (!broken(m, p, t))
				m->ios[p]++;
	m->last_ms = now;
}

static int m_selector_set(void *ctx, const struct sp_dm_selector *sel)
{
	struct run_mock *m = ctx;

	m->reloads++;
	run_mock_log(m, "sel:%s", sp_selector_short_name(sel->kind));
	if (m->fail_reload_at == m->reloads)
		return -EIO;
	if (m->fail_sel_restore && sel->kind == SP_SEL_QL)
		return -EIO;
	return 0;
}

static void diskstats_text(const struct run_mock *m, char **text,
			   unsigned long long a, unsigned long long b,
			   int in_flight)
{
	char names[sizeof(m->more_disks)], *name, *save;
	size_t len = 512 + 128 * 8, used;
	unsigned int minor = 0;

	*text = malloc(len);
	used = (size_t)snprintf(*text, len,
		 "   8       0 sda %llu 0 %llu 100 0 0 0 0 %d 100 100 0 0 0 0 0 0\n"
		 "   8      16 sdb %llu 0 %llu 400 0 0 0 0 %d 400 400 0 0 0 0 0 0\n"
		 " 254       0 dm-0 %llu 0 %llu 500 0 0 0 0 %d 500 500 0 0 0 0 0 0\n",
		 a, a * 8, in_flight, b, b * 8, in_flight, a + b, (a + b) * 8,
		 2 * in_flight);
	snprintf(names, sizeof(names), "%s", m->more_disks);
	for (name = strtok_r(names, " ", &save); name && used < len;
	     name = strtok_r(NULL, " ", &save))
		used += (size_t)snprintf(*text + used, len - used,
			" 259 %7u %s %llu 0 %llu 100 0 0 0 0 %d 100 100 0 0 0 "
			"0 0 0\n", minor++, name, a, a * 8, in_flight);
}

static int m_diskstats(void *ctx, char **text)
{
	struct run_mock *m = ctx;
	unsigned long long k;

	if (!m->timed) {
		k = (unsigned long long)++m->snapshots * 2048;
		run_mock_log(m, "ds");
		diskstats_text(m, text, k, k, 0);
		return 0;
	}
	advance(m);
	if (!m->running)	/* the case's snapshots, not the timeline's */
		run_mock_log(m, "ds");
	diskstats_text(m, text, m->ios[0], m->ios[1], 4);
	return 0;
}

/* fio on a composed job file: ours is the only filename */
static void check_job_file(struct run_mock *m, const char *path)
{
	char *job;

	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &job, NULL), 0);
	assert_non_null(strstr(job, "[global]\nfilename=/dev/mapper/"
			       "slowpath-t\n"));
	assert_non_null(strstr(job, "\n[mine]\nrandrepeat=0\n"));
	assert_int_equal(strstr(strstr(job, "filename=") + 1, "filename=") ==
			 NULL, 1);
	free(job);
	m->jobs++;
}

static int m_fio_start(void *ctx, const char *const *argv)
{
	struct run_mock *m = ctx;
	size_t i;

	assert_string_equal(argv[0], "fio");
	if (argv[1] && argv[2] && !argv[3])
		check_job_file(m, argv[2]);
	else if (!m->any_device)
		assert_non_null(strstr(argv[3],
				       "--filename=/dev/mapper/slowpath-t"));
	m->argv[0] = '\0';
	for (i = 0; argv[i]; i++) {
		strncat(m->argv, argv[i], sizeof(m->argv) - strlen(m->argv) - 2);
		strcat(m->argv, " ");
	}
	i = strlen(m->argv_seen);
	snprintf(m->argv_seen + i, sizeof(m->argv_seen) - i, "%s|", m->argv);
	m->fio_runs++;
	m->running = 1;
	m->fio_t0 = m->clock;
	run_mock_log(m, "fio");
	return 0;
}

/* untimed: fio ends at the first wait, failing at fail_fio_at */
static int fio_wait_untimed(struct run_mock *m, int *status, char **out,
			    char **errout)
{
	if (m->interrupt_at_fio == m->fio_runs) {
		sp_run_interrupted = 1;	/* Ctrl-C while fio runs */
		return 0;
	}
	m->running = 0;
	run_mock_log(m, "done");
	if (m->fail_fio_at == m->fio_runs) {
		*status = 1;
		*out = strdup("");
		*errout = strdup("fio: pid=42, err=5/file:io_u.c:1889, "
				 "func=io_u error, error=Input/output error\n");
		return 1;
	}
	*status = 0;
	*out = strdup(m->fio_json);
	*errout = strdup("");
	return 1;
}

static int m_fio_wait(void *ctx, unsigned int ms, int *status, char **out,
		      char **errout)
{
	struct run_mock *m = ctx;

	assert_true(m->running);
	if (!m->timed)
		return fio_wait_untimed(m, status, out, errout);
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
	run_mock_log(m, "done@%lld", (long long)((m->clock - m->fio_t0) / MS));
	*status = m->fio_status;
	*out = strdup(m->fio_json);
	*errout = strdup(m->fio_err ? m->fio_err : "");
	return 1;
}

static void m_fio_stop(void *ctx)
{
	struct run_mock *m = ctx;

	m->running = 0;
	if (m->timed)
		run_mock_log(m, "stop@%lld",
			     (long long)((m->clock - m->fio_t0) / MS));
	else
		run_mock_log(m, "stop");
}

static int64_t m_now(void *ctx)
{
	struct run_mock *m = ctx;

	if (!m->timed)
		m->clock += 1000000;	/* 1 ms per look */
	return m->clock;
}

static int m_dm_status(void *ctx, char **text)
{
	struct run_mock *m = ctx;
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

/* The same states as m_dm_status, as nvme-tcp's sysfs gives them:
 * per path, no map status, no selector args. */
static void m_path_states(void *ctx, size_t n, struct sp_tl_path_view *views)
{
	struct run_mock *m = ctx;
	int64_t now = m->clock / MS;
	size_t p;

	for (p = 0; p < n && p < 2; p++) {
		int failed = m->broken_since[p] >= 0 &&
			     now >= m->broken_since[p] + 300 &&
			     (m->fixed_at[p] < 0 || now < m->fixed_at[p] + 200);

		views[p].state = failed ? 'F' : 'A';
		views[p].n_sel = 0;
	}
}

struct sp_run_ops run_mock_nvme_ops(struct run_mock *m)
{
	struct sp_run_ops ops = run_mock_fault_ops(m);

	ops.dm_status = NULL;
	ops.path_states = m_path_states;
	return ops;
}

static int64_t since_fio_ms(const struct run_mock *m)
{
	return (m->clock - m->fio_t0) / MS;
}

static int m_apply(void *ctx, const struct sp_fault *f, char *err,
		   size_t errlen)
{
	struct run_mock *m = ctx;
	int p = path_of(f->path);

	run_mock_log(m, "apply:%s@%lld", f->path, (long long)since_fio_ms(m));
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
	struct run_mock *m = ctx;

	(void)err;
	(void)errlen;
	run_mock_log(m, "%s:%s@%lld", down ? "down" : "up", f->path,
		     (long long)since_fio_ms(m));
	return 0;
}

static int m_restore(void *ctx, const char *path, char *err, size_t errlen)
{
	struct run_mock *m = ctx;

	run_mock_log(m, "restore:%s@%lld", path, (long long)since_fio_ms(m));
	if (m->fail_restore) {
		snprintf(err, errlen, "tgtd of %s did not come back", path);
		return -EIO;
	}
	m->fixed_at[path_of(path)] = m->clock / MS;
	return 0;
}

struct sp_run_ops run_mock_ops(struct run_mock *m)
{
	struct sp_run_ops ops = {
		.selector_set = m_selector_set, .diskstats = m_diskstats,
		.fio_start = m_fio_start, .fio_wait = m_fio_wait,
		.fio_stop = m_fio_stop, .now_ns = m_now, .ctx = m,
	};
	return ops;
}

struct sp_run_ops run_mock_fault_ops(struct run_mock *m)
{
	struct sp_run_ops ops = run_mock_ops(m);

	ops.dm_status = m_dm_status;
	ops.fault_apply = m_apply;
	ops.fault_flap = m_flap;
	ops.fault_restore = m_restore;
	return ops;
}

void run_mock_init(struct run_mock *m)
{
	const char *src = getenv("SRCDIR");
	char path[1024];

	memset(m, 0, sizeof(*m));
	m->broken_since[0] = m->broken_since[1] = -1;
	m->fixed_at[0] = m->fixed_at[1] = -1;
	snprintf(path, sizeof(path),
		 "%s/tests/fixtures/fio/randread-psync-1job.json",
		 src ? src : ".");
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &m->fio_json,
				      NULL), 0);
	sp_run_interrupted = 0;
}

void run_mock_init_timed(struct run_mock *m, int64_t fio_ms)
{
	run_mock_init(m);
	m->timed = 1;
	m->fio_ms = fio_ms;
	m->clock = 1000 * S;
	m->last_ms = m->clock / MS;
}

char *run_mock_tmpdir(const char *name)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/%.40s.XXXXXX", name);
	assert_non_null(mkdtemp(dir));
	return dir;
}

void run_mock_rmtree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

void run_mock_quiet(enum sp_log_level l, const char *msg, void *ctx)
{
	(void)l; (void)msg; (void)ctx;
}

void run_mock_plan(struct sp_run_plan *p)
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
