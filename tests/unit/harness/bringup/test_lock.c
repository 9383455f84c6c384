/* The topology lock: two open file descriptions in one process
 * conflict under flock just as two processes do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/bringup/lock.h"
#include "harness/bringup/state.h"

static char dir[64], lockfile[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sp-test-lock-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(lockfile, sizeof(lockfile), "%s/%s", dir, SP_LOCK_FILE);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(lockfile);
	sp_state_remove(dir);
	rmdir(dir);
	return 0;
}

static void a_second_taker_waits_then_names_the_holder(void **state)
{
	char err[256] = "", want[96];
	int a, b, fd;

	(void)state;
	assert_int_equal(sp_lock_take(dir, "up", 0, &a, err, sizeof(err)), 0);
	assert_int_equal(sp_lock_take(dir, "down", 300, &b, err, sizeof(err)),
			 -EWOULDBLOCK);
	assert_int_equal(b, -1);
	snprintf(want, sizeof(want), "another slowpath (pid %d: up) is "
		 "working on the topology", (int)getpid());
	assert_string_equal(err, want);
	/* a topology is up: the lock file stays with the journal */
	assert_int_equal(sp_state_create(dir, &fd), 0);
	close(fd);
	sp_lock_release(dir, a);
	assert_int_equal(access(lockfile, F_OK), 0);
	assert_int_equal(sp_lock_take(dir, "down", 0, &b, err, sizeof(err)), 0);
	/* down removed the journal: the lock file goes on release */
	sp_state_remove(dir);
	sp_lock_release(dir, b);
	assert_int_equal(access(lockfile, F_OK), -1);
}

/* A waiter that opened the file before its holder unlinked it must not
 * lock the orphan: it takes the new file, and a third one conflicts. */
static void an_unlinked_lock_file_is_not_taken(void **state)
{
	char err[256] = "";
	int a, b, c;

	(void)state;
	assert_int_equal(sp_lock_take(dir, "run", 0, &a, err, sizeof(err)), 0);
	sp_lock_release(dir, a);	/* no journal: unlinked */
	assert_int_equal(sp_lock_take(dir, "down", 0, &b, err, sizeof(err)), 0);
	assert_int_equal(sp_lock_take(dir, "up", 0, &c, err, sizeof(err)),
			 -EWOULDBLOCK);
	assert_non_null(strstr(err, "down"));
	sp_lock_release(dir, b);
}

/* A planted symlink is not followed (O_NOFOLLOW). */
static void a_symlinked_lock_file_is_refused(void **state)
{
	char err[256] = "", target[128];
	int a;

	(void)state;
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	assert_int_equal(symlink(target, lockfile), 0);
	assert_int_equal(sp_lock_take(dir, "up", 0, &a, err, sizeof(err)),
			 -ELOOP);
	assert_int_equal(access(target, F_OK), -1);
	assert_non_null(strstr(err, lockfile));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(a_second_taker_waits_then_names_the_holder),
		T(an_unlinked_lock_file_is_not_taken),
		T(a_symlinked_lock_file_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
