/* status, selector set and delay set on a topology brought up on the
 * mock system of bringup_mock.h. */
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

#include "common/units.h"
#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_chap.h"
#include "harness/bringup/bringup_status.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

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
	/* up's user is random; the status shows whichever it is */
	assert_int_equal(strncmp(st.chap_user, "slowpath-3fa2-", 14), 0);
	snprintf(st.chap_user, sizeof(st.chap_user), "slowpath-3fa2-Ab12Cd34");
	M.dm_table_out = "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
			 "8:0 1 1 8:16 1 1 8:32 1 1\n";
	M.dm_status_out = "0 4194304 multipath 2 0 0 0 1 1 A 0 3 2 8:0 A 0 0 "
			  "1 8:16 F 1 0 1 8:32 A 0 0 1\n";
	M.ncmds = 0;
	assert_int_equal(sp_status_gather(&mock_ops, &st, &s), 0);
	assert_int_equal(M.dmsetup_execs, 0);	/* info, table, status */
	assert_int_equal(ran("dmsetup status slowpath-equal3"), 1);
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
		"delay=1ms backend\n"
		"chap: on, user slowpath-3fa2-Ab12Cd34 (secret root-only in "
		"the state directory)\n");
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
	assert_int_equal(ran("dm_reload slowpath-equal3 0 4194304 "
			     "multipath 0 0 1 1 historical-service-time 2 800 "
			     "3 3 1 8:0 1 8:16 1 8:32 1"), 1);
	assert_true(first("dmsetup table slowpath-equal3") <
		    first("dm_reload"));
	assert_int_equal(M.dmsetup_execs, 0);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.sel.kind, SP_SEL_HST);
	assert_int_equal(st.sel.threshold_multiplier, 3);

	/* a map that is gone is named, and nothing is loaded */
	M.ncmds = 0;
	M.map_exists = 0;
	sp_dm_selector_init(&sel, SP_SEL_QL);
	assert_int_equal(sp_bringup_selector_set(&mock_ops, &st, &sel, dir,
						 err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "map slowpath-equal3 is not there"));
	assert_int_equal(ran("dm_reload"), 0);
}

static void delay_change_goes_to_the_right_mechanism(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	const struct netem_call *c;
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	opts(&o);
	o.has_mech = 1;
	o.mech = SP_MECH_BOTH;
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	/* both: half the 500us goes to netem at up, a fresh one (a set,
	 * not a change) on the target end inside the path's namespace */
	assert_int_equal(M.nnetem, 3);
	assert_non_null(c = netem_on("spu3fa2t1"));
	assert_false(c->clear);
	assert_false(c->change);
	assert_string_equal(c->netns, "slowpath-up-3fa2-1");
	assert_int_equal(c->spec.delay_ns, 250000);
	assert_int_equal(c->spec.jitter_ns, 0);
	assert_int_equal(c->spec.dist, SP_DIST_UNIFORM);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	M.ncmds = 0;
	M.nnetem = 0;
	ret = sp_bringup_delay_set(&mock_ops, &st, &st.paths[1], 20000000, -1,
				   dir, err, sizeof(err));
	if (ret)
		fail_msg("delay: %s", err);
	assert_int_equal(ran("netem set slowpath-up-3fa2-2 spu3fa2t2"), 1);
	assert_non_null(c = netem_on("spu3fa2t2"));
	assert_false(c->clear);
	assert_false(c->change);
	assert_int_equal(c->spec.delay_ns, 10000000);
	assert_int_equal(ran("/ctl-2/ctl read_delay=10ms;write_delay=10ms;"), 1);
	assert_true(first("/ctl-2/ctl") < first("netem set"));
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.paths[1].netem_ns, 10000000);
	assert_int_equal(st.paths[1].read_ns, 10000000);
	assert_int_equal(st.paths[0].netem_ns, 250000);

	/* the ctl line says the jitter and dist the path keeps, too */
	assert_int_equal(ran("/ctl-2/ctl read_delay=10ms;write_delay=10ms;"
			     "jitter=0ns;dist=uniform\n"), 1);

	/* over the one bound: refused before anything is touched */
	M.ncmds = 0;
	M.nnetem = 0;
	assert_int_equal(sp_bringup_delay_set(&mock_ops, &st, &st.paths[1],
					      4611686018LL * SP_NSEC_PER_SEC,
					      -1, dir, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "60s"));
	assert_int_equal(sp_bringup_delay_set(&mock_ops, &st, &st.paths[1],
					      1000000, SP_DELAY_MAX_NS + 1,
					      dir, err, sizeof(err)), -ERANGE);
	assert_int_equal(M.ncmds + M.nnetem, 0);
}

