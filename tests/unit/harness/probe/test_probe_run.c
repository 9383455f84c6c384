/* probe_run() against a fake libiscsi (-Wl,--wrap): the queue is kept at
 * qd, the run stops at --ios, a failed command stops submission, the
 * session is always logged out once logged in, UNIT ATTENTIONs at login
 * are consumed, and --verify sees what the target returned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "common/log.h"
#include "harness/probe/probe.h"
#include "harness/probe/probe_data.h"

static int n_errors;
static char last_error[1024];

static void capture_log(enum sp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level != SP_LOG_ERR)
		return;
	n_errors++;
	snprintf(last_error, sizeof(last_error), "%s", msg);
}

#define FAKE_BLOCK 512
#define MAX_PENDING 512

struct pending {
	struct scsi_task *task;
	iscsi_command_cb cb;
	void *priv;
};

static struct fake {
	char ctx;			/* its address is the context */
	struct pending q[MAX_PENDING];
	int n_pending, max_pending;
	int submitted, writes;
	int fail_at;			/* completion number that fails, 0: none */
	int completed;
	int login_fails;
	int ua_count;			/* TURs answered with UNIT ATTENTION */
	int turs, logouts, destroys, tasks_alive;
	uint64_t capacity_blocks;
	int64_t data_seed;		/* what reads return */
	struct scsi_readcapacity16 rc16;
	int connects, chap_calls;
	char chap_user[64], chap_pwd[300];
} fk;

static struct scsi_task *new_task(int status)
{
	struct scsi_task *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->status = status;
	fk.tasks_alive++;
	return t;
}

struct iscsi_context *__wrap_iscsi_create_context(const char *name)
{
	(void)name;
	return (struct iscsi_context *)&fk.ctx;
}

int __wrap_iscsi_destroy_context(struct iscsi_context *i)
{
	(void)i;
	fk.destroys++;
	return 0;
}

void __wrap_iscsi_set_log_fn(struct iscsi_context *i, iscsi_log_fn fn) { (void)i; (void)fn; }
void __wrap_iscsi_set_log_level(struct iscsi_context *i, int l) { (void)i; (void)l; }
int __wrap_iscsi_set_targetname(struct iscsi_context *i, const char *t) { (void)i; (void)t; return 0; }
int __wrap_iscsi_set_session_type(struct iscsi_context *i, enum iscsi_session_type t) { (void)i; (void)t; return 0; }
int __wrap_iscsi_set_header_digest(struct iscsi_context *i, enum iscsi_header_digest d) { (void)i; (void)d; return 0; }
int __wrap_iscsi_set_timeout(struct iscsi_context *i, int t) { (void)i; (void)t; return 0; }
void __wrap_iscsi_set_noautoreconnect(struct iscsi_context *i, int s) { (void)i; (void)s; }
const char *__wrap_iscsi_get_error(struct iscsi_context *i) { (void)i; return "fake error"; }
int __wrap_iscsi_get_fd(struct iscsi_context *i) { (void)i; return 42; }
int __wrap_iscsi_which_events(struct iscsi_context *i) { (void)i; return POLLIN; }
int __wrap_iscsi_connect_sync(struct iscsi_context *i, const char *p) { (void)i; (void)p; fk.connects++; return 0; }

int __wrap_iscsi_set_initiator_username_pwd(struct iscsi_context *i,
					    const char *user, const char *pwd)
{
	(void)i;
	fk.chap_calls++;
	snprintf(fk.chap_user, sizeof(fk.chap_user), "%s", user);
	snprintf(fk.chap_pwd, sizeof(fk.chap_pwd), "%s", pwd);
	return 0;
}

int __wrap_iscsi_login_sync(struct iscsi_context *i)
{
	(void)i;
	return fk.login_fails ? -1 : 0;
}

int __wrap_iscsi_logout_sync(struct iscsi_context *i)
{
	(void)i;
	fk.logouts++;
	return 0;
}

struct scsi_task *__wrap_iscsi_testunitready_sync(struct iscsi_context *i, int lun)
{
	struct scsi_task *t;

	(void)i;
	(void)lun;
	fk.turs++;
	if (fk.turs <= fk.ua_count) {
		t = new_task(SCSI_STATUS_CHECK_CONDITION);
		t->sense.key = SCSI_SENSE_UNIT_ATTENTION;
		return t;
	}
	return new_task(SCSI_STATUS_GOOD);
}

struct scsi_task *__wrap_iscsi_readcapacity16_sync(struct iscsi_context *i, int lun)
{
	(void)i;
	(void)lun;
	return new_task(SCSI_STATUS_GOOD);
}

void *__wrap_scsi_datain_unmarshall(struct scsi_task *t)
{
	(void)t;
	fk.rc16.block_length = FAKE_BLOCK;
	fk.rc16.returned_lba = fk.capacity_blocks - 1;
	return &fk.rc16;
}

void __wrap_scsi_free_scsi_task(struct scsi_task *t)
{
	free(t->datain.data);
	free(t);
	fk.tasks_alive--;
}

