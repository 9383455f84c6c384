/* sp_sys_real's spawn inside a named namespace (how up starts each
 * path's tgtd, once `ip netns exec`), against the kernel: in a network
 * and mount namespace of the test's own with a tmpfs on /run, so
 * nothing of the machine's is touched. Skipped where the process may
 * not make namespaces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/bringup/bringup.h"

static int have_namespaces;

static int setup_group(void **state)
{
	(void)state;
	if (unshare(CLONE_NEWNET | CLONE_NEWNS) ||
	    mount("", "/", NULL, MS_PRIVATE | MS_REC, NULL) ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755"))
		return 0;
	have_namespaces = 1;
	return 0;
}

static void daemon_starts_inside_its_namespace(void **state)
{
	const struct sp_sys_ops *ops = &sp_sys_real;
	const char *argv[] = { "sleep", "30", NULL };
	struct sp_pid_info pi, ours;
	unsigned long long ino;
	char pids[256], want[32];
	pid_t pid;

	(void)state;
	if (!have_namespaces)
		skip();
	assert_int_equal(ops->net->netns_add(ops->net->ctx,
					     "slowpath-up-beef-1"), 0);
	assert_int_equal(ops->spawn(ops->ctx, "slowpath-up-beef-1", argv,
				    "/dev/null", &pid), 0);
	assert_int_equal(ops->pid_info(ops->ctx, pid, &pi), 0);
	assert_int_equal(ops->file_ino(ops->ctx,
				       "/run/netns/slowpath-up-beef-1", &ino),
			 0);
	assert_true(pi.netns == ino);
	assert_string_equal(pi.comm, "sleep");	/* no ip in between */
	assert_int_equal(ops->net->netns_pids(ops->net->ctx,
					      "slowpath-up-beef-1", pids,
					      sizeof(pids)), 0);
	snprintf(want, sizeof(want), "%d\n", (int)pid);
	assert_string_equal(pids, want);
	ops->kill(ops->ctx, pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* without one: ours */
	assert_int_equal(ops->spawn(ops->ctx, NULL, argv, "/dev/null", &pid),
			 0);
	assert_int_equal(ops->pid_info(ops->ctx, pid, &pi), 0);
	assert_int_equal(ops->pid_info(ops->ctx, getpid(), &ours), 0);
	assert_true(pi.netns == ours.netns && pi.netns != ino);
	ops->kill(ops->ctx, pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(ops->spawn(ops->ctx, "slowpath-up-none", argv,
				    "/dev/null", &pid), -ENOENT);
	assert_int_equal(ops->net->netns_del(ops->net->ctx,
					     "slowpath-up-beef-1"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(daemon_starts_inside_its_namespace),
	};

	return cmocka_run_group_tests(tests, setup_group, NULL);
}
