/* nvme-tcp's configfs plan (pure), its application and its undo in
 * reverse against a recording mock of struct sp_cfs_ops, and the
 * journal's nvme records. No root, no configfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/nvmet.h"

#define NQN SP_UP_NQN_PREFIX "equal3-3fa2"
#define CFS SP_NVMET_CFS

static struct sp_state st;

static void two_paths(void)
{
	size_t i;

	sp_state_init(&st);
	st.transport = SP_TRANSPORT_NVME_TCP;
	snprintf(st.nqn, sizeof(st.nqn), "%s", NQN);
	snprintf(st.loop_dev, sizeof(st.loop_dev), "/dev/loop3");
	st.npaths = 2;
	for (i = 0; i < 2; i++) {
		struct sp_state_path *p = &st.paths[i];

		p->index = (unsigned int)i + 1;
		p->ctl_port = 20016 + (unsigned int)i;
		snprintf(p->netns, sizeof(p->netns), "slowpath-up-3fa2-%zu",
			 i + 1);
		snprintf(p->target_ip, sizeof(p->target_ip), "198.18.0.%zu",
			 2 + 4 * i);
	}
}

/* The mock: every call one line; fail_at makes that call fail. */
static char calls[8192];
static int ncalls, fail_at = -1, fail_ret;

static int record(const char *fmt, const char *a, const char *b,
		  const char *c)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, fmt, a, b, c);
	return ncalls++ == fail_at ? fail_ret : 0;
}

static int m_mkdir(void *ctx, const char *p)
{
	(void)ctx;
	return record("mkdir %s%s%s\n", p, "", "");
}
static int m_rmdir(void *ctx, const char *p)
{
	(void)ctx;
	return record("rmdir %s%s%s\n", p, "", "");
}
static int m_write(void *ctx, const char *p, const char *t)
{
	(void)ctx;
	return record("write %s = %s%s\n", p, t, "");
}
static int m_symlink(void *ctx, const char *ns, const char *t,
		     const char *l)
{
	(void)ctx;
	return record("symlink %s -> %s in %s\n", l, t, ns ? ns : "");
}
static int m_unlink(void *ctx, const char *p)
{
	(void)ctx;
	return record("unlink %s%s%s\n", p, "", "");
}

static const struct sp_cfs_ops mock = {
	.mkdir = m_mkdir, .rmdir = m_rmdir, .write = m_write,
	.symlink = m_symlink, .unlink = m_unlink,
};

static void reset(void)
{
	calls[0] = '\0';
	ncalls = 0;
	fail_at = -1;
}

static void subsystem_plan(void **state)
{
	struct sp_cfs_plan plan;
	char err[512];

	(void)state;
	two_paths();
	reset();
	assert_int_equal(sp_nvmet_plan_subsys(&st, &plan), 0);
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)), 0);
	assert_string_equal(calls,
		"mkdir " CFS "/subsystems/" NQN "\n"
		"write " CFS "/subsystems/" NQN "/attr_allow_any_host = 1\n"
		"mkdir " CFS "/subsystems/" NQN "/namespaces/1\n"
		"write " CFS "/subsystems/" NQN "/namespaces/1/device_path = /dev/loop3\n"
		"write " CFS "/subsystems/" NQN "/namespaces/1/enable = 1\n");
	reset();
	assert_int_equal(sp_nvmet_undo(&mock, &plan, err, sizeof(err)), 0);
	/* in reverse: disabled before its directory goes */
	assert_string_equal(calls,
		"write " CFS "/subsystems/" NQN "/namespaces/1/enable = 0\n"
		"rmdir " CFS "/subsystems/" NQN "/namespaces/1\n"
		"rmdir " CFS "/subsystems/" NQN "\n");
}

