/* status, selector set and delay set on a topology brought up on the
 * mock system of test_bringup_mock.h. */
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
#include "harness/bringup/bringup_status.h"

#include "tests/unit/harness/bringup/test_bringup_mock.h"

static void status_renders_like_multipath_ll(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	static struct sp_status s;
	char err[SP_BRINGUP_ERRLEN] = "", buf[4096];
	int ret;

	(void)state;
	opts(&o);
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	M.dm_table_out = "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
			 "8:0 1 1 8:16 1 1 8:32 1 1\n";
	M.dm_status_out = "0 4194304 multipath 2 0 0 0 1 1 A 0 3 2 8:0 A 0 0 "
			  "1 8:16 F 1 0 1 8:32 A 0 0 1\n";
	assert_int_equal(sp_status_gather(&mock_ops, &st, &s), 0);
	assert_int_equal(sp_status_render(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf,
		"topology equal3 (equal3.ini) tag 3fa2, up\n"
		"slowpath-equal3 (slowpath-equal3-3fa2) dm-3 IET,VIRTUAL-DISK\n"
		"size=2.0G features='0' hwhandler='0' wp=rw\n"
		"`-+- policy='service-time 0' prio=0 status=active\n"
		"  |- 2:0:0:1 sda 8:0  active undef running  a 198.18.0.2:3260 "
		"delay=500us backend\n"
		"  |- 3:0:0:1 sdb 8:16 failed undef running  b 198.18.0.6:3260 "
		"delay=500us backend\n"
		"  `- 4:0:0:1 sdc 8:32 active undef running  c 198.18.0.10:3260 "
		"delay=1ms backend\n");
	assert_int_equal(sp_status_render(&s, buf, 40), -ENOSPC);
}

static void selector_switch_reloads_same_paths(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	struct sp_dm_selector sel;
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	opts(&o);
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	M.dm_table_out = "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
			 "8:0 1 1 8:16 1 1 8:32 1 1\n";
	sp_dm_selector_init(&sel, SP_SEL_HST);
	sel.base_weight = 800;
	sel.threshold_multiplier = 3;
	M.ncmds = 0;
	ret = sp_bringup_selector_set(&mock_ops, &st, &sel, dir, err,
				      sizeof(err));
	if (ret)
		fail_msg("selector: %s", err);
	assert_int_equal(ran("dmsetup reload slowpath-equal3 --table 0 4194304 "
			     "multipath 0 0 1 1 historical-service-time 2 800 "
			     "3 3 1 8:0 1 8:16 1 8:32 1"), 1);
	assert_true(first("dmsetup suspend") < first("dmsetup reload"));
	assert_true(first("dmsetup reload") < first("dmsetup resume"));
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.sel.kind, SP_SEL_HST);
	assert_int_equal(st.sel.threshold_multiplier, 3);

	/* a refused load still resumes the map */
	M.ncmds = 0;
	M.fail_match = "dmsetup reload";
	sp_dm_selector_init(&sel, SP_SEL_QL);
	assert_int_equal(sp_bringup_selector_set(&mock_ops, &st, &sel, dir,
						 err, sizeof(err)), -EIO);
	assert_int_equal(ran("dmsetup resume"), 1);
	assert_non_null(strstr(err, "queue-length"));
}

static void delay_change_goes_to_the_right_mechanism(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	opts(&o);
	o.has_mech = 1;
	o.mech = SP_MECH_BOTH;
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	/* both: half the 500us goes to netem at up */
	assert_int_equal(ran("tc qdisc replace dev spu3fa2t1 root netem "
			     "delay 250us"), 1);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	M.ncmds = 0;
	ret = sp_bringup_delay_set(&mock_ops, &st, &st.paths[1], 20000000, -1,
				   dir, err, sizeof(err));
	if (ret)
		fail_msg("delay: %s", err);
	assert_int_equal(ran("tc qdisc replace dev spu3fa2t2 root netem "
			     "delay 10000us"), 1);
	assert_int_equal(ran("/ctl-2/ctl read_delay=10ms;write_delay=10ms;"), 1);
	assert_true(first("/ctl-2/ctl") < first("tc qdisc replace"));
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.paths[1].netem_ns, 10000000);
	assert_int_equal(st.paths[1].read_ns, 10000000);
	assert_int_equal(st.paths[0].netem_ns, 250000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(status_renders_like_multipath_ll),
		T(selector_switch_reloads_same_paths),
		T(delay_change_goes_to_the_right_mechanism),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
