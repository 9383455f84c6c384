/* sp_net_real (netem/net_nl.c, netem/netns.c) against the kernel, in a
 * network and mount namespace of the test's own, with a tmpfs on /run:
 * nothing of the machine's is touched. Skipped where the process may
 * not make namespaces (not root, a sandbox without them). */
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

#include "netem/net.h"

static int have_namespaces;

static int setup_group(void **state)
{
	(void)state;
	if (unshare(CLONE_NEWNET | CLONE_NEWNS))
		return 0;
	/* our mounts stay ours, then a /run of our own */
	if (mount("", "/", NULL, MS_PRIVATE | MS_REC, NULL) ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755"))
		return 0;
	have_namespaces = 1;
	return 0;
}

static const struct sp_net_ops *net = &sp_net_real;

static int has_line(const char *text, const char *needle)
{
	return strstr(text, needle) != NULL;
}

/* A child of ours inside ns, as a tgtd would be: its PID. */
static pid_t sleeper_in(const char *ns)
{
	char path[300];
	pid_t pid;

	assert_int_equal(sp_netns_path(ns, path, sizeof(path)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (sp_netns_enter(path))
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(100 * 1000);
	return pid;
}

static void a_path_made_and_undone(void **state)
{
	char buf[8192], line[64];
	pid_t pid;
	int status;

	(void)state;
	if (!have_namespaces)
		skip();
	assert_int_equal(net->netns_add(net->ctx, "slowpath-up-beef-1"), 0);
	assert_int_equal(net->netns_add(net->ctx, "slowpath-up-beef-1"),
			 -EEXIST);
	assert_int_equal(net->netns_add(net->ctx, "../x"), -EINVAL);
	assert_int_equal(net->netns_list(net->ctx, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "slowpath-up-beef-1\n");

	assert_int_equal(net->veth_add(net->ctx, "spubeefh1", "spubeeft1",
				       "slowpath-up-beef-1"), 0);
	assert_int_equal(net->addr_add(net->ctx, NULL, "spubeefh1",
				       "198.18.0.1/30"), 0);
	assert_int_equal(net->link_set(net->ctx, NULL, "spubeefh1", 1), 0);
	assert_int_equal(net->addr_add(net->ctx, "slowpath-up-beef-1",
				       "spubeeft1", "198.18.0.2/30"), 0);
	assert_int_equal(net->link_set(net->ctx, "slowpath-up-beef-1",
				       "spubeeft1", 1), 0);
	assert_int_equal(net->link_set(net->ctx, "slowpath-up-beef-1", "lo",
				       1), 0);
	assert_int_equal(net->link_set(net->ctx, NULL, "nosuch0", 1),
			 -ENODEV);
	assert_int_equal(net->addr_add(net->ctx, "slowpath-up-none", "lo",
				       "198.18.0.5/30"), -ESRCH);

	/* the peer went into the namespace: ours lists only our end */
	assert_int_equal(net->link_list(net->ctx, buf, sizeof(buf)), 0);
	assert_true(has_line(buf, ": spubeefh1\n"));
	assert_false(has_line(buf, "spubeeft1"));
	assert_int_equal(net->addr4_list(net->ctx, buf, sizeof(buf)), 0);
	assert_true(has_line(buf, ": spubeefh1 inet 198.18.0.1/30\n"));
	assert_false(has_line(buf, "198.18.0.2"));

	pid = sleeper_in("slowpath-up-beef-1");
	assert_int_equal(net->netns_pids(net->ctx, "slowpath-up-beef-1", buf,
					 sizeof(buf)), 0);
	snprintf(line, sizeof(line), "%d\n", (int)pid);
	assert_string_equal(buf, line);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);

	assert_int_equal(net->link_del(net->ctx, "spubeefh1"), 0);
	assert_int_equal(net->link_del(net->ctx, "spubeefh1"), -ENODEV);
	assert_int_equal(net->netns_del(net->ctx, "slowpath-up-beef-1"), 0);
	assert_int_equal(net->netns_list(net->ctx, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_path_made_and_undone),
	};

	return cmocka_run_group_tests(tests, setup_group, NULL);
}
