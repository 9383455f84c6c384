/* plan, up and down against the mock system of bringup_mock.h. */
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
#include "harness/bringup/bringup_chap.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

static void plan_names_addresses_and_delays(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "", bs[256], id[64], sn[64];

	(void)state;
	opts(&o);
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
	assert_int_equal(st.npaths, 3);
	assert_string_equal(st.iqn, "iqn.2026-11.org.slowpath:up-equal3");
	assert_string_equal(st.map_name, "slowpath-equal3");
	assert_string_equal(st.map_uuid, "slowpath-equal3-3fa2");
	/* on disk, not the RAM-backed /run */
	assert_string_equal(st.backing, "/var/lib/slowpath/equal3-3fa2.img");
	assert_string_equal(st.paths[2].netns, "slowpath-up-3fa2-3");
	assert_string_equal(st.paths[2].host_if, "spu3fa2h3");
	assert_string_equal(st.paths[2].target_if, "spu3fa2t3");
	assert_string_equal(st.paths[1].initiator_ip, "198.18.0.5");
	assert_string_equal(st.paths[1].target_ip, "198.18.0.6");
	assert_int_equal(st.paths[0].ctl_port + 2, st.paths[2].ctl_port);
	assert_int_equal(st.paths[2].read_ns, 1000000);
	assert_int_equal(st.paths[2].netem_ns, 0);
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], NULL, bs, sizeof(bs)), 0);
	assert_string_equal(bs, "read_delay=1ms;write_delay=1ms;jitter=0ns;"
				"dist=uniform");
	sp_bringup_scsi_ids(&st, id, sizeof(id), sn, sizeof(sn));
	assert_true(strlen(id) <= 36 && strlen(sn) <= 36);

	/* --mechanism netem moves the whole delay onto the wire */
	o.has_mech = 1;
	o.mech = SP_MECH_NETEM;
	o.unit_ns = 5000000;
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
	assert_int_equal(st.paths[2].netem_ns, 10000000);
	assert_int_equal(st.paths[2].read_ns, 0);

	/* tgtd reads its control port into a short */
	snprintf(o.tag, sizeof(o.tag), "ffff");
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
	assert_true(st.paths[2].ctl_port < 32768);
	snprintf(o.tag, sizeof(o.tag), "XYZ");
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "XYZ"));
}

/* On the exact-time lab the store neither busy-waits (the clock would
 * never move) nor hands I/O to threads (calls that cost and buy
 * nothing there); everywhere else it keeps its defaults. */
static void exact_time_store_runs_inline_without_polling(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "", bs[256];

	(void)state;
	opts(&o);
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err, sizeof(err)), 0);
	setenv("SLOWPATH_IN_LAB", "1", 1);
	setenv("SLOWPATH_LAB_ENGINE", "uml", 1);
	setenv("SLOWPATH_LAB_TIME", "exact", 1);
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], "/run/x", bs, sizeof(bs)), 0);
	assert_string_equal(bs, "read_delay=1ms;write_delay=1ms;jitter=0ns;"
				"dist=uniform;poll_max=0ns;io=inline;ctl=/run/x");
	/* a ctl line at run time (delay set) never names the creation-only
	 * io=, whatever SLOWPATH_STORE_IO says now: the store would refuse it */
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], NULL, bs, sizeof(bs)), 0);
	assert_string_equal(bs, "read_delay=1ms;write_delay=1ms;jitter=0ns;"
				"dist=uniform;poll_max=0ns");
	setenv("SLOWPATH_STORE_IO", "pool", 1);
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], NULL, bs, sizeof(bs)), 0);
	assert_null(strstr(bs, "io="));
	/* make bench-syscalls sets the pool beside it */
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], "/run/x", bs, sizeof(bs)), 0);
	assert_null(strstr(bs, "io="));
	assert_non_null(strstr(bs, "poll_max=0ns"));
	setenv("SLOWPATH_STORE_IO", "threads", 1);
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "SLOWPATH_STORE_IO=threads"));
	unsetenv("SLOWPATH_STORE_IO");
	setenv("SLOWPATH_LAB_TIME", "real", 1);
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err, sizeof(err)), 0);
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], NULL, bs, sizeof(bs)), 0);
	assert_null(strstr(bs, "io="));
	assert_null(strstr(bs, "poll_max="));
	unsetenv("SLOWPATH_IN_LAB");
	unsetenv("SLOWPATH_LAB_ENGINE");
	unsetenv("SLOWPATH_LAB_TIME");
}

