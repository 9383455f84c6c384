/* The host's side of a lab session (lab/lab_ctl.c): what it sends, how
 * it takes the guest's answer apart, and the host sink that writes the
 * files the guest sends back. The guest is played by frames written
 * into the other end of a socketpair; the sink writes into a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct seen {
	char out[256], err[256];
	int files, data, signals_left;
	char last_file[256];
};

static int rec_stream(void *ctx, int which, const void *p, size_t n)
{
	struct seen *s = ctx;
	char *dst = which == 1 ? s->out : s->err;

	strncat(dst, p, n);
	return 0;
}

static int rec_file(void *ctx, unsigned int root, uint32_t mode, const char *rel)
{
	struct seen *s = ctx;

	snprintf(s->last_file, sizeof(s->last_file), "%u:%o:%s", root, mode, rel);
	s->files++;
	return 0;
}

static int rec_data(void *ctx, const void *p, size_t n)
{
	(void)p; (void)n;
	((struct seen *)ctx)->data++;
	return 0;
}

static int rec_signal(void *ctx)
{
	struct seen *s = ctx;

	return s->signals_left-- > 0 ? 2 : 0;
}

static void guest_says(int fd, int type, const void *p, size_t n)
{
	assert_int_equal(sp_lab_send(fd, type, p, n), 0);
}

static int run_session(int guest_fd_closed_after, struct seen *s,
		       void (*script)(int fd), int *code)
{
	char cwd[] = "/";
	char *argv[] = { "true", NULL }, *none[] = { NULL };
	struct sp_lab_req req = { .cwd = cwd, .argv = argv, .env = none,
				  .sync = none };
	struct sp_lab_sink_ops ops = { rec_stream, rec_file, rec_data,
				       rec_signal, s };
	int sv[2], ret;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	script(sv[1]);
	if (guest_fd_closed_after)
		shutdown(sv[1], SHUT_WR);
	ret = sp_lab_session(sv[0], &req, &ops, code);
	close(sv[0]);
	close(sv[1]);
	return ret;
}

static void script_good(int fd)
{
	unsigned char code[4], *f;
	size_t n;

	guest_says(fd, SP_LAB_F_OUT, "hello ", 6);
	guest_says(fd, SP_LAB_F_ERR, "oops", 4);
	guest_says(fd, SP_LAB_F_OUT, "world", 5);
	assert_int_equal(sp_lab_file_encode(0, 0644, "r/x.json", &f, &n), 0);
	guest_says(fd, SP_LAB_F_FILE, f, n);
	free(f);
	guest_says(fd, SP_LAB_F_DATA, "{}", 2);
	sp_lab_exit_encode(7, code);
	guest_says(fd, SP_LAB_F_EXIT, code, 4);
}

static void test_session_relays_and_returns_exit_code(void **state)
{
	struct seen s = { .signals_left = 0 };
	int code = -1;

	(void)state;
	assert_int_equal(run_session(0, &s, script_good, &code), 0);
	assert_int_equal(code, 7);
	assert_string_equal(s.out, "hello world");
	assert_string_equal(s.err, "oops");
	assert_int_equal(s.files, 1);
	assert_string_equal(s.last_file, "0:644:r/x.json");
	assert_int_equal(s.data, 1);
}

static void script_dies(int fd)
{
	guest_says(fd, SP_LAB_F_OUT, "half", 4);
}

static void test_session_lab_gone_before_exit(void **state)
{
	struct seen s = { 0 };
	int code = -1;

	(void)state;
	assert_int_equal(run_session(1, &s, script_dies, &code), -EPIPE);
	assert_string_equal(s.out, "half");
}

static void script_hostile(int fd)
{
	/* a REQ from the guest: only the host sends those */
	guest_says(fd, SP_LAB_F_REQ, "x", 1);
}

static void script_bad_file(int fd)
{
	unsigned char f[] = { 0, 0, 1, 0xa4, '.', '.', '/', 'x' };

	guest_says(fd, SP_LAB_F_FILE, f, sizeof(f));
}

static void script_garbage(int fd)
{
	assert_int_equal(write(fd, "GET / HTTP/1.0\r\n", 16), 16);
}

static void test_session_refuses_hostile_answers(void **state)
{
	struct seen s = { 0 };
	int code = -1;

	(void)state;
	assert_int_equal(run_session(0, &s, script_hostile, &code), -EBADMSG);
	assert_int_equal(run_session(0, &s, script_bad_file, &code), -EBADMSG);
	assert_int_equal(s.files, 0);
	assert_int_equal(run_session(0, &s, script_garbage, &code), -EBADMSG);
}