static struct scsi_task *queue(iscsi_command_cb cb, void *priv,
			       struct scsi_task *t)
{
	assert_true(fk.n_pending < MAX_PENDING);
	fk.q[fk.n_pending++] = (struct pending){ t, cb, priv };
	if (fk.n_pending > fk.max_pending)
		fk.max_pending = fk.n_pending;
	fk.submitted++;
	return t;
}

struct scsi_task *__wrap_iscsi_read16_task(struct iscsi_context *i, int lun,
	uint64_t lba, uint32_t len, int bs, int rp, int dpo, int fua,
	int fua_nv, int gn, iscsi_command_cb cb, void *priv)
{
	struct scsi_task *t = new_task(SCSI_STATUS_GOOD);

	(void)i; (void)lun; (void)rp; (void)dpo; (void)fua; (void)fua_nv; (void)gn;
	assert_int_equal(bs, FAKE_BLOCK);
	assert_true(lba + len / FAKE_BLOCK <= fk.capacity_blocks);
	t->datain.size = (int)len;
	t->datain.data = malloc(len);
	assert_non_null(t->datain.data);
	probe_pattern_fill(t->datain.data, len, (uint64_t)fk.data_seed,
			   lba * FAKE_BLOCK);
	return queue(cb, priv, t);
}

struct scsi_task *__wrap_iscsi_write16_task(struct iscsi_context *i, int lun,
	uint64_t lba, unsigned char *data, uint32_t len, int bs, int wp,
	int dpo, int fua, int fua_nv, int gn, iscsi_command_cb cb, void *priv)
{
	(void)i; (void)lun; (void)bs; (void)wp; (void)dpo; (void)fua; (void)fua_nv; (void)gn;
	/* what is written is the pattern of its own address */
	assert_true(probe_pattern_check(data, len, 7, lba * FAKE_BLOCK));
	fk.writes++;
	return queue(cb, priv, new_task(SCSI_STATUS_GOOD));
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	(void)n;
	(void)timeout;
	fds[0].revents = POLLIN;
	return 1;
}

/* Completes what was pending when called, oldest first; the callbacks
 * queue the next commands. */
int __wrap_iscsi_service(struct iscsi_context *i, int revents)
{
	struct pending now[MAX_PENDING];
	int n = fk.n_pending, k, status;

	(void)revents;
	memcpy(now, fk.q, sizeof(now[0]) * (size_t)n);
	fk.n_pending = 0;
	for (k = 0; k < n; k++) {
		fk.completed++;
		status = fk.completed == fk.fail_at ? SCSI_STATUS_CHECK_CONDITION
						   : SCSI_STATUS_GOOD;
		now[k].task->status = status;
		now[k].cb(i, status, now[k].task, now[k].priv);
	}
	return 0;
}

static int reset(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	n_errors = 0;
	last_error[0] = '\0';
	fk.capacity_blocks = 2048;	/* 1 MiB */
	fk.data_seed = 7;
	return 0;
}

static void opts(struct probe_opts *o, int64_t qd, int64_t ios)
{
	assert_int_equal(probe_opts_init(o), 0);
	o->url = "iscsi://127.0.0.1:3260/iqn.2020-01.io.slowpath:t1/1";
	o->qd = qd;
	o->ios = ios;
}

static void keeps_qd_outstanding_until_ios(void **state)
{
	struct probe_opts o;
	struct probe_result r;

	(void)state;
	opts(&o, 8, 100);
	assert_int_equal(probe_run(&o, &r), 0);
	assert_int_equal(fk.max_pending, 8);
	assert_int_equal(fk.submitted, 100);
	assert_int_equal(r.ios, 100);
	assert_int_equal(r.lat.n, 100);
	assert_int_equal(r.bytes, 100 * 4096);
	assert_int_equal(r.capacity_bytes, 2048 * FAKE_BLOCK);
	assert_int_equal(fk.logouts, 1);
	assert_int_equal(fk.destroys, 1);
	assert_int_equal(fk.tasks_alive, 0);
}

static void a_failed_command_stops_the_run(void **state)
{
	struct probe_opts o;
	struct probe_result r;

	(void)state;
	fk.fail_at = 10;
	opts(&o, 4, 1000);
	assert_int_equal(probe_run(&o, &r), -EIO);
	assert_int_equal(r.errors, 1);
	assert_int_equal(n_errors, 1);
	/* the ones already in flight drain, nothing new goes out */
	assert_true(fk.submitted <= 10 + 3);
	assert_int_equal(fk.n_pending, 0);
	assert_int_equal(fk.logouts, 1);
	assert_int_equal(fk.tasks_alive, 0);
}

static void login_refused_is_not_logged_out(void **state)
{
	struct probe_opts o;
	struct probe_result r;

	(void)state;
	fk.login_fails = 1;
	opts(&o, 1, 10);
	assert_int_equal(probe_run(&o, &r), -ECONNREFUSED);
	/* one line, naming what was refused and where */
	assert_int_equal(n_errors, 1);
	assert_non_null(strstr(last_error, "cannot log in to iqn.2020-01.io.slowpath:t1 at 127.0.0.1:3260"));
	assert_int_equal(fk.submitted, 0);
	assert_int_equal(fk.logouts, 0);
	assert_int_equal(fk.destroys, 1);
}

