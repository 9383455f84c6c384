/* The end of `fault PATH HOW --for D` (issue 23 item 8): it undoes its
 * own fault and only that, and waits for a busy topology lock instead
 * of leaving its fault in place. On a topology the bring-up mock
 * brought up, with a real state dir and a real lock. */
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

#include "harness/bringup/bringup.h"
#include "harness/bringup/lock.h"
#include "harness/fault/fault_apply.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

static struct sp_state st;

static void reload(void)
{
	char err[SP_STATE_ERRLEN];

	if (sp_state_load(dir, &st, err, sizeof(err)))
		fail_msg("journal: %s", err);
}

static void up_equal3(void)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	opts(&o);
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	reload();
	M.store_sim = 1;
}

/* applies spec, returns the id the journal gave it */
static void apply(const char *spec, char *id, size_t idlen)
{
	char err[512];
	struct sp_fault f;

	if (sp_fault_parse(spec, &f, err, sizeof(err)))
		fail_msg("'%s': %s", spec, err);
	if (sp_fault_apply_in(&mock_ops, &st, dir, &f, err, sizeof(err)))
		fail_msg("apply '%s': %s", spec, err);
	reload();
	assert_true(st.paths[1].fault_id[0] != '\0');
	snprintf(id, idlen, "%s", st.paths[1].fault_id);
}

static void the_end_leaves_a_fault_set_after_it(void **state)
{
	char mine[SP_STATE_FAULT_IDLEN], second[SP_STATE_FAULT_IDLEN];
	char err[512] = "";

	(void)state;
	up_equal3();
	apply("path=b how=hang for=20s", mine, sizeof(mine));
	/* meanwhile someone restores b and hangs it again, by hand */
	assert_int_equal(sp_fault_restore_in(&mock_ops, &st, dir, "b", err,
					     sizeof(err)), 0);
	apply("path=b how=hang", second, sizeof(second));
	assert_string_not_equal(mine, second);
	assert_int_equal(M.store[2].hold, 1);
	/* the first one's --for ends: the second hang stays, untouched */
	M.ncmds = 0;
	assert_int_equal(sp_fault_end_own(&mock_ops, &st, dir, "b", mine, 0,
					  err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "another command set"));
	assert_int_equal(M.store[2].hold, 1);
	assert_int_equal(ran("dmsetup"), 0);
	assert_int_equal(first("write "), -1);
	reload();
	assert_string_equal(st.paths[1].fault_how, "hang");
	assert_string_equal(st.paths[1].fault_id, second);
	/* its owner undoes it */
	assert_int_equal(sp_fault_end_own(&mock_ops, &st, dir, "b", second, 0,
					  err, sizeof(err)), 0);
	assert_int_equal(M.store[2].hold, 0);
	reload();
	assert_string_equal(st.paths[1].fault_how, "");
	/* and a fault restored before the end: nothing to do */
	assert_int_equal(sp_fault_end_own(&mock_ops, &st, dir, "b", second, 0,
					  err, sizeof(err)), -ESTALE);
}

/* A sleep that lets the other holder go after release_after waits. */
static int held_fd = -1, sleeps, release_after;

static void sleep_then_release(void *ctx, unsigned int ms)
{
	(void)ctx;
	(void)ms;
	if (++sleeps == release_after && held_fd >= 0) {
		sp_lock_release(dir, held_fd);
		held_fd = -1;
	}
}

static void the_end_waits_for_a_busy_lock(void **state)
{
	struct sp_sys_ops ops = mock_ops;
	char id[SP_STATE_FAULT_IDLEN], err[512] = "";

	(void)state;
	ops.sleep_ms = sleep_then_release;
	up_equal3();
	apply("path=b how=hang for=20s", id, sizeof(id));
	/* a selector set holds the lock when --for runs out */
	assert_int_equal(sp_lock_take(dir, "selector", 0, &held_fd, err,
				      sizeof(err)), 0);
	sleeps = 0;
	release_after = 3;
	assert_int_equal(sp_fault_end_own(&ops, &st, dir, "b", id, 60000, err,
					  sizeof(err)), 0);
	assert_int_equal(sleeps, 3);
	assert_int_equal(M.store[2].hold, 0);
	reload();
	assert_string_equal(st.paths[1].fault_how, "");
}

static void a_lock_never_freed_is_said_and_bounded(void **state)
{
	struct sp_sys_ops ops = mock_ops;
	char id[SP_STATE_FAULT_IDLEN], err[512] = "";

	(void)state;
	ops.sleep_ms = sleep_then_release;
	up_equal3();
	apply("path=b how=hang for=20s", id, sizeof(id));
	assert_int_equal(sp_lock_take(dir, "selector", 0, &held_fd, err,
				      sizeof(err)), 0);
	sleeps = 0;
	release_after = -1;
	assert_int_equal(sp_fault_end_own(&ops, &st, dir, "b", id, 5000, err,
					  sizeof(err)), -EWOULDBLOCK);
	assert_int_equal(sleeps, 5);
	assert_non_null(strstr(err, "keeps its fault"));
	assert_non_null(strstr(err, "slowpath fault b restore"));
	sp_lock_release(dir, held_fd);
	held_fd = -1;
	assert_int_equal(M.store[2].hold, 1);
}

static void journal_ids_are_checked(void **state)
{
	char line[256];

	(void)state;
	assert_int_equal(sp_state_fmt_fault_id(2, "hang", "1f.2a.0",
					       "path=b how=hang", line,
					       sizeof(line)), 0);
	assert_string_equal(line, "fault 2 hang id=1f.2a.0 path=b how=hang\n");
	assert_int_equal(sp_state_fmt_fault_id(2, "hang", "a b", "path=b how=hang",
					       line, sizeof(line)), -EINVAL);
	assert_int_equal(sp_state_fmt_fault_id(2, "hang", "", "path=b how=hang",
					       line, sizeof(line)), 0);
	assert_string_equal(line, "fault 2 hang path=b how=hang\n");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(the_end_leaves_a_fault_set_after_it),
		T(the_end_waits_for_a_busy_lock),
		T(a_lock_never_freed_is_said_and_bounded),
		T(journal_ids_are_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