static void port_plan_links_from_the_path_netns(void **state)
{
	struct sp_cfs_plan plan;
	char err[512];

	(void)state;
	two_paths();
	reset();
	assert_int_equal(sp_nvmet_plan_port(&st, &st.paths[1], &plan), 0);
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)), 0);
	assert_string_equal(calls,
		"mkdir " CFS "/ports/20017\n"
		"write " CFS "/ports/20017/addr_trtype = tcp\n"
		"write " CFS "/ports/20017/addr_adrfam = ipv4\n"
		"write " CFS "/ports/20017/addr_traddr = 198.18.0.6\n"
		"write " CFS "/ports/20017/addr_trsvcid = 4420\n"
		"symlink " CFS "/ports/20017/subsystems/" NQN " -> " CFS
		"/subsystems/" NQN " in slowpath-up-3fa2-2\n"
		"symlink " CFS "/ports/20017/subsystems/" NQN ".p2 -> " CFS
		"/subsystems/" NQN ".p2 in slowpath-up-3fa2-2\n");
	reset();
	assert_int_equal(sp_nvmet_undo(&mock, &plan, err, sizeof(err)), 0);
	assert_string_equal(calls,
		"unlink " CFS "/ports/20017/subsystems/" NQN ".p2\n"
		"unlink " CFS "/ports/20017/subsystems/" NQN "\n"
		"rmdir " CFS "/ports/20017\n");
}

/* each path's own subsystem: the same loop device as namespace 1, a
 * name of our prefix (down's sweep finds it), none past 223 bytes */
static void solo_plan_is_the_shared_namespace_under_its_own_nqn(void **state)
{
	struct sp_cfs_plan plan;
	char err[512], nqn[SP_NVMET_NQN_MAX];

	(void)state;
	two_paths();
	reset();
	assert_int_equal(sp_nvmet_plan_solo(&st, &st.paths[0], &plan), 0);
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)), 0);
	assert_string_equal(calls,
		"mkdir " CFS "/subsystems/" NQN ".p1\n"
		"write " CFS "/subsystems/" NQN ".p1/attr_allow_any_host = 1\n"
		"mkdir " CFS "/subsystems/" NQN ".p1/namespaces/1\n"
		"write " CFS "/subsystems/" NQN ".p1/namespaces/1/device_path = "
		"/dev/loop3\n"
		"write " CFS "/subsystems/" NQN ".p1/namespaces/1/enable = 1\n");
	assert_int_equal(sp_nvmet_solo_nqn(&st, &st.paths[1], nqn,
					   sizeof(nqn)), 0);
	assert_string_equal(nqn, NQN ".p2");
	assert_true(sp_state_nqn_ok(nqn));
	memset(st.nqn + strlen(st.nqn), 'x', 222 - strlen(st.nqn));
	st.nqn[222] = '\0';
	assert_true(sp_state_nqn_ok(st.nqn));
	assert_int_equal(sp_nvmet_plan_solo(&st, &st.paths[0], &plan),
			 -EINVAL);
	assert_int_equal(plan.n, 0);
	assert_int_equal(sp_nvmet_plan_port(&st, &st.paths[0], &plan),
			 -EINVAL);
}

/* a topology's inline_data is written before the link enables the
 * port (nvmet refuses it after); without it nvmet-tcp keeps its own */
static void port_plan_sets_inline_data_before_the_link(void **state)
{
	struct sp_cfs_plan plan;
	char err[512];

	(void)state;
	two_paths();
	st.inline_data = 131072;
	reset();
	assert_int_equal(sp_nvmet_plan_port(&st, &st.paths[0], &plan), 0);
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)), 0);
	assert_non_null(strstr(calls,
		"write " CFS "/ports/20016/addr_trsvcid = 4420\n"
		"write " CFS "/ports/20016/param_inline_data_size = 131072\n"
		"symlink "));
	st.inline_data = 0;
	reset();
	assert_int_equal(sp_nvmet_plan_port(&st, &st.paths[0], &plan), 0);
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)), 0);
	assert_null(strstr(calls, "inline"));
}

static void apply_stops_at_failure_naming_it(void **state)
{
	struct sp_cfs_plan plan;
	char err[512];

	(void)state;
	two_paths();
	reset();
	assert_int_equal(sp_nvmet_plan_port(&st, &st.paths[0], &plan), 0);
	fail_at = 3;
	fail_ret = -EINVAL;
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(ncalls, 4);
	assert_non_null(strstr(err, "addr_traddr = 198.18.0.2"));
}