static void address_clash_names_both_sides(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	opts(&o);
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
	assert_int_equal(sp_bringup_addr_clash(&st, M.addr_out, err,
					       sizeof(err)), 0);
	assert_int_equal(sp_bringup_addr_clash(&st,
		"7: foo0    inet 198.18.0.0/16 scope global foo0\n", err,
		sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, "foo0"));
	assert_non_null(strstr(err, "198.18.0.1/30"));
}

static void session_disk_found_by_iqn_and_portal(void **state)
{
	char disk[32];

	(void)state;
	assert_int_equal(sp_bringup_session_disk(sessions,
		"iqn.2026-11.org.slowpath:up-equal3", "198.18.0.6", 3260, disk,
		sizeof(disk)), 0);
	assert_string_equal(disk, "sdb");
	assert_int_equal(sp_bringup_session_disk(sessions,
		"iqn.2026-11.org.slowpath:up-other", "198.18.0.6", 3260, disk,
		sizeof(disk)), -ENOENT);
	assert_int_equal(sp_bringup_session_disk(sessions,
		"iqn.2026-11.org.slowpath:up-equal3", "198.18.0.7", 3260, disk,
		sizeof(disk)), -ENOENT);
}

static void up_runs_every_step_and_journals_it(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	opts(&o);
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	assert_int_equal(ran("ip netns add slowpath-up-3fa2-"), 3);
	assert_int_equal(ran("spawn in slowpath-up-3fa2-2: tgtd -f"), 1);
	assert_int_equal(ran("--bstype delay --bsopts read_delay=500us"), 2);
	assert_int_equal(ran("--bstype delay --bsopts read_delay=1ms"), 1);
	assert_int_equal(ran("jitter=0ns;dist=uniform;ctl=/tmp/sp-test-bringup-"), 3);
	assert_int_equal(ran("--op bind --mode target --tid 1 -I 198.18.0.9"), 1);
	assert_int_equal(M.nnetem, 0);	/* backend only */
	assert_int_equal(ran("iscsiadm -m discovery -t st -p 198.18.0.10:3260"), 1);
	assert_int_equal(ran("--login"), 1);
	assert_int_equal(ran("dmsetup create slowpath-equal3 -u "
			     "slowpath-equal3-3fa2 --noudevsync --table 0 "
			     "4194304 multipath 0 0 1 1 service-time 0 3 2 "
			     "8:0 1 1 8:16 1 1 8:32 1 1"), 1);
	assert_true(first("--login") < first("dmsetup create"));
	assert_int_equal(M.dmsetup_execs, 0);	/* dm in process */
	assert_int_equal(M.ip_execs, 0);	/* so are links, namespaces */
	assert_int_equal(ran("ip -n slowpath-up-3fa2-2 addr add"), 1);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.complete, 1);
	assert_string_equal(st.paths[1].disk, "sdb");
	assert_int_equal(st.paths[2].minor, 32);
	assert_int_equal(st.sectors, 4194304);
	assert_string_equal(st.bstype, "delay");
	assert_int_equal(st.steps & (1u << SP_STEP_ISCSID), 0);

	/* a second up refuses and changes nothing */
	M.ncmds = 0;
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "already up"));
	assert_int_equal(ran("ip netns add"), 0);
	assert_int_equal(ran("dmsetup remove"), 0);
}