static void unit_attentions_are_consumed(void **state)
{
	struct probe_opts o;
	struct probe_result r;

	(void)state;
	fk.ua_count = 2;
	opts(&o, 1, 5);
	assert_int_equal(probe_run(&o, &r), 0);
	assert_int_equal(fk.turs, 3);
	assert_int_equal(r.ios, 5);
	assert_int_equal(fk.tasks_alive, 0);
}

static void region_past_the_end_is_refused(void **state)
{
	struct probe_opts o;
	struct probe_result r;

	(void)state;
	opts(&o, 1, 5);
	o.offset = 512 * 1024;
	o.size = 1024 * 1024;
	assert_int_equal(probe_run(&o, &r), -EINVAL);
	assert_int_equal(fk.submitted, 0);
	assert_int_equal(fk.logouts, 1);
}

static void verify_sees_the_data(void **state)
{
	struct probe_opts o;
	struct probe_result r;
	uint64_t sum;

	(void)state;
	opts(&o, 4, 256);
	o.rw = PROBE_READ;
	o.verify = 1;
	o.pattern = 7;
	assert_int_equal(probe_run(&o, &r), 0);
	assert_int_equal(r.verify_mismatches, 0);
	sum = r.checksum;

	reset(NULL);
	fk.data_seed = 8;	/* the target holds something else */
	opts(&o, 4, 256);
	o.rw = PROBE_READ;
	o.verify = 1;
	o.pattern = 7;
	assert_int_equal(probe_run(&o, &r), 0);
	assert_int_equal(r.verify_mismatches, 256);
	assert_int_not_equal(r.checksum, sum);
}

static void writes_carry_the_pattern(void **state)
{
	struct probe_opts o;
	struct probe_result r;

	(void)state;
	opts(&o, 16, 300);
	o.rw = PROBE_RANDWRITE;
	o.pattern = 7;
	assert_int_equal(probe_run(&o, &r), 0);
	assert_int_equal(fk.writes, 300);
	assert_int_equal(fk.max_pending, 16);
}

static void secret_file(char *path, size_t len, const char *text)
{
	FILE *f;

	snprintf(path, len, "/tmp/sp-test-probe-chap-%d", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void chap_credentials_come_from_the_file(void **state)
{
	struct probe_opts o;
	struct probe_result r;
	char path[128];

	(void)state;
	opts(&o, 1, 10);
	assert_int_equal(probe_run(&o, &r), 0);
	assert_int_equal(fk.chap_calls, 0);	/* none asked, none set */

	secret_file(path, sizeof(path), "Xq3vB8kLm2Pz9RtY7wAe4sDf\n");
	o.chap_user = "slowpath-3fa2-Ab12Cd34";
	o.chap_secret_file = path;
	assert_int_equal(probe_run(&o, &r), 0);
	assert_int_equal(fk.chap_calls, 1);
	assert_string_equal(fk.chap_user, "slowpath-3fa2-Ab12Cd34");
	assert_string_equal(fk.chap_pwd, "Xq3vB8kLm2Pz9RtY7wAe4sDf");
	unlink(path);
}

static void a_bad_secret_file_stops_before_connecting(void **state)
{
	struct probe_opts o;
	struct probe_result r;
	char path[128], err[256];

	(void)state;
	opts(&o, 1, 10);
	o.chap_user = "u";
	o.chap_secret_file = "/nonexistent/chap-secret";
	assert_int_equal(probe_run(&o, &r), -ENOENT);
	assert_int_equal(n_errors, 1);
	assert_non_null(strstr(last_error, "/nonexistent/chap-secret"));
	assert_int_equal(fk.connects, 0);

	secret_file(path, sizeof(path), "two words\n");
	o.chap_secret_file = path;
	assert_int_equal(probe_run(&o, &r), -EINVAL);
	assert_null(strstr(last_error, "two words"));
	secret_file(path, sizeof(path), "\n");
	assert_int_equal(probe_run(&o, &r), -EINVAL);
	assert_non_null(strstr(last_error, "empty"));
	assert_int_equal(fk.connects, 0);
	assert_int_equal(fk.chap_calls, 0);
	unlink(path);

	/* one without the other is a usage error */
	o.chap_secret_file = NULL;
	assert_int_equal(probe_opts_validate(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "go together"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(keeps_qd_outstanding_until_ios, reset),
		cmocka_unit_test_setup(a_failed_command_stops_the_run, reset),
		cmocka_unit_test_setup(login_refused_is_not_logged_out, reset),
		cmocka_unit_test_setup(unit_attentions_are_consumed, reset),
		cmocka_unit_test_setup(region_past_the_end_is_refused, reset),
		cmocka_unit_test_setup(verify_sees_the_data, reset),
		cmocka_unit_test_setup(writes_carry_the_pattern, reset),
		cmocka_unit_test_setup(chap_credentials_come_from_the_file, reset),
		cmocka_unit_test_setup(a_bad_secret_file_stops_before_connecting, reset),
	};

	sp_log_set_hook(capture_log, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