/* an undo after a crash: what is not there is fine, other errors are
 * named while the rest is still tried */
static void undo_goes_on_and_names_what_stayed(void **state)
{
	struct sp_cfs_plan plan;
	char err[512];

	(void)state;
	two_paths();
	assert_int_equal(sp_nvmet_plan_subsys(&st, &plan), 0);
	reset();
	fail_at = 0;
	fail_ret = -ENOENT;
	assert_int_equal(sp_nvmet_undo(&mock, &plan, err, sizeof(err)), 0);
	reset();
	fail_at = 1;
	fail_ret = -EBUSY;
	assert_int_equal(sp_nvmet_undo(&mock, &plan, err, sizeof(err)),
			 -EBUSY);
	assert_int_equal(ncalls, 3);
	assert_non_null(strstr(err, "namespaces/1"));
}

static void hostile_names_make_no_plan(void **state)
{
	struct sp_cfs_plan plan;

	(void)state;
	two_paths();
	snprintf(st.nqn, sizeof(st.nqn), SP_UP_NQN_PREFIX "a/../../x");
	assert_int_equal(sp_nvmet_plan_subsys(&st, &plan), -EINVAL);
	assert_int_equal(sp_nvmet_plan_port(&st, &st.paths[0], &plan),
			 -EINVAL);
	snprintf(st.nqn, sizeof(st.nqn), "nqn.2014-08.org.nvmexpress:other");
	assert_int_equal(sp_nvmet_plan_subsys(&st, &plan), -EINVAL);
	two_paths();
	snprintf(st.loop_dev, sizeof(st.loop_dev), "/dev/sda");
	assert_int_equal(sp_nvmet_plan_subsys(&st, &plan), -EINVAL);
	two_paths();
	snprintf(st.paths[0].target_ip, sizeof(st.paths[0].target_ip), "1/2");
	assert_int_equal(sp_nvmet_plan_port(&st, &st.paths[0], &plan),
			 -EINVAL);
}

static void journal_records_round_trip(void **state)
{
	static struct sp_state back;
	char text[4096], line[512], err[256];

	(void)state;
	two_paths();
	st.has_head = 1;
	snprintf(st.subsys, sizeof(st.subsys), "nvme-subsys0");
	snprintf(st.head, sizeof(st.head), "nvme0n1");
	st.head_major = 259;
	st.head_minor = 1;
	assert_int_equal(sp_state_fmt_nvme(&st, line, sizeof(line)), 0);
	assert_string_equal(line, "transport nvme-tcp " NQN "\n"
			    "loop /dev/loop3\nhead nvme-subsys0 nvme0n1 259:1\n");
	snprintf(text, sizeof(text), "slowpath-state 1\n%sbegin loop\n"
		 "begin nvmet\n", line);
	assert_int_equal(sp_state_parse(text, &back, err, sizeof(err)), 0);
	assert_int_equal(back.transport, SP_TRANSPORT_NVME_TCP);
	assert_string_equal(back.nqn, NQN);
	assert_string_equal(back.loop_dev, "/dev/loop3");
	assert_string_equal(back.head, "nvme0n1");
	assert_int_equal(back.head_minor, 1);
	assert_true(back.steps & (1u << SP_STEP_LOOP));
	assert_true(back.steps & (1u << SP_STEP_NVMET));
	/* a path's own subsystem's disks, on the line after its path's */
	st.paths[1].has_solo = 1;
	snprintf(st.paths[1].solo_head, sizeof(st.paths[1].solo_head),
		 "nvme3n1");
	snprintf(st.paths[1].solo_disk, sizeof(st.paths[1].solo_disk),
		 "nvme3c5n1");
	st.paths[1].solo_major = 259;
	st.paths[1].solo_minor = 7;
	snprintf(st.paths[1].label, sizeof(st.paths[1].label), "b");
	assert_int_equal(sp_state_fmt_nvme(&st, line, sizeof(line)), 0);
	assert_non_null(strstr(line, "head nvme-subsys0 nvme0n1 259:1\n"
				     "solo 2 nvme3n1 259:7 nvme3c5n1\n"));
	assert_int_equal(sp_state_fmt_path(&st.paths[1], text, sizeof(text)),
			 0);
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s", line);
	memmove(text + 17, text, strlen(text) + 1);
	memcpy(text, "slowpath-state 1\n", 17);
	sp_state_init(&back);
	assert_int_equal(sp_state_parse(text, &back, err, sizeof(err)), 0);
	assert_true(back.paths[0].has_solo);
	assert_string_equal(back.paths[0].solo_head, "nvme3n1");
	assert_string_equal(back.paths[0].solo_disk, "nvme3c5n1");
	assert_int_equal(back.paths[0].solo_minor, 7);
	/* an iscsi journal has none */
	sp_state_init(&back);
	assert_int_equal(sp_state_fmt_nvme(&back, line, sizeof(line)), 0);
	assert_string_equal(line, "");
}