static const char *netem3_text =
	"[topology]\nunit = 1ms\nsize = 2G\nselector = st\n"
	"map_name = slowpath-equal3\naddresses = 198.18.0.0/24\n"
	"mechanism = netem\njitter = 10%\ndistribution = paretonormal\n"
	"[path a]\nmultiplier = 1\n[path b]\nmultiplier = 2\n"
	"[path c]\nmultiplier = 3\n";

static void netem_paths_get_jitter_and_distribution(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	const struct netem_call *c;
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	assert_int_equal(sp_topo_parse(netem3_text, "equal3.ini", "equal3",
				       &topo, err, sizeof(err)), 0);
	opts(&o);
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	assert_non_null(c = netem_on("spu3fa2t3"));
	assert_string_equal(c->netns, "slowpath-up-3fa2-3");
	assert_int_equal(c->spec.has & SP_NETEM_HAS_DELAY, SP_NETEM_HAS_DELAY);
	assert_int_equal(c->spec.delay_ns, 3000000);
	assert_int_equal(c->spec.jitter_ns, 300000);
	assert_int_equal(c->spec.dist, SP_DIST_PARETONORMAL);
	/* the store of a netem path delays nothing: no dist to refuse */
	assert_int_equal(ran("--bsopts read_delay=0ns;write_delay=0ns;"
			     "jitter=0ns;dist=uniform;ctl="), 3);

	/* down to zero: the netem goes; none there already is fine */
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	M.nnetem = 0;
	M.ncmds = 0;
	M.netem_clear_ret = -ENOENT;
	st.paths[0].netem_jitter_ns = 0;
	ret = sp_bringup_delay_set(&mock_ops, &st, &st.paths[0], 0, -1, dir,
				   err, sizeof(err));
	if (ret)
		fail_msg("delay: %s", err);
	assert_int_equal(M.nnetem, 1);
	assert_true(M.netem[0].clear);
	assert_string_equal(M.netem[0].dev, "spu3fa2t1");
	assert_int_equal(ran("/ctl-"), 0);	/* netem alone */

	/* any other failure names the path and the interface */
	M.netem_clear_ret = -EPERM;
	st.paths[1].netem_jitter_ns = 0;
	assert_int_equal(sp_bringup_delay_set(&mock_ops, &st, &st.paths[1], 0,
					      -1, dir, err, sizeof(err)),
			 -EIO);
	assert_non_null(strstr(err, "needs root"));
	assert_non_null(strstr(err, "path b"));
	assert_non_null(strstr(err, "spu3fa2t2"));
	assert_int_equal(st.paths[1].netem_ns, 2000000);
}