static void test_session_sends_request_and_signal(void **state)
{
	char cwd[] = "/w";
	char *argv[] = { "sleep", "9", NULL }, *none[] = { NULL };
	struct sp_lab_req req = { .cwd = cwd, .argv = argv, .env = none,
				  .sync = none }, got;
	struct seen s = { .signals_left = 1 };
	struct sp_lab_sink_ops ops = { rec_stream, rec_file, rec_data,
				       rec_signal, &s };
	unsigned char buf[4096], code[4];
	const unsigned char *p;
	struct sp_lab_dec d;
	size_t n;
	int sv[2], type, c = -1;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	sp_lab_exit_encode(130, code);
	guest_says(sv[1], SP_LAB_F_EXIT, code, 4);
	assert_int_equal(sp_lab_session(sv[0], &req, &ops, &c), 0);
	assert_int_equal(c, 130);
	/* what the guest got: the request, then SIGINT for Ctrl-C */
	sp_lab_dec_init(&d);
	n = (size_t)read(sv[1], buf, sizeof(buf));
	assert_int_equal(sp_lab_dec_feed(&d, buf, n), 0);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 1);
	assert_int_equal(type, SP_LAB_F_REQ);
	assert_int_equal(sp_lab_req_decode(p, n, &got), 0);
	assert_string_equal(got.argv[1], "9");
	assert_string_equal(got.cwd, "/w");
	sp_lab_req_free(&got);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 1);
	assert_int_equal(type, SP_LAB_F_SIG);
	assert_int_equal(n, 1);
	assert_int_equal(p[0], 2);
	sp_lab_dec_free(&d);
	close(sv[0]);
	close(sv[1]);
}

static void test_host_sink_stays_in_its_folder(void **state)
{
	char tmpl[] = "/tmp/sp-labctl-XXXXXX", root[64], path[160], buf[16];
	char *roots[] = { root, NULL };
	struct sp_lab_sink_ops ops;
	struct sp_lab_files f;
	volatile sig_atomic_t sig = 0;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s/out", tmpl);
	sp_lab_files_init(&f, roots, &sig);
	sp_lab_host_sink(&ops, &f);
	/* a file in a new subfolder: made, written, mode kept */
	assert_int_equal(ops.file_open(ops.ctx, 0, 0640, "run1/cases/a.json"), 0);
	assert_int_equal(ops.file_data(ops.ctx, "abc", 3), 0);
	sp_lab_files_close(&f);
	snprintf(path, sizeof(path), "%s/run1/cases/a.json", root);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 3);
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	/* a folder number the request did not name */
	assert_true(ops.file_open(ops.ctx, 1, 0644, "x") < 0);
	/* a link planted where a file or a folder goes is not followed */
	snprintf(path, sizeof(path), "%s/run1/link", root);
	assert_int_equal(symlink("/etc/passwd-not-here", path), 0);
	assert_true(ops.file_open(ops.ctx, 0, 0644, "run1/link") < 0);
	snprintf(path, sizeof(path), "%s/run1/dirlink", root);
	assert_int_equal(symlink(tmpl, path), 0);
	assert_true(ops.file_open(ops.ctx, 0, 0644, "run1/dirlink/x") < 0);
	snprintf(path, sizeof(path), "%s/x", tmpl);
	assert_int_equal(access(path, F_OK), -1);
	/* bytes for a refused file go nowhere */
	assert_int_equal(ops.file_data(ops.ctx, "zzz", 3), 0);
	assert_int_equal(f.failed, 3);
	assert_int_equal(f.written, 1);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmpl);
	assert_int_equal(system(path), 0);
}

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void assert_file_says(const char *path, const char *text)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) >= 0);
	close(fd);
	assert_string_equal(buf, text);
}

static int copy_back(struct sp_lab_sink_ops *ops, const char *rel,
		     const char *text)
{
	int ret = ops->file_open(ops->ctx, 0, 0644, rel);

	ops->file_data(ops->ctx, text, strlen(text));
	return ret;
}

/* issue 23 item 2: results/ holds an earlier run; the guest may fill the
 * one new folder its command made there, and nothing else. */
