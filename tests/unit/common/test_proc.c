/* The process runner: exit codes, capture, time limits that stop the
 * whole group, log files, fds handed on, blocked signals. Runs real
 * /bin/sh children; nothing needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "common/proc.h"

static int run_sh(struct sp_proc *p, const char *script, unsigned int flags,
		  unsigned int timeout_ms)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct sp_proc_opts o = { .flags = flags, .timeout_ms = timeout_ms };

	sp_proc_init(p);
	return sp_proc_run(p, argv, &o);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void exit_codes_come_back(void **state)
{
	const char *t[] = { "true", NULL }, *f[] = { "false", NULL };
	struct sp_proc p;

	(void)state;
	sp_proc_init(&p);
	assert_int_equal(sp_proc_run(&p, t, NULL), 0);
	assert_int_equal(p.status, 0);
	assert_int_equal(p.pid, -1);
	assert_int_equal(sp_proc_run(&p, f, NULL), 0);
	assert_int_equal(p.status, 1);
	assert_false(p.signaled);
	sp_proc_release(&p);
	assert_int_equal(run_sh(&p, "exit 7", 0, 0), 0);
	assert_int_equal(p.status, 7);
	sp_proc_release(&p);
}

static void a_missing_program_is_enoent(void **state)
{
	const char *argv[] = { "slowpath-no-such-program", NULL };
	struct sp_proc p;

	(void)state;
	sp_proc_init(&p);
	assert_int_equal(sp_proc_run(&p, argv, NULL), -ENOENT);
	assert_int_equal(p.pid, -1);
	sp_proc_release(&p);
}

static void stdout_and_stderr_are_captured_apart(void **state)
{
	struct sp_proc p;
	char *out;

	(void)state;
	assert_int_equal(run_sh(&p, "echo to-out; echo to-err >&2; exit 3",
				SP_PROC_CAPTURE_OUT | SP_PROC_CAPTURE_ERR, 0), 0);
	assert_int_equal(p.status, 3);
	assert_string_equal(p.out.p, "to-out\n");
	assert_string_equal(p.err.p, "to-err\n");
	out = sp_proc_take(&p.out);
	assert_string_equal(out, "to-out\n");
	assert_null(p.out.p);
	free(out);
	sp_proc_release(&p);
}

static void capture_keeps_its_bound_and_drains_the_rest(void **state)
{
	const char *argv[] = { "sh", "-c", "yes 0123456789 | head -c 300000", NULL };
	struct sp_proc_opts o = { .flags = SP_PROC_CAPTURE_OUT, .out_max = 1000 };
	struct sp_proc p;

	(void)state;
	sp_proc_init(&p);
	assert_int_equal(sp_proc_run(&p, argv, &o), 0);
	assert_int_equal(p.status, 0);
	assert_int_equal(p.out.len, 1000);
	assert_int_equal(strlen(p.out.p), 1000);
	assert_true(p.out.truncated);
	sp_proc_release(&p);
}

static int gone(pid_t pid)
{
	char path[64], *text;
	const char *close_;
	int dead;

	if (kill(pid, 0) && errno == ESRCH)
		return 1;
	/* reparented to an init that has not reaped it yet */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (sp_file_read(path, 4096, &text, NULL))
		return 1;
	close_ = strrchr(text, ')');
	dead = close_ && close_[1] == ' ' && close_[2] == 'Z';
	free(text);
	return dead;
}

static void a_time_limit_stops_the_child_and_its_group(void **state)
{
	struct sp_proc p;
	double t0 = now_s();
	long grandchild;
	int i;

	(void)state;
	assert_int_equal(run_sh(&p, "sleep 30 & echo $!; sleep 30",
				SP_PROC_CAPTURE_OUT | SP_PROC_PGROUP, 300),
			 -ETIMEDOUT);
	assert_true(now_s() - t0 < 10);
	assert_int_equal(p.pid, -1);
	assert_true(p.signaled);
	assert_non_null(p.out.p);
	grandchild = strtol(p.out.p, NULL, 10);
	assert_true(grandchild > 1);
	for (i = 0; i < 100 && !gone((pid_t)grandchild); i++)
		usleep(20000);
	assert_true(gone((pid_t)grandchild));
	sp_proc_release(&p);
}

