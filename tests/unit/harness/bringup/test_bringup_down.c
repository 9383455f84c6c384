/* down against the mock of bringup_mock.h when things went wrong
 * before it: a SIGKILLed run's fio, a user holding the map, PIDs
 * handed to other processes, tgtds that ignore SIGTERM, a delay store
 * killed mid-write, a journal cut short by a killed up. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "harness/bringup/bringup.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

/* equal3 fully up in the mock, its journal in dir, loaded into st */
static void up_equal3(struct sp_state *st)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	opts(&o);
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	assert_int_equal(sp_state_load(dir, st, err, sizeof(err)), 0);
	M.ncmds = 0;
}

static int journal_exists(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, SP_STATE_FILE);
	return access(path, F_OK) == 0;
}

static int alive(int pid)
{
	return M.pid_alive[pid - 1000];
}

/* The lab's case: run SIGKILLed, fio's leader gone (PDEATHSIG), a
 * job process (its own session: fio's jobs call setsid) still writing
 * to the map, another still in the leader's group. */
static void down_stops_a_dead_runs_fio_before_the_map(void **state)
{
	static struct sp_state st;
	static char users[64];
	char err[SP_BRINGUP_ERRLEN] = "";
	int leader, job, grouped;

	(void)state;
	up_equal3(&st);
	leader = add_proc("fio", 0);
	job = add_proc("fio", 0);
	grouped = add_proc("fio", leader);
	st.fio_pid = leader;
	st.fio_start = M.pid_start[leader - 1000];
	M.pid_alive[leader - 1000] = 0;
	snprintf(users, sizeof(users), "%d fio\n", job);
	M.dev_users_out = users;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_false(alive(job));
	assert_false(alive(grouped));
	assert_true(first("kill 9 ") < first("dmsetup remove"));
	assert_int_equal(M.map_exists, 0);
	assert_false(journal_exists());
}

/* A fio of someone else's in a group that happens to carry the PID:
 * the leader is there but started later, so it is not ours. */
static void down_leaves_a_reused_fio_pid_alone(void **state)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";
	int other;

	(void)state;
	up_equal3(&st);
	other = add_proc("fio", 0);
	M.other_holders = 0;
	st.fio_pid = other;
	st.fio_start = M.pid_start[other - 1000] - 5;	/* an earlier one */
	M.pid_comm[other - 1000][0] = 'X';	/* not on the map: renamed */
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_true(alive(other));
	assert_int_equal(ran("kill 9 "), 0);
}

/* Someone else has the map open: down stops before any logout, names
 * them, keeps the journal; once they are gone a second down finishes. */
static void down_stops_at_a_held_map_and_names_the_holder(void **state)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";
	int i;

	(void)state;
	up_equal3(&st);
	M.other_holders = 2;
	M.dev_users_out = "4242 dd\nholder dm-7\n";
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "map slowpath-equal3 is open 2 times"));
	assert_non_null(strstr(err, "pid 4242 dd"));
	assert_non_null(strstr(err, "holder dm-7"));
	assert_int_equal(ran("--logout"), 0);
	assert_int_equal(ran("ip netns del"), 0);
	assert_int_equal(ran("--op delete"), 0);
	for (i = 0; i < M.npids; i++)
		assert_true(M.pid_alive[i]);
	assert_int_equal(M.map_exists, 1);
	assert_int_equal(M.logged_in, 1);
	assert_true(journal_exists());

	M.other_holders = 0;
	M.ncmds = 0;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_int_equal(M.map_exists, 0);
	assert_int_equal(M.logged_in, 0);
	assert_false(journal_exists());
}

/* A journaled PID now belongs to another tgtd (the system's): a later
 * start time, or for an old journal another namespace. Never signalled. */
static void down_never_signals_a_reused_pid(void **state)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";
	int sys1, sys2;

	(void)state;
	up_equal3(&st);
	/* our tgtds died; their PIDs went to system tgtds */
	M.pid_alive[st.paths[0].tgtd_pid - 1000] = 0;
	M.pid_alive[st.paths[1].tgtd_pid - 1000] = 0;
	sys1 = add_proc("tgtd", 0);
	sys2 = add_proc("tgtd", 0);
	st.paths[0].tgtd_pid = sys1;	/* start differs */
	st.paths[1].tgtd_pid = sys2;
	st.paths[1].tgtd_start = 0;	/* an old journal; host netns */
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_true(alive(sys1));
	assert_true(alive(sys2));
	assert_int_equal(ran("kill 15 1"), 0);
	assert_int_equal(ran("kill 9 "), 0);
	/* path 3's tgtd was ours and went */
	assert_false(alive(st.paths[2].tgtd_pid));
}

static void make(const char *rel, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (text)
		assert_int_equal(sp_file_write_atomic(path, text, strlen(text),
						      0644), 0);
	else
		assert_int_equal(mkdir(path, 0755), 0);
}