static void test_copy_back_keeps_earlier_results(void **state)
{
	char tmpl[] = "/tmp/sp-labctl-XXXXXX", root[64], path[160];
	char *roots[] = { root, NULL };
	struct sp_lab_sink_ops ops;
	struct sp_lab_files f;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s/results", tmpl);
	assert_int_equal(mkdir(root, 0755), 0);
	snprintf(path, sizeof(path), "%s/old", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/old/report.md", root);
	put_file(path, "old");
	sp_lab_files_init(&f, roots, NULL);
	f.one_new_folder = 1;
	sp_lab_host_sink(&ops, &f);
	/* an earlier run's file replaced, one planted beside it or in the
	 * root itself: all refused, nothing changed */
	assert_int_equal(copy_back(&ops, "old/report.md", "new"), -EEXIST);
	assert_file_says(path, "old");
	assert_true(copy_back(&ops, "old/planted.json", "x") < 0);
	snprintf(path, sizeof(path), "%s/old/planted.json", root);
	assert_int_equal(lstat(path, &st), -1);
	assert_true(copy_back(&ops, "stray.txt", "x") < 0);
	snprintf(path, sizeof(path), "%s/stray.txt", root);
	assert_int_equal(lstat(path, &st), -1);
	/* the command's own new folder: filled, but never twice */
	assert_int_equal(copy_back(&ops, "new/cases/a.json", "a"), 0);
	assert_int_equal(copy_back(&ops, "new/report.md", "r"), 0);
	assert_int_equal(copy_back(&ops, "new/report.md", "again"), -EEXIST);
	sp_lab_files_close(&f);
	snprintf(path, sizeof(path), "%s/new/report.md", root);
	assert_file_says(path, "r");
	/* a second new folder is not this command's */
	assert_true(copy_back(&ops, "other/x.json", "x") < 0);
	snprintf(path, sizeof(path), "%s/other", root);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(f.written, 2);
	assert_int_equal(f.failed, 5);

	/* run --out DIR: a folder made now, or found empty, is all its own */
	snprintf(root, sizeof(root), "%s/fresh", tmpl);
	sp_lab_files_init(&f, roots, NULL);
	f.one_new_folder = 1;
	sp_lab_host_sink(&ops, &f);
	assert_int_equal(copy_back(&ops, "report.md", "r"), 0);
	assert_int_equal(copy_back(&ops, "cases/a.json", "a"), 0);
	assert_int_equal(copy_back(&ops, "report.md", "again"), -EEXIST);
	sp_lab_files_close(&f);
	snprintf(path, sizeof(path), "%s/report.md", root);
	assert_file_says(path, "r");
	snprintf(path, sizeof(path), "rm -rf '%s'", tmpl);
	assert_int_equal(system(path), 0);
}

/* issue 23 item 3: results/ a symlink: the guest's command exits 0, its
 * files cannot be copied back, and the verdict is exit 3, not 0. */
static void test_copy_back_failure_is_exit_3(void **state)
{
	char tmpl[] = "/tmp/sp-labctl-XXXXXX", root[64], path[160];
	char *argv[] = { "run", NULL }, *none[] = { NULL }, cwd[] = "/";
	char *roots[] = { root, NULL };
	struct sp_lab_req req = { .cwd = cwd, .argv = argv, .env = none,
				  .sync = roots };
	struct sp_lab_sink_ops ops;
	struct sp_lab_files f;
	unsigned char code_be[4], *enc;
	size_t n;
	int sv[2], code = -1;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/elsewhere", tmpl);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(root, sizeof(root), "%s/results", tmpl);
	assert_int_equal(symlink("elsewhere", root), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(sp_lab_file_encode(0, 0644, "run1/report.md", &enc, &n), 0);
	guest_says(sv[1], SP_LAB_F_FILE, enc, n);
	free(enc);
	guest_says(sv[1], SP_LAB_F_DATA, "r", 1);
	sp_lab_exit_encode(0, code_be);
	guest_says(sv[1], SP_LAB_F_EXIT, code_be, 4);
	sp_lab_files_init(&f, roots, NULL);
	f.one_new_folder = 1;
	sp_lab_host_sink(&ops, &f);
	assert_int_equal(sp_lab_session(sv[0], &req, &ops, &code), 0);
	sp_lab_files_close(&f);
	assert_int_equal(code, 0);
	assert_int_equal(f.failed, 1);
	assert_int_equal(sp_lab_files_verdict(&f, code), 3);
	f.failed = 0;
	assert_int_equal(sp_lab_files_verdict(&f, 5), 5);
	close(sv[0]);
	close(sv[1]);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmpl);
	assert_int_equal(system(path), 0);
}

/* issue 23 item 6: SLOWPATH_LAB_RUN by the output-folder rules. */
static void test_run_folder_is_checked(void **state)
{
	char tmpl[] = "/tmp/sp-labctl-XXXXXX", dir[64], link[64], err[512];
	struct sp_lab_run r;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(dir, sizeof(dir), "%s/lab", tmpl);
	setenv("SLOWPATH_LAB_RUN", dir, 1);
	assert_int_equal(sp_lab_run_paths(&r), 0);
	assert_int_equal(sp_lab_run_check(&r, err, sizeof(err)), 0); /* missing */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(sp_lab_run_check(&r, err, sizeof(err)), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(sp_lab_run_check(&r, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "0777"));
	assert_int_equal(chmod(dir, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(sp_lab_run_check(&r, err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "uid 65534"));
	}
	/* a link is one more spelling (item 4): the folder it names is
	 * the one checked, so it is refused when that folder would be */
	assert_int_equal(chown(dir, geteuid(), getegid()), 0);
	snprintf(link, sizeof(link), "%s/link", tmpl);
	assert_int_equal(symlink("lab", link), 0);
	setenv("SLOWPATH_LAB_RUN", link, 1);
	assert_int_equal(sp_lab_run_paths(&r), 0);
	assert_non_null(strstr(r.dir, "/lab"));
	assert_null(strstr(r.dir, "/link"));
	assert_int_equal(sp_lab_run_check(&r, err, sizeof(err)), 0);
	if (geteuid() == 0) {	/* another user's link: refused */
		assert_int_equal(lchown(link, 65534, 65534), 0);
		assert_int_equal(sp_lab_run_check(&r, err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "a link of uid 65534"));
		assert_int_equal(lchown(link, 0, 0), 0);
	}
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(sp_lab_run_check(&r, err, sizeof(err)), -EPERM);
	unsetenv("SLOWPATH_LAB_RUN");
	snprintf(dir, sizeof(dir), "rm -rf '%s'", tmpl);
	assert_int_equal(system(dir), 0);
}

static void test_info_round_trip(void **state)
{
	struct sp_lab_info in = { .pid = 4242, .started = 1790000000,
				  .cpus = 2, .mem = 2ULL << 30 }, out;
	char text[8192];

	(void)state;
	snprintf(in.kver, sizeof(in.kver), "6.1.0-57-amd64");
	snprintf(in.console, sizeof(in.console), "/b/lab/logs/x.log");
	assert_int_equal(sp_lab_info_format(&in, text, sizeof(text)), 0);
	assert_int_equal(sp_lab_info_parse(text, &out), 0);
	assert_int_equal(out.pid, 4242);
	assert_int_equal(out.started, 1790000000);
	assert_int_equal(out.mem, 2ULL << 30);
	assert_string_equal(out.kver, "6.1.0-57-amd64");
	assert_string_equal(out.console, "/b/lab/logs/x.log");
	/* a lab from before engines were recorded: none said (qemu) */
	assert_string_equal(out.engine, "");
	snprintf(in.engine, sizeof(in.engine), "uml");
	snprintf(in.time, sizeof(in.time), "exact");
	assert_int_equal(sp_lab_info_format(&in, text, sizeof(text)), 0);
	assert_int_equal(sp_lab_info_parse(text, &out), 0);
	assert_string_equal(out.engine, "uml");
	assert_string_equal(out.time, "exact");
	/* a value too long for its field is dropped, not cut */
	assert_int_equal(sp_lab_info_parse("pid 1\nengine umlumlumlx\ntime exactexact\n",
					   &out), 0);
	assert_string_equal(out.engine, "");
	assert_string_equal(out.time, "");
	assert_int_equal(sp_lab_info_parse("cpus 2\n", &out), -EINVAL);
	assert_int_equal(sp_lab_info_parse("", &out), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_relays_and_returns_exit_code),
		cmocka_unit_test(test_session_lab_gone_before_exit),
		cmocka_unit_test(test_session_refuses_hostile_answers),
		cmocka_unit_test(test_session_sends_request_and_signal),
		cmocka_unit_test(test_host_sink_stays_in_its_folder),
		cmocka_unit_test(test_copy_back_keeps_earlier_results),
		cmocka_unit_test(test_copy_back_failure_is_exit_3),
		cmocka_unit_test(test_run_folder_is_checked),
		cmocka_unit_test(test_info_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
