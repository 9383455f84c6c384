/* Faults applied to and undone on a topology that the bring-up mock
 * brought up: what each HOW does to the system, what the journal says
 * meanwhile, that a restore leaves the path as up made it, and the
 * failover keys at up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_status.h"
#include "harness/fault/fault_apply.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

static struct sp_state st;
static void reload(void);

/* equal3 up in the mock, its journal replayed into st */
static void up_equal3(void)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	opts(&o);
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	reload();
}

static void reload(void)
{
	char err[SP_STATE_ERRLEN];

	if (sp_state_load(dir, &st, err, sizeof(err)))
		fail_msg("journal: %s", err);
}

static int apply(const char *spec, char *err, size_t errlen)
{
	struct sp_fault f;

	if (sp_fault_parse(spec, &f, err, errlen))
		fail_msg("'%s': %s", spec, err);
	M.ncmds = 0;
	return sp_fault_apply_in(&mock_ops, &st, dir, &f, err, errlen);
}

static int restore(const char *path, char *err, size_t errlen)
{
	M.ncmds = 0;
	return sp_fault_restore_in(&mock_ops, &st, dir, path, err, errlen);
}

static void hang_on_the_store_holds_then_releases(void **state)
{
	char err[512] = "";

	(void)state;
	up_equal3();
	M.store_sim = 1;
	assert_int_equal(apply("path=b how=hang", err, sizeof(err)), 0);
	assert_int_equal(M.store[2].hold, 1);
	assert_int_equal(M.store_set[1] || M.store_set[3], 0);
	assert_int_equal(ran("kill "), 0);	/* the store, no signal */
	/* the journal says so, for status, down and restore */
	reload();
	assert_string_equal(st.paths[1].fault_how, "hang");
	assert_string_equal(st.paths[1].fault_spec, "path=b how=hang");
	assert_string_equal(st.paths[0].fault_how, "");
	assert_int_equal(restore("b", err, sizeof(err)), 0);
	assert_int_equal(M.store[2].hold, 0);
	reload();
	assert_string_equal(st.paths[1].fault_how, "");
	/* nothing to undo is fine, and changes nothing */
	assert_int_equal(restore("b", err, sizeof(err)), 0);
	assert_int_equal(ran("write "), 0);
	assert_int_equal(ran("dmsetup message"), 0);
	assert_int_equal(M.ctl_rejects, 0);
}

static void hang_without_the_store_stops_our_tgtd_only(void **state)
{
	char err[512] = "";
	pid_t pid;

	(void)state;
	up_equal3();
	snprintf(st.bstype, sizeof(st.bstype), "rdwr");
	pid = st.paths[2].tgtd_pid;
	assert_int_equal(apply("path=c how=hang", err, sizeof(err)), 0);
	assert_int_equal(ran("kill 19 "), 1);
	assert_true(M.pid_stopped[pid - 1000]);
	assert_int_equal(restore("c", err, sizeof(err)), 0);
	assert_int_equal(ran("kill 18 "), 1);
	assert_false(M.pid_stopped[pid - 1000]);
	/* a PID that is someone else's now: nothing signalled, no fault */
	st.paths[2].tgtd_start += 1;
	assert_int_equal(apply("path=c how=hang", err, sizeof(err)), -ESRCH);
	assert_int_equal(ran("kill "), 0);
	assert_non_null(strstr(err, "not the one up started"));
	reload();
	assert_string_equal(st.paths[2].fault_how, "");
}

/* The tgtadm lines of one control port, in order. */
static void tgtadm_of(unsigned int port, char *buf, size_t len)
{
	char key[32];
	size_t used = 0;
	int i;

	snprintf(key, sizeof(key), "tgtadm -C %u ", port);
	buf[0] = '\0';
	for (i = 0; i < M.ncmds; i++)
		if (strstr(M.cmds[i], key) && !strstr(M.cmds[i], "--op show"))
			used += (size_t)snprintf(buf + used, len - used, "%s\n",
						 M.cmds[i]);
}