/* run's reload: in process when the ops can, same table, same journal */
static void selector_switch_in_process(void **state)
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
	M.ncmds = 0;
	sp_dm_selector_init(&sel, SP_SEL_QL);
	ret = sp_bringup_selector_set(&mock_ops, &st, &sel, dir, err,
				      sizeof(err));
	if (ret)
		fail_msg("selector: %s", err);
	assert_int_equal(ran("dm_reload slowpath-equal3 0 4194304 multipath "
			     "0 0 1 1 queue-length 0 3 1 8:0 1 8:16 1 8:32 1"),
			 1);
	/* the table read and the reload, in process; no modprobe */
	assert_int_equal(M.ncmds, 2);
	assert_int_equal(M.dmsetup_execs, 0);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.sel.kind, SP_SEL_QL);

	/* built in without parameters (the uml kernel's round-robin): no
	 * /sys/module entry, modules.builtin names it, no modprobe */
	M.absent_module = "dm_round_robin";
	M.builtin_list = "kernel/drivers/md/dm-round-robin.ko\n";
	M.ncmds = 0;
	sp_dm_selector_init(&sel, SP_SEL_RR);
	ret = sp_bringup_selector_set(&mock_ops, &st, &sel, dir, err,
				      sizeof(err));
	if (ret)
		fail_msg("selector: %s", err);
	assert_int_equal(ran("modprobe"), 0);
	M.absent_module = NULL;
	sp_dm_selector_init(&sel, SP_SEL_QL);
	assert_int_equal(sp_bringup_selector_set(&mock_ops, &st, &sel, dir,
						 err, sizeof(err)), 0);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);

	/* a refused load says which selector and keeps the journal */
	M.fail_match = "dm_reload";
	sp_dm_selector_init(&sel, SP_SEL_RR);
	assert_int_equal(sp_bringup_selector_set(&mock_ops, &st, &sel, dir,
						 err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "round-robin"));
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.sel.kind, SP_SEL_QL);
}

/* A built selector is in no module tree: its stored .ko is insmod'ed
 * after dm_multipath; io-affinity's reload carries the paths' masks. */
static void built_selector_is_insmodded(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	struct sp_dm_selector sel;
	enum sp_selector k;
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	opts(&o);
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	sp_selector_unregister_all();
	assert_int_equal(sp_selector_register("latency-random",
					      "dm_ps_latency_random",
					      "/s/6.1/latency-random.ko", &k), 0);
	M.dm_table_out = "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
			 "8:0 1 1 8:16 1 1 8:32 1 1\n";
	M.ncmds = 0;
	M.absent_module = "dm_ps_latency_random";
	sp_dm_selector_init(&sel, k);
	ret = sp_bringup_selector_set(&mock_ops, &st, &sel, dir, err,
				      sizeof(err));
	if (ret)
		fail_msg("selector: %s", err);
	assert_int_equal(ran("insmod /s/6.1/latency-random.ko"), 1);
	assert_true(first("modprobe -q dm_multipath") <
		    first("insmod /s/6.1/latency-random.ko"));
	assert_int_equal(ran("modprobe -q dm_ps_latency_random"), 0);
	assert_int_equal(ran("multipath 0 0 1 1 latency-random 0 3 1 8:0 1 "
			     "8:16 1 8:32 1"), 1);

	/* io-affinity: the state's masks, defaults for the paths without,
	 * over the 4 possible CPUs /sys shows */
	st.paths[0].cpumask = 0x8;
	M.ncmds = 0;
	sp_dm_selector_init(&sel, SP_SEL_IOA);
	ret = sp_bringup_selector_set(&mock_ops, &st, &sel, dir, err,
				      sizeof(err));
	if (ret)
		fail_msg("selector ioa: %s", err);
	assert_int_equal(ran("io-affinity 0 3 1 8:0 8 8:16 2 8:32 4"), 1);
	/* path 1 takes CPU 2, which path 3's default needed: refused
	 * before the kernel would, naming the path */
	st.paths[0].cpumask = 0x4;
	M.ncmds = 0;
	assert_int_equal(sp_bringup_selector_set(&mock_ops, &st, &sel, dir,
						 err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "path 3: io-affinity needs a CPU of its own"));
	assert_int_equal(ran("dmsetup reload"), 0);
	sp_selector_unregister_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(status_renders_like_multipath_ll),
		T(selector_switch_reloads_same_paths),
		T(delay_change_goes_to_the_right_mechanism),
		T(netem_paths_get_jitter_and_distribution),
		T(selector_switch_in_process),
		T(built_selector_is_insmodded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