static void journal_refuses_other_shapes(void **state)
{
	static struct sp_state back;
	char err[256];

	(void)state;
	assert_int_equal(sp_state_parse("slowpath-state 1\ntransport nvme-tcp "
					"nqn.x:y\n", &back, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(sp_state_parse("slowpath-state 1\nloop /dev/sda\n",
					&back, err, sizeof(err)), -EINVAL);
	assert_int_equal(sp_state_parse("slowpath-state 1\nhead nvme-subsys0 "
					"../x 1:2\n", &back, err, sizeof(err)),
			 -EINVAL);
	/* a solo line of no path, or naming no nvme disk */
	assert_int_equal(sp_state_parse("slowpath-state 1\nsolo 1 nvme3n1 "
					"259:7 nvme3c5n1\n", &back, err,
					sizeof(err)), -EINVAL);
	assert_int_equal(sp_state_parse("slowpath-state 1\npath 1 a\n"
					"solo 1 ../x 259:7 nvme3c5n1\n", &back,
					err, sizeof(err)), -EINVAL);
	assert_true(sp_state_nvme_disk_ok("nvme0c12n1"));
	assert_false(sp_state_nvme_disk_ok("nvme0c1n"));
	assert_false(sp_state_nvme_disk_ok("sda"));
}

/* up's plan over nvme-tcp: the NQN, port 4420, every delay netem's,
 * NVMe's selector; a serial topology as latency with not_serial */
static void plan_over_nvme_tcp(void **state)
{
	static struct sp_topo topo;
	static struct sp_state plan;
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN];

	(void)state;
	assert_int_equal(sp_topo_parse("[topology]\nunit = 1ms\nservers = 1\n"
				       "selector = st\n[path a]\nmultiplier = 1\n"
				       "[path slow]\nmultiplier = 4\n",
				       "skew.ini", "skew", &topo, err,
				       sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	snprintf(o.tag, sizeof(o.tag), "3fa2");
	o.has_transport = 1;
	o.transport = SP_TRANSPORT_NVME_TCP;
	/* serial through netem's rate (test_nvme_serial.c has more) */
	assert_int_equal(sp_bringup_plan(&topo, &o, &plan, err, sizeof(err)),
			 0);
	assert_int_equal(plan.paths[1].servers, 1);
	assert_int_equal(plan.paths[1].service_ns, 4000000);
	assert_int_equal(plan.paths[1].netem_ns, 0);
	o.not_serial = 1;
	assert_int_equal(sp_bringup_plan(&topo, &o, &plan, err, sizeof(err)),
			 0);
	assert_int_equal(plan.transport, SP_TRANSPORT_NVME_TCP);
	assert_string_equal(plan.nqn, SP_UP_NQN_PREFIX "skew-3fa2");
	assert_int_equal(plan.paths[1].portal_port, SP_NVME_TCP_PORT);
	assert_int_equal(plan.paths[1].mech, SP_MECH_NETEM);
	assert_int_equal(plan.paths[1].netem_ns, 4000000);
	assert_int_equal(plan.paths[1].servers, 0);
	assert_int_equal(plan.paths[1].service_ns, 0);
	/* the file's st gives way to NVMe's default */
	assert_int_equal(plan.sel.kind, SP_SEL_NUMA);
	o.has_selector = 1;
	sp_dm_selector_init(&o.sel, SP_SEL_RR);
	assert_int_equal(sp_bringup_plan(&topo, &o, &plan, err, sizeof(err)),
			 0);
	assert_int_equal(plan.sel.kind, SP_SEL_NRR);
	sp_dm_selector_init(&o.sel, SP_SEL_HST);
	assert_int_equal(sp_bringup_plan(&topo, &o, &plan, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "selector hst is dm-multipath's"));
	o.has_selector = 0;
	o.has_mech = 1;
	o.mech = SP_MECH_BACKEND;
	assert_int_equal(sp_bringup_plan(&topo, &o, &plan, err, sizeof(err)),
			 -EINVAL);
	/* and over iSCSI an NVMe iopolicy is refused */
	o.has_mech = 0;
	o.transport = SP_TRANSPORT_ISCSI;
	o.has_selector = 1;
	sp_dm_selector_init(&o.sel, SP_SEL_QD);
	assert_int_equal(sp_bringup_plan(&topo, &o, &plan, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "an NVMe iopolicy"));
}

/* A path's ANA state: one write to its port's default group, which
 * nvmet makes with the port; only the three states a fault sets. */
static void ana_plan(void **state)
{
	struct sp_cfs_plan plan;
	char err[512];

	(void)state;
	two_paths();
	reset();
	assert_int_equal(sp_nvmet_plan_ana(&st.paths[1], "inaccessible",
					   &plan), 0);
	assert_int_equal(plan.n, 1);
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)), 0);
	assert_string_equal(calls, "write " CFS "/ports/20017/ana_groups/1/"
			    "ana_state = inaccessible\n");
	/* nothing to take back: the port's removal drops its groups */
	reset();
	assert_int_equal(sp_nvmet_undo(&mock, &plan, err, sizeof(err)), 0);
	assert_string_equal(calls, "");
	assert_int_equal(sp_nvmet_plan_ana(&st.paths[0], "optimized", &plan), 0);
	assert_int_equal(sp_nvmet_plan_ana(&st.paths[0], "non-optimized",
					   &plan), 0);
	assert_int_equal(sp_nvmet_plan_ana(&st.paths[0], "change", &plan),
			 -EINVAL);
	assert_int_equal(sp_nvmet_plan_ana(&st.paths[0], "optimized\n../x",
					   &plan), -EINVAL);
	st.paths[0].ctl_port = 0;
	assert_int_equal(sp_nvmet_plan_ana(&st.paths[0], "optimized", &plan),
			 -EINVAL);
	/* a write configfs refuses names the attribute */
	reset();
	fail_at = 0;
	fail_ret = -EINVAL;
	assert_int_equal(sp_nvmet_plan_ana(&st.paths[1], "optimized", &plan), 0);
	assert_int_equal(sp_nvmet_apply(&mock, &plan, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "ana_groups/1/ana_state = optimized"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(subsystem_plan),
		cmocka_unit_test(port_plan_links_from_the_path_netns),
		cmocka_unit_test(solo_plan_is_the_shared_namespace_under_its_own_nqn),
		cmocka_unit_test(port_plan_sets_inline_data_before_the_link),
		cmocka_unit_test(apply_stops_at_failure_naming_it),
		cmocka_unit_test(undo_goes_on_and_names_what_stayed),
		cmocka_unit_test(hostile_names_make_no_plan),
		cmocka_unit_test(journal_records_round_trip),
		cmocka_unit_test(journal_refuses_other_shapes),
		cmocka_unit_test(plan_over_nvme_tcp),
		cmocka_unit_test(ana_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