/* tgtds ignore SIGTERM: down asks each through its control port, and
 * cleans what a store killed mid-write leaves: its temp file too. A
 * symlink in there is never followed (nor is what it names removed). */
static void down_asks_tgtd_and_cleans_the_store_dirs(void **state)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "", path[256];
	int i;

	(void)state;
	up_equal3(&st);
	make("ctl-1", NULL);
	make("ctl-1/ctl", "");
	make("ctl-1/stats", "read_delay_ns=1\n");
	make("ctl-1/.stats.1234.5f3a.tmp", "read_del");
	make("ctl-2", NULL);
	make("ctl-2/stats", "x\n");
	make("precious", "keep me\n");
	snprintf(path, sizeof(path), "%s/precious", dir);
	{
		char link[256];

		snprintf(link, sizeof(link), "%s/ctl-2/.ctl.1.2.tmp", dir);
		assert_int_equal(symlink(path, link), 0);
	}
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "ctl-2"));
	assert_null(strstr(err, "ctl-1"));
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(ran("--op delete --mode system"), 3);
	assert_int_equal(ran("--op delete --mode target --tid 1 --force"), 3);
	assert_true(first("--op delete --mode system") > first("--logout"));
	assert_int_equal(ran("kill 9 "), 0);
	for (i = 0; i < M.npids; i++)
		if (!strcmp(M.pid_comm[i], "tgtd"))
			assert_false(M.pid_alive[i]);
	snprintf(path, sizeof(path), "%s/ctl-1", dir);
	assert_int_equal(access(path, F_OK), -1);
	/* tidy for teardown */
	snprintf(path, sizeof(path), "%s/ctl-2/.ctl.1.2.tmp", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ctl-2/stats", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ctl-2", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/precious", dir);
	unlink(path);
}

/* up SIGKILLed right after path 2's discovery began: the journal has
 * no `complete` and ends in half a line. down replays it and undoes
 * exactly that: tgtds asked to exit (they ignore TERM), no map. */
static void down_replays_the_journal_of_a_killed_up(void **state)
{
	static struct sp_state st;
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "", path[128];
	jmp_buf killed;
	int fd, i;

	(void)state;
	opts(&o);
	M.die = &killed;
	M.die_match = "iscsiadm -m discovery -t st -p 198.18.0.6";
	if (!setjmp(killed)) {
		sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
		fail_msg("up was not killed");
	}
	M.die = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, SP_STATE_FILE);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "begin disc", 10), 10);	/* torn */
	close(fd);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.complete, 0);
	assert_true(st.paths[1].steps & (1u << SP_STEP_DISCOVERY));
	assert_false(st.paths[2].steps & (1u << SP_STEP_DISCOVERY));
	assert_true(st.paths[2].tgtd_start != 0);
	M.ncmds = 0;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_int_equal(ran("dmsetup remove"), 0);
	assert_int_equal(ran("--op delete --mode system"), 3);
	assert_int_equal(ran("kill 9 "), 0);
	assert_int_equal(ran("iscsiadm -m discoverydb -t st -p "), 2);
	assert_int_equal(ran("ip netns del slowpath-up-3fa2-"), 3);
	for (i = 0; i < M.npids; i++)
		if (!strcmp(M.pid_comm[i], "tgtd"))
			assert_false(M.pid_alive[i]);
	assert_int_equal(count_exists("/run/netns/"), 0);
	assert_int_equal(count_exists("/sys/class/net/"), 0);
	assert_false(journal_exists());
}

static void pid_stat_parse_takes_start_and_group(void **state)
{
	struct sp_pid_info pi;

	(void)state;
	memset(&pi, 0, sizeof(pi));
	assert_int_equal(sp_pid_stat_parse("4711 (fio (job) 1) S 1 4700 4700 0 "
		"-1 4194560 10 0 0 0 1 2 0 0 20 0 1 0 98765 1000 50\n", &pi), 0);
	assert_string_equal(pi.comm, "fio (job) 1");
	assert_int_equal(pi.state, 'S');
	assert_int_equal(pi.ppid, 1);
	assert_int_equal(pi.pgid, 4700);
	assert_int_equal(pi.start, 98765);
	assert_int_equal(sp_pid_stat_parse("4711 (fio) S 1 4700", &pi),
			 -EINVAL);
	assert_int_equal(sp_pid_stat_parse("garbage", &pi), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(down_stops_a_dead_runs_fio_before_the_map),
		T(down_leaves_a_reused_fio_pid_alone),
		T(down_stops_at_a_held_map_and_names_the_holder),
		T(down_never_signals_a_reused_pid),
		T(down_asks_tgtd_and_cleans_the_store_dirs),
		T(down_replays_the_journal_of_a_killed_up),
		T(pid_stat_parse_takes_start_and_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