static void a_time_limit_without_capture_still_holds(void **state)
{
	struct sp_proc p;
	double t0 = now_s();

	(void)state;
	assert_int_equal(run_sh(&p, "exec sleep 30", SP_PROC_STDOUT_NULL, 200),
			 -ETIMEDOUT);
	assert_true(now_s() - t0 < 10);
	sp_proc_release(&p);
}

static void output_goes_to_a_log_file(void **state)
{
	char dir[] = "/tmp/sp-proc-XXXXXX", log[64], *text;
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	struct sp_proc_opts o = { .flags = SP_PROC_SESSION | SP_PROC_STDIN_NULL };
	struct sp_proc p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/log", dir);
	assert_int_equal(sp_file_write_atomic(log, "old contents\n", 13, 0644), 0);
	o.logfile = log;
	sp_proc_init(&p);
	assert_int_equal(sp_proc_spawn(&p, argv, &o), 0);
	assert_true(p.pid > 0);
	assert_int_equal(getsid(p.pid), p.pid);
	assert_int_equal(sp_proc_wait(&p, NULL), 0);
	assert_int_equal(p.status, 0);
	assert_int_equal(sp_file_read(log, 4096, &text, NULL), 0);
	assert_string_equal(text, "out\nerr\n");
	free(text);
	sp_proc_release(&p);
	unlink(log);
	rmdir(dir);
}

static void fds_env_and_dir_reach_the_child(void **state)
{
	const char *argv[] = { "sh", "-c", "echo \"$SP_T $(pwd)\" >&5; cat <&0",
			       NULL };
	const char *env[] = { "SP_T=yes", NULL };
	int pfd[2];
	struct sp_proc_fd fds[] = { { 0, 5 } };
	struct sp_proc_opts o = {
		.flags = SP_PROC_CAPTURE_OUT | SP_PROC_STDIN_NULL |
			 SP_PROC_CLOSE_FDS,
		.env = env, .dir = "/", .fds = fds, .n_fds = 1,
	};
	struct sp_proc p;
	char buf[64] = "";
	ssize_t n;

	(void)state;
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	fds[0].from = pfd[1];
	sp_proc_init(&p);
	assert_int_equal(sp_proc_run(&p, argv, &o), 0);
	assert_int_equal(p.status, 0);
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	assert_string_equal(buf, "yes /\n");
	assert_int_equal(p.out.len, 0);	/* cat read an empty stdin */
	close(pfd[0]);
	assert_null(getenv("SP_T"));
	sp_proc_release(&p);
}

static void blocked_signals_wait_for_the_child(void **state)
{
	struct sp_proc p;

	(void)state;
	/* TERM to itself is held while blocked: the script runs on */
	assert_int_equal(run_sh(&p, "kill -TERM $$; echo alive",
				SP_PROC_CAPTURE_OUT | SP_PROC_BLOCK_SIGNALS, 5000),
			 0);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out.p, "alive\n");
	sp_proc_release(&p);
	assert_int_equal(run_sh(&p, "kill -TERM $$; echo alive",
				SP_PROC_CAPTURE_OUT | SP_PROC_DEFAULT_SIGNALS,
				5000), 0);
	assert_true(p.signaled);
	assert_int_equal(p.status, 128 + SIGTERM);
	assert_int_equal(p.out.len, 0);
	sp_proc_release(&p);
}

static void kill_group_stops_a_spawned_child(void **state)
{
	const char *argv[] = { "sleep", "30", NULL };
	struct sp_proc_opts o = { .flags = SP_PROC_PGROUP | SP_PROC_PDEATHSIG };
	struct sp_proc p;
	double t0 = now_s();

	(void)state;
	sp_proc_init(&p);
	assert_int_equal(sp_proc_spawn(&p, argv, &o), 0);
	assert_int_equal(getpgid(p.pid), p.pid);
	assert_int_equal(sp_proc_try_wait(&p, NULL), 0);
	assert_int_equal(sp_proc_kill_group(&p, 5000), 0);
	assert_int_equal(p.pid, -1);
	assert_int_equal(p.status, 128 + SIGTERM);
	assert_true(now_s() - t0 < 5);
	sp_proc_release(&p);
}