static void reset_kills_and_restarts_the_same_lun(void **state)
{
	static char at_up[8192], at_restore[8192];
	char err[512] = "", spawn_up[512] = "";
	pid_t old;
	int i;

	(void)state;
	M.ncmds = 0;
	up_equal3();
	tgtadm_of(st.paths[0].ctl_port, at_up, sizeof(at_up));
	for (i = 0; i < M.ncmds; i++)
		if (strstr(M.cmds[i], "spawn in slowpath-up-3fa2-1: "))
			snprintf(spawn_up, sizeof(spawn_up), "%.511s", M.cmds[i]);
	old = st.paths[0].tgtd_pid;
	assert_int_equal(apply("path=a how=reset", err, sizeof(err)), 0);
	assert_int_equal(ran("kill 9 "), 1);
	assert_false(M.pid_alive[old - 1000]);
	assert_int_equal(restore("a", err, sizeof(err)), 0);
	/* the same daemon line, the same target, LUN, ids, ACL and CHAP */
	assert_int_equal(ran(spawn_up), 1);
	tgtadm_of(st.paths[0].ctl_port, at_restore, sizeof(at_restore));
	assert_string_equal(at_restore, at_up);
	assert_non_null(strstr(at_restore, "scsi_id=slowpath-"));
	assert_non_null(strstr(at_restore, "--mode account"));
	reload();
	assert_int_not_equal(st.paths[0].tgtd_pid, old);
	assert_true(M.pid_alive[st.paths[0].tgtd_pid - 1000]);
	assert_true(st.paths[0].tgtd_start != 0);
	assert_string_equal(st.paths[0].fault_how, "");
	/* the new one is what down stops */
	M.ncmds = 0;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_false(M.pid_alive[st.paths[0].tgtd_pid - 1000]);
}

static void blackhole_loses_everything_and_keeps_the_delay(void **state)
{
	char err[512] = "";
	const struct netem_call *t, *h;

	(void)state;
	up_equal3();
	st.paths[1].netem_ns = 3000000;	/* as if it delayed on the wire */
	assert_int_equal(apply("path=b how=blackhole", err, sizeof(err)), 0);
	t = netem_on("spu3fa2t2");
	h = netem_on("spu3fa2h2");
	assert_non_null(t);
	assert_non_null(h);
	assert_true(t->spec.loss_pct == 100 && h->spec.loss_pct == 100);
	assert_int_equal(t->spec.delay_ns, 3000000);
	assert_string_equal(t->netns, "slowpath-up-3fa2-2");
	assert_string_equal(h->netns, "");
	assert_int_equal(restore("b", err, sizeof(err)), 0);
	t = netem_on("spu3fa2t2");
	h = netem_on("spu3fa2h2");
	assert_true(h->clear);
	/* the path's own netem again, no loss */
	assert_false(t->clear);
	assert_int_equal(t->spec.delay_ns, 3000000);
	assert_true(t->spec.loss_pct == 0);
}