static void assert_nothing_left(void)
{
	int i;

	assert_int_equal(count_exists("/run/netns/"), 0);
	assert_int_equal(count_exists("/sys/class/net/"), 0);
	assert_int_equal(count_exists(dir), 0);
	assert_int_equal(M.map_exists, 0);
	assert_int_equal(M.logged_in, 0);
	for (i = 0; i < M.npids; i++)
		if (M.pid_alive[i] && !M.pid_is_iscsid[i])
			fail_msg("pid %d left", 1000 + i);
	assert_false(access(dir, F_OK) == 0 &&
		     sp_state_remove(dir) != 0);
}

static void failure_midway_tears_everything_down(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	opts(&o);
	M.fail_match = "--mode target --tid 1 -T";	/* path a's target */
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EIO);
	assert_non_null(strstr(err, "path a: tgtadm failed"));
	assert_int_equal(ran("ip netns del slowpath-up-3fa2-"), 3);
	/* tgtd ignores SIGTERM: it is asked through its control port */
	assert_int_equal(ran("--op delete --mode system"), 3);
	assert_int_equal(ran("kill 9 "), 0);
	assert_int_equal(ran("dmsetup create"), 0);
	assert_int_equal(ran("iscsiadm -m discovery"), 0);
	assert_nothing_left();
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), -ENOENT);
}

static void interrupt_during_login_tears_down(void **state)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	opts(&o);
	M.iscsid_up = 0;	/* up starts it, down stops it */
	M.interrupt_match = "--login";
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EINTR);
	assert_int_equal(ran("spawn iscsid -f"), 1);
	assert_true(ran("--logout") >= 1);
	assert_int_equal(ran("iscsiadm -m discoverydb -t st -p "), 3);
	assert_true(first("--logout") < first("kill 15"));
	assert_int_equal(M.iscsid_up, 0);
	assert_nothing_left();
}

static void missing_pieces_refuse_before_any_change(void **state)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	opts(&o);
	M.have_delay_store = 0;
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "install-backend"));
	M.have_delay_store = 1;
	M.addr_out = "3: br0    inet 198.18.0.4/30 scope global br0\n";
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, "198.18.0.4/30"));
	assert_int_equal(ran("ip netns add"), 0);
	assert_int_equal(ran("spawn"), 0);
	assert_int_equal(count_exists(dir), 0);
}

/* A piece built in without parameters has no /sys/module entry: the
 * running kernel's modules.builtin names it, and no modprobe runs for
 * it (one process costs a lab guest ~35 ms of the host's CPU). */
static void builtin_pieces_need_no_modprobe(void **state)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	opts(&o);
	M.absent_module = "sd_mod";
	M.builtin_list = "kernel/drivers/md/dm-mod.ko\n"
			 "kernel/drivers/scsi/sd_mod.ko\n";
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	assert_int_equal(ran("modprobe"), 0);
	/* not listed: modprobe decides, as before */
	teardown(NULL);
	setup(NULL);
	M.absent_module = "sd_mod";
	M.builtin_list = "kernel/drivers/md/dm-mod.ko\n";
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	assert_int_equal(ran("modprobe -q sd_mod"), 1);
}

/* A new backing file that would not fit: refused before anything is
 * set up, saying how much is needed and how much is free. */
static void backing_file_must_fit(void **state)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	opts(&o);
	o.backing_dir = dir;
	M.free_bytes = 256ULL << 20;
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -ENOSPC);
	assert_string_equal(M.free_asked, strcat(strcpy(err, dir),
						 "/equal3-3fa2.img"));
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "needs 2.0 GiB"));
	assert_non_null(strstr(err, "only 0.2 GiB is free"));
	assert_int_equal(ran("ip netns add"), 0);
	assert_int_equal(ran("spawn"), 0);
	assert_int_equal(count_exists(dir), 0);
	/* room for a published run but not the whole disk: up, warned */
	M.free_bytes = 1ULL << 30;
	M.ncmds = 0;
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
}