static void pump_reads_while_the_child_runs(void **state)
{
	const char *argv[] = { "sh", "-c", "echo first; sleep 30", NULL };
	struct sp_proc_opts o = { .flags = SP_PROC_CAPTURE_OUT | SP_PROC_PGROUP };
	struct sp_proc p;
	int i, ret = 0;

	(void)state;
	sp_proc_init(&p);
	assert_int_equal(sp_proc_spawn(&p, argv, &o), 0);
	for (i = 0; i < 100 && !p.out.p; i++)
		ret = sp_proc_pump(&p, 50);
	assert_int_equal(ret, 0);
	assert_string_equal(p.out.p, "first\n");
	assert_true(p.pid > 0);
	sp_proc_release(&p);
	assert_int_equal(p.pid, -1);
	assert_int_equal(p.out_fd, -1);
}

static int forked_fn(void *arg)
{
	/* written through stdio: sp_proc_fork's child flushes it */
	printf("forked %s in group %d\n", (const char *)arg,
	       getpgrp() == getpid());
	return 7;
}

static void fork_runs_a_function_as_a_process_of_its_own(void **state)
{
	char path[] = "/tmp/sp-proc-fork-XXXXXX", *text = NULL;
	struct sp_proc_opts o = { .flags = SP_PROC_PGROUP | SP_PROC_STDIN_NULL,
				  .logfile = path };
	struct sp_proc p;
	int fd = mkstemp(path), status = -1;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	sp_proc_init(&p);
	assert_int_equal(sp_proc_fork(&p, forked_fn, "job", &o), 0);
	assert_true(p.pid > 0);
	assert_int_equal(sp_proc_wait(&p, &status), 0);
	assert_int_equal(status, 7);
	assert_int_equal(sp_file_read(path, 4096, &text, NULL), 0);
	assert_string_equal(text, "forked job in group 1\n");
	free(text);
	unlink(path);
	assert_int_equal(sp_proc_fork(&p, NULL, NULL, &o), -EINVAL);
}

/* The child waits for a word from us: it can only get it if
 * sp_proc_fork returned while it runs. */
static int wait_for_go(void *arg)
{
	struct pollfd pfd = { .fd = *(int *)arg, .events = POLLIN };
	char c;

	/* 20 s: only a bound for a broken sp_proc_fork, no timing */
	if (poll(&pfd, 1, 20000) != 1 || read(pfd.fd, &c, 1) != 1)
		return 9;
	return c == 'g' ? 0 : 8;
}

static void fork_returns_while_the_child_runs(void **state)
{
	struct sp_proc_opts o = { .flags = SP_PROC_PGROUP | SP_PROC_STDIN_NULL };
	struct sp_proc p;
	int go[2], status = -1;

	(void)state;
	assert_int_equal(pipe(go), 0);
	sp_proc_init(&p);
	assert_int_equal(sp_proc_fork(&p, wait_for_go, &go[0], &o), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(sp_proc_wait(&p, &status), 0);
	assert_int_equal(status, 0);
	close(go[0]);
	close(go[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_codes_come_back),
		cmocka_unit_test(a_missing_program_is_enoent),
		cmocka_unit_test(stdout_and_stderr_are_captured_apart),
		cmocka_unit_test(capture_keeps_its_bound_and_drains_the_rest),
		cmocka_unit_test(a_time_limit_stops_the_child_and_its_group),
		cmocka_unit_test(a_time_limit_without_capture_still_holds),
		cmocka_unit_test(output_goes_to_a_log_file),
		cmocka_unit_test(fds_env_and_dir_reach_the_child),
		cmocka_unit_test(blocked_signals_wait_for_the_child),
		cmocka_unit_test(kill_group_stops_a_spawned_child),
		cmocka_unit_test(pump_reads_while_the_child_runs),
		cmocka_unit_test(fork_runs_a_function_as_a_process_of_its_own),
		cmocka_unit_test(fork_returns_while_the_child_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