static void down_and_flap_set_the_link(void **state)
{
	char err[512] = "";
	struct sp_fault f;

	(void)state;
	up_equal3();
	assert_int_equal(apply("path=a how=down", err, sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h1 down"), 1);
	assert_int_equal(restore("a", err, sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h1 up"), 1);

	assert_int_equal(apply("path=c how=flap period=1s", err,
			       sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h3 down"), 1);
	sp_fault_parse("path=c how=flap period=1s", &f, err, sizeof(err));
	M.ncmds = 0;
	assert_int_equal(sp_fault_flap_tick(&mock_ops, &st, &f, 0, err,
					    sizeof(err)), 0);
	assert_int_equal(sp_fault_flap_tick(&mock_ops, &st, &f, 1, err,
					    sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h3 up"), 1);
	assert_int_equal(ran("ip link set dev spu3fa2h3 down"), 1);
	/* a path that is not flapping is not toggled */
	snprintf(f.path, sizeof(f.path), "a");
	M.ncmds = 0;
	assert_int_equal(sp_fault_flap_tick(&mock_ops, &st, &f, 1, err,
					    sizeof(err)), -EINVAL);
	assert_int_equal(M.ncmds, 0);
	assert_int_equal(restore("c", err, sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h3 up"), 1);
}

static void error_sets_and_clears_the_store_rate(void **state)
{
	char err[512] = "";

	(void)state;
	up_equal3();
	M.store_sim = 1;
	assert_int_equal(apply("path=a how=error rate=0.1 sense=not-ready",
			       err, sizeof(err)), 0);
	assert_true(M.store[1].error_rate == 0.1);
	assert_int_equal(M.store[1].error_sense, 1);	/* not-ready */
	assert_int_equal(restore("a", err, sizeof(err)), 0);
	assert_true(M.store[1].error_rate == 0);
	/* tgt's own store has no errors to inject: refused, nothing done */
	snprintf(st.bstype, sizeof(st.bstype), "rdwr");
	assert_int_equal(apply("path=a how=error", err, sizeof(err)),
			 -ENOTSUP);
	assert_int_equal(M.ncmds, 0);
	reload();
	assert_string_equal(st.paths[0].fault_how, "");
}

static void slow_multiplies_the_delay_and_restore_puts_it_back(void **state)
{
	char err[512] = "";

	(void)state;
	up_equal3();
	M.store_sim = 1;
	/* path c: 2 x 500us */
	assert_int_equal(apply("path=c how=slow factor=10", err, sizeof(err)),
			 0);
	assert_int_equal(M.store[3].read_delay_ns, 10000000);
	reload();
	assert_int_equal(st.paths[2].read_ns, 1000000);	/* the journal's */
	assert_string_equal(st.paths[2].fault_how, "slow");
	assert_int_equal(restore("c", err, sizeof(err)), 0);
	assert_int_equal(M.store[3].read_delay_ns, 1000000);
	/* past 60 s: refused before anything is done */
	assert_int_equal(apply("path=c how=slow factor=100000", err,
			       sizeof(err)), -ERANGE);
	assert_int_equal(M.ncmds, 0);
	/* a serial path (servers = 1): its delay is its service */
	st.paths[1].read_ns = st.paths[1].write_ns = 0;
	st.paths[1].servers = 1;
	st.paths[1].service_ns = 2000000;
	assert_int_equal(apply("path=b how=slow factor=10", err, sizeof(err)),
			 0);
	assert_int_equal(M.store[2].service_ns, 20000000);
	assert_int_equal(M.store[2].read_delay_ns, 0);
	st.paths[0].read_ns = st.paths[0].write_ns = 0;
	assert_int_equal(apply("path=a how=slow", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no delay"));
}

static void one_fault_a_path_and_unknown_paths(void **state)
{
	char err[512] = "";

	(void)state;
	up_equal3();
	assert_int_equal(apply("path=a how=down", err, sizeof(err)), 0);
	assert_int_equal(apply("path=a how=blackhole", err, sizeof(err)),
			 -EBUSY);
	assert_non_null(strstr(err, "restore"));
	assert_int_equal(M.ncmds, 0);
	assert_int_equal(apply("path=zz how=down", err, sizeof(err)), -ENOENT);
	assert_int_equal(restore("zz", err, sizeof(err)), -ENOENT);
	/* how=restore is a restore */
	assert_int_equal(apply("path=a how=restore", err, sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h1 up"), 1);
	st.complete = 0;
	assert_int_equal(apply("path=a how=down", err, sizeof(err)), -EINVAL);
}

static void a_fault_that_fails_is_undone(void **state)
{
	char err[512] = "";

	(void)state;
	up_equal3();
	M.fail_match = "ip link set dev spu3fa2h2 down";
	assert_int_not_equal(apply("path=b how=down", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "path b"));
	assert_int_equal(ran("ip link set dev spu3fa2h2 up"), 1);
	reload();
	assert_string_equal(st.paths[1].fault_how, "");
}

static void down_continues_a_stopped_tgtd_first(void **state)
{
	char err[512] = "";
	unsigned int port;
	char sys[64];
	pid_t pid;

	(void)state;
	up_equal3();
	snprintf(st.bstype, sizeof(st.bstype), "rdwr");
	pid = st.paths[0].tgtd_pid;
	port = st.paths[0].ctl_port;
	assert_int_equal(apply("path=a how=hang", err, sizeof(err)), 0);
	assert_true(M.pid_stopped[pid - 1000]);
	M.ncmds = 0;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	snprintf(sys, sizeof(sys), "tgtadm -C %u --lld iscsi --op delete "
		 "--mode system", port);
	assert_true(first("kill 18 ") >= 0);
	assert_true(first("kill 18 ") < first(sys));
	assert_false(M.pid_alive[pid - 1000]);
}

static void restore_all_and_the_compacted_journal(void **state)
{
	static char text[16384];
	static struct sp_state back;
	char err[512] = "";

	(void)state;
	up_equal3();
	M.store_sim = 1;
	assert_int_equal(apply("path=a how=error rate=0.5", err, sizeof(err)), 0);
	assert_int_equal(apply("path=c how=down for=30s", err, sizeof(err)), 0);
	/* the compacted journal keeps the faults */
	assert_int_equal(sp_state_fmt_all(&st, text, sizeof(text)), 0);
	assert_int_equal(sp_state_parse(text, &back, err, sizeof(err)), 0);
	assert_string_equal(back.paths[0].fault_how, "error");
	assert_string_equal(back.paths[0].fault_spec,
			    "path=a how=error rate=0.5 sense=medium");
	assert_string_equal(back.paths[2].fault_spec,
			    "path=c how=down for=30s");
	assert_int_equal(sp_fault_restore_all(&mock_ops, &st, dir, err,
					      sizeof(err)), 0);
	assert_true(M.store[1].error_rate == 0);
	assert_int_equal(ran("ip link set dev spu3fa2h3 up"), 1);
	reload();
	assert_string_equal(st.paths[0].fault_how, "");
	assert_string_equal(st.paths[2].fault_how, "");
}

/* No multipathd here: the map's failed path comes back on restore. */
static void restore_reinstates_a_path_the_map_failed(void **state)
{
	char err[512] = "", status[256];

	(void)state;
	up_equal3();
	assert_int_equal(apply("path=b how=down", err, sizeof(err)), 0);
	/* sda sdb sdc: 8:0 8:16 8:32, b failed by dm */
	snprintf(status, sizeof(status), "0 4194304 multipath 2 0 0 0 1 1 A 0 "
		 "3 2 8:0 A 0 0 1 8:16 F 1 0 1 8:32 A 0 0 1\n");
	M.dm_status_out = status;
	assert_int_equal(restore("b", err, sizeof(err)), 0);
	assert_true(first("ip link set dev spu3fa2h2 up") <
		    first("dmsetup message slowpath-equal3 0 reinstate_path "
			  "8:16"));
	assert_int_equal(ran("reinstate_path"), 1);
	assert_int_equal(M.dmsetup_execs, 0);	/* status, message */
	assert_int_equal(M.ip_execs, 0);	/* the link set up */
	/* the topology does not queue: queueing is not turned on */
	assert_int_equal(ran("0 queue_if_no_path"), 0);
	st.init.no_path_retry = 2;
	assert_int_equal(apply("path=b how=down", err, sizeof(err)), 0);
	assert_int_equal(restore("b", err, sizeof(err)), 0);
	assert_true(first("reinstate_path 8:16") <
		    first("dmsetup message slowpath-equal3 0 queue_if_no_path"));
	st.init.no_path_retry = SP_NPR_UNSET;
	/* a path the map still has active is left alone */
	snprintf(status, sizeof(status), "0 4194304 multipath 2 0 0 0 1 1 A 0 "
		 "3 2 8:0 A 0 0 1 8:16 A 1 0 1 8:32 A 0 0 1\n");
	assert_int_equal(restore("b", err, sizeof(err)), 0);
	assert_int_equal(ran("reinstate_path"), 0);
}

static void status_shows_faults_and_failover_keys(void **state)
{
	static struct sp_status s;
	static char out[16384];
	char err[512] = "";

	(void)state;
	up_equal3();
	M.store_sim = 1;
	assert_int_equal(apply("path=b how=hang", err, sizeof(err)), 0);
	st.init.has_queue_if_no_path = 1;
	st.init.queue_if_no_path = 1;
	st.init.replacement_timeout = 5;
	sp_status_gather(&mock_ops, &st, &s);
	assert_int_equal(sp_status_render(&s, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "fault: hang (path=b how=hang"));
	assert_non_null(strstr(out, "failover: queue_if_no_path=yes "
				    "replacement_timeout=5"));
}

static const char *failover_topo =
	"[topology]\nunit = 500us\nsize = 2G\nselector = st\n"
	"map_name = slowpath-equal3\naddresses = 198.18.0.0/24\n"
	"no_path_retry = 12\nreplacement_timeout = 5\n"
	"noop_out_interval = 2\nnoop_out_timeout = 3\n"
	"[path a]\nmultiplier = 1\n[path b]\nmultiplier = 1\n";

static void up_applies_the_failover_keys_and_down_undoes_them(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "", want[160];
	struct sp_up_opts o;
	int login, upd;

	(void)state;
	assert_int_equal(sp_topo_parse(failover_topo, "equal3.ini", "equal3",
				       &topo, err, sizeof(err)), 0);
	M.qtimeout = "0\n";
	opts(&o);
	M.ncmds = 0;
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	login = first("--login");
	upd = first("node.session.timeo.replacement_timeout -v 5");
	assert_true(upd >= 0 && upd < login);
	assert_true(first("node.conn[0].timeo.noop_out_interval -v 2") < login);
	assert_true(first("node.conn[0].timeo.noop_out_timeout -v 3") < login);
	assert_true(first("dmsetup create") >= 0);
	assert_non_null(strstr(M.cmds[first("dmsetup create")],
			       "multipath 1 queue_if_no_path 0 1 1"));
	/* 12 checker intervals of 5 s */
	snprintf(want, sizeof(want), "write %s 60", SP_DM_QTIMEOUT_PARAM);
	assert_int_equal(ran(want), 1);
	reload();
	assert_int_equal(st.init.no_path_retry, 12);
	assert_int_equal(st.init.noop_out_timeout, 3);
	assert_true(st.has_qtimeout);
	assert_int_equal(st.qtimeout_was, 0);
	M.ncmds = 0;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	snprintf(want, sizeof(want), "write %s 0", SP_DM_QTIMEOUT_PARAM);
	assert_int_equal(ran(want), 1);
	/* a kernel without the timeout: up refuses, saying why */
	M.qtimeout = NULL;
	M.ncmds = 0;
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "queue_if_no_path_timeout_secs"));
}

static void without_failover_keys_up_is_as_before(void **state)
{
	(void)state;
	M.ncmds = 0;
	up_equal3();
	assert_int_equal(ran("timeo"), 0);
	assert_int_equal(ran(SP_DM_QTIMEOUT_PARAM), 0);
	assert_non_null(strstr(M.cmds[first("dmsetup create")],
			       "multipath 0 0 1 1"));
	assert_false(st.has_qtimeout);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(hang_on_the_store_holds_then_releases),
		T(hang_without_the_store_stops_our_tgtd_only),
		T(reset_kills_and_restarts_the_same_lun),
		T(blackhole_loses_everything_and_keeps_the_delay),
		T(down_and_flap_set_the_link),
		T(error_sets_and_clears_the_store_rate),
		T(slow_multiplies_the_delay_and_restore_puts_it_back),
		T(one_fault_a_path_and_unknown_paths),
		T(a_fault_that_fails_is_undone),
		T(down_continues_a_stopped_tgtd_first),
		T(restore_all_and_the_compacted_journal),
		T(restore_reinstates_a_path_the_map_failed),
		T(status_shows_faults_and_failover_keys),
		T(up_applies_the_failover_keys_and_down_undoes_them),
		T(without_failover_keys_up_is_as_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