/* The journal a SIGKILLed up leaves: tgtd 2 started, nothing after. */
static void down_after_sigkill_uses_the_journal(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";
	pid_t pid;
	const char *argv[] = { "tgtd", NULL };

	(void)state;
	opts(&o);
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
	st.npaths = 2;
	st.paths[0].steps = st.paths[1].steps = (1u << SP_STEP_NETNS) |
		(1u << SP_STEP_VETH) | (1u << SP_STEP_TGTD);
	m_spawn(NULL, NULL, argv, "", &pid);
	st.paths[1].tgtd_pid = pid;
	/* an old journal (no start time): the name and its namespace */
	M.pid_netns[pid - 1000] = ns_ino("slowpath-up-3fa2-2");
	add_exists("/run/netns/slowpath-up-3fa2-1");
	add_exists("/run/netns/slowpath-up-3fa2-2");
	add_exists("/sys/class/net/spu3fa2h1");
	M.ncmds = 0;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_int_equal(ran("kill 15 1000"), 1);
	/* no control port to ask it by: TERM is ignored, KILL is not */
	assert_int_equal(ran("kill 9 1000"), 1);
	assert_int_equal(ran("ip netns del"), 2);
	assert_int_equal(ran("ip link del spu3fa2h1"), 1);
	assert_int_equal(ran("dmsetup remove"), 0);
	assert_nothing_left();
	/* and again: nothing to do, still fine */
	M.ncmds = 0;
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_int_equal(ran("ip netns del"), 0);
}

/* No journal at all: only names with our prefixes go. */
static void down_sweeps_by_prefix_only(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	add_exists("/run/netns/slowpath-up-beef-1");
	add_exists("/run/netns/other");
	add_exists("/sys/class/net/spubeefh1");
	add_exists("/sys/class/net/spuxh1");
	M.map_exists = 1;
	M.netns_out = "slowpath-up-beef-1 (id: 0)\nother\n"
		      "slowpath-abcd-1 (id: 2)\n";
	M.links_out = "5: spubeefh1@if4: <BROADCAST> mtu 1500\n"
		      "6: spuxh1: <BROADCAST> mtu 1500\n"
		      "7: sp1234h1@if3: <BROADCAST> mtu 1500\n";
	M.dm_info_out = "slowpath-u10 slowpath-u10-beef\n"
			"slowpath-smoke-12 \nmpatha mpath-3600\n";
	M.iscsid_up = 1;
	M.logged_in = 1;
	M.session_out = NULL;
	assert_int_equal(sp_bringup_down(&mock_ops, NULL, dir, err,
					 sizeof(err)), 0);
	assert_int_equal(ran("dmsetup remove --retry --noudevsync slowpath-u10"), 1);
	assert_int_equal(ran("dmsetup remove"), 1);
	assert_int_equal(M.dmsetup_execs, 0);
	assert_int_equal(M.ip_execs, 0);
	assert_int_equal(ran("ip netns del slowpath-up-beef-1"), 1);
	assert_int_equal(ran("ip netns del"), 1);
	assert_int_equal(ran("ip link del spubeefh1"), 1);
	assert_int_equal(ran("ip link del"), 1);
	assert_int_equal(count_exists("/run/netns/other"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(exact_time_store_runs_inline_without_polling),
		T(plan_names_addresses_and_delays),
		T(address_clash_names_both_sides),
		T(session_disk_found_by_iqn_and_portal),
		T(up_runs_every_step_and_journals_it),
		T(failure_midway_tears_everything_down),
		T(interrupt_during_login_tears_down),
		T(missing_pieces_refuse_before_any_change),
		T(builtin_pieces_need_no_modprobe),
		T(backing_file_must_fit),
		T(down_after_sigkill_uses_the_journal),
		T(down_sweeps_by_prefix_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
