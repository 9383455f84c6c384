/* tgtd's management socket in-process (tgt_mgmt_wire.c) against a fake
 * tgtd on a socket in a temp folder: the bytes sent are the real
 * tgtadm's for every command line slowpath writes (the program run
 * against the same fake), the answer's text comes back, a refusal and
 * a missing tgtd are failures that say so, and a system delete waits
 * for tgtd to go. No root, no tgtd. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <tgtadm.h>

#include "common/proc.h"
#include "harness/bringup/tgt_mgmt.h"

#define PORT 4242
#define TGTADM "/usr/sbin/tgtadm"

struct fake_tgtd {
	int listen_fd;
	pthread_t thread;
	unsigned char got[SP_TGT_PARAMS_MAX + 256];
	size_t got_len;
	uint32_t reply_err;
	const char *reply_text;
	int silent;	/* accept and never answer */
	int go_after;	/* close the listening socket after one request */
};

static char dir[64], base[96];
static struct fake_tgtd fake;

static int setup(void **state)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sp-test-tgtmgmt-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/socket", dir);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s.%u", base, PORT);
	memset(&fake, 0, sizeof(fake));
	fake.listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fake.listen_fd >= 0);
	assert_int_equal(bind(fake.listen_fd, (struct sockaddr *)&a,
			      sizeof(a)), 0);
	assert_int_equal(listen(fake.listen_fd, 8), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (fake.listen_fd >= 0)
		close(fake.listen_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static int read_n(int fd, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = read(fd, (char *)buf + done, n - done);

		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

/* one request, stored whole, answered as told */
static void *serve_one(void *arg)
{
	struct fake_tgtd *f = arg;
	struct tgtadm_req req;
	struct tgtadm_rsp rsp;
	size_t text = f->reply_text ? strlen(f->reply_text) + 1 : 0;
	int fd = accept(f->listen_fd, NULL, NULL);

	if (fd < 0 || read_n(fd, &req, sizeof(req)) ||
	    req.len < sizeof(req) || req.len > sizeof(f->got))
		goto out;
	memcpy(f->got, &req, sizeof(req));
	if (read_n(fd, f->got + sizeof(req), req.len - sizeof(req)))
		goto out;
	f->got_len = req.len;
	if (f->silent) {
		sleep(1);
		goto out;
	}
	rsp.err = f->reply_err;
	rsp.len = (uint32_t)(sizeof(rsp) + (f->reply_err ? 0 : text));
	if (write(fd, &rsp, sizeof(rsp)) != sizeof(rsp))
		goto out;
	if (!f->reply_err && text && write(fd, f->reply_text, text) < 0)
		goto out;
out:
	if (f->go_after) {
		close(f->listen_fd);
		f->listen_fd = -1;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void serve(void)
{
	fake.got_len = 0;
	assert_int_equal(pthread_create(&fake.thread, NULL, serve_one, &fake),
			 0);
}

static int ours(const char *const *argv, char *out, size_t outlen,
		char *msg, size_t msglen)
{
	static struct sp_tgt_req r;
	int ret;

	assert_int_equal(sp_tgt_req_parse(argv, &r), 0);
	serve();
	ret = sp_tgt_mgmt_send(base, &r, out, outlen, msg, msglen, 5000);
	pthread_join(fake.thread, NULL);
	return ret;
}

/* what the real tgtadm sends for argv, into buf */
static size_t theirs(const char *const *argv, unsigned char *buf)
{
	char env[160];
	const char *const envp[] = { env, NULL };
	struct sp_proc_opts o = { .flags = SP_PROC_STDIN_NULL |
					   SP_PROC_STDOUT_NULL,
				  .timeout_ms = 20000, .env = envp };
	const char *av[40];
	struct sp_proc p;
	size_t i;

	snprintf(env, sizeof(env), "TGT_IPC_SOCKET=%s", base);
	av[0] = TGTADM;
	for (i = 1; argv[i] && i < 39; i++)
		av[i] = argv[i];
	av[i] = NULL;
	serve();
	sp_proc_init(&p);
	assert_int_equal(sp_proc_run(&p, av, &o), 0);
	sp_proc_release(&p);
	pthread_join(fake.thread, NULL);
	memcpy(buf, fake.got, fake.got_len);
	return fake.got_len;
}

#define ARGV(...) ((const char *const[]){ "tgtadm", __VA_ARGS__, NULL })

static void same_bytes_as_tgtadm(void **state)
{
	const char *const *forms[] = {
		ARGV("-C", "4242", "--op", "show", "--mode", "sys"),
		ARGV("-C", "4242", "--lld", "iscsi", "--op", "new", "--mode",
		     "target", "--tid", "1", "-T", "iqn.2026-12.io.slowpath:x"),
		ARGV("-C", "4242", "--lld", "iscsi", "--op", "new", "--mode",
		     "logicalunit", "--tid", "1", "--lun", "1", "-b",
		     "/srv/d.img", "--bstype", "delay", "--bsopts",
		     "delay=500us;ctl=/run/slowpath/p0"),
		ARGV("-C", "4242", "--lld", "iscsi", "--op", "update", "--mode",
		     "logicalunit", "--tid", "1", "--lun", "1", "--params",
		     "scsi_id=SLOWPATH-1,scsi_sn=SP0001"),
		ARGV("-C", "4242", "--lld", "iscsi", "--op", "bind", "--mode",
		     "target", "--tid", "1", "-I", "198.18.0.2"),
		ARGV("-C", "4242", "--lld", "iscsi", "--op", "new", "--mode",
		     "account", "--user", "sp", "--password", "0123456789ab"),
		ARGV("-C", "4242", "--lld", "iscsi", "--op", "bind", "--mode",
		     "account", "--tid", "1", "--user", "sp"),
		ARGV("-C", "4242", "--lld", "iscsi", "--op", "delete", "--mode",
		     "target", "--tid", "1", "--force"),
	};
	static unsigned char want[sizeof(fake.got)];
	size_t i, n;

	(void)state;
	if (access(TGTADM, X_OK))
		skip();	/* make deps installs tgt */
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		n = theirs(forms[i], want);
		assert_true(n >= sizeof(struct tgtadm_req));
		assert_int_equal(ours(forms[i], NULL, 0, NULL, 0), 0);
		assert_int_equal(fake.got_len, n);
		assert_memory_equal(fake.got, want, n);
	}
}

static void answer_text_comes_back(void **state)
{
	char out[16];

	(void)state;
	fake.reply_text = "System:\n    State: ready\n";
	assert_int_equal(ours(ARGV("-C", "4242", "--op", "show", "--mode",
				   "sys"), out, sizeof(out), NULL, 0), 0);
	/* truncated to the room, the rest read and dropped */
	assert_string_equal(out, "System:\n    Sta");
}

static void a_refusal_is_a_failure_that_says_which(void **state)
{
	char msg[256];
	int ret;

	(void)state;
	fake.reply_err = TGTADM_NO_TARGET;
	ret = ours(ARGV("-C", "4242", "--lld", "iscsi", "--op", "bind",
			"--mode", "target", "--tid", "9", "-I", "198.18.0.2"),
		   NULL, 0, msg, sizeof(msg));
	assert_int_equal(ret, TGTADM_NO_TARGET);
	assert_non_null(strstr(msg, "no such target"));
	assert_non_null(strstr(msg, "4242"));
}

static void no_tgtd_is_a_failure(void **state)
{
	struct sp_tgt_req r;
	char msg[256];

	(void)state;
	assert_int_equal(sp_tgt_req_parse(ARGV("-C", "4243", "--op", "show",
					       "--mode", "sys"), &r), 0);
	assert_int_equal(sp_tgt_mgmt_send(base, &r, NULL, 0, msg, sizeof(msg),
					  1000), ENOENT);
	assert_non_null(strstr(msg, "cannot reach tgtd"));
}

static void a_silent_tgtd_times_out(void **state)
{
	struct sp_tgt_req r;
	char msg[256];
	int ret;

	(void)state;
	fake.silent = 1;
	assert_int_equal(sp_tgt_req_parse(ARGV("-C", "4242", "--op", "show",
					       "--mode", "sys"), &r), 0);
	serve();
	ret = sp_tgt_mgmt_send(base, &r, NULL, 0, msg, sizeof(msg), 200);
	pthread_join(fake.thread, NULL);
	assert_true(ret == EAGAIN || ret == ETIMEDOUT);
	assert_non_null(strstr(msg, "no answer"));
}

static void system_delete_waits_until_tgtd_is_gone(void **state)
{
	(void)state;
	fake.go_after = 1;
	assert_int_equal(ours(ARGV("-C", "4242", "--lld", "iscsi", "--op",
				   "delete", "--mode", "system"),
			      NULL, 0, NULL, 0), 0);
	assert_int_equal(fake.listen_fd, -1);
}

static void a_delete_that_never_ends_fails(void **state)
{
	struct sp_tgt_req r;
	char msg[256];

	(void)state;
	/* answered, but the socket still takes connections */
	assert_int_equal(sp_tgt_req_parse(ARGV("-C", "4242", "--op", "delete",
					       "--mode", "system"), &r), 0);
	serve();
	assert_int_equal(sp_tgt_mgmt_send(base, &r, NULL, 0, msg, sizeof(msg),
					  300), ETIMEDOUT);
	pthread_join(fake.thread, NULL);
	assert_non_null(strstr(msg, "did not go"));
}

static void only_tgtadm_is_spoken(void **state)
{
	(void)state;
	assert_int_equal(sp_tgt_mgmt_run((const char *const[]){ "iscsiadm",
				"-m", "session", NULL }, NULL, 0, NULL, 0, 100),
			 -ENOTSUP);
	assert_int_equal(sp_tgt_mgmt_run(ARGV("-C", "1", "--op", "stat",
					      "--mode", "sys"), NULL, 0, NULL,
					 0, 100), -ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(same_bytes_as_tgtadm),
		T(answer_text_comes_back),
		T(a_refusal_is_a_failure_that_says_which),
		T(no_tgtd_is_a_failure),
		T(a_silent_tgtd_times_out),
		T(system_delete_waits_until_tgtd_is_gone),
		T(a_delete_that_never_ends_fails),
		T(only_tgtadm_is_spoken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
