/* Faults on an nvme-tcp topology: equal3 up in the bring-up mock, its
 * journal replayed and marked nvme-tcp, and configfs a recording mock
 * of struct sp_cfs_ops. ana writes the path's port's ANA group and a
 * restore writes optimized back; hang, reset and error are refused on
 * nvme-tcp, ana on iSCSI; down and blackhole are the wire's as on
 * iSCSI; no map is asked to reinstate anything. */
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
#include "harness/fault/fault_apply.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

static struct sp_state st;
static char writes[4096];
static int write_ret, write_fails;	/* the next write_fails fail */

static int c_write(void *ctx, const char *path, const char *text)
{
	size_t n = strlen(writes);

	(void)ctx;
	snprintf(writes + n, sizeof(writes) - n, "%s = %s\n", path, text);
	if (!write_fails)
		return 0;
	write_fails--;
	return write_ret;
}

static const struct sp_cfs_ops cfs = { .write = c_write };
static struct sp_sys_ops ops;

static void load(void)
{
	char err[SP_STATE_ERRLEN];

	if (sp_state_load(dir, &st, err, sizeof(err)))
		fail_msg("journal: %s", err);
}

/* equal3 up in the mock, then seen as nvme-tcp */
static void up_nvme(void)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	opts(&o);
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	load();
	st.transport = SP_TRANSPORT_NVME_TCP;
	ops = mock_ops;
	ops.cfs = &cfs;
	writes[0] = '\0';
	write_ret = write_fails = 0;
}

static int apply(const char *spec, char *err, size_t errlen)
{
	struct sp_fault f;

	if (sp_fault_parse(spec, &f, err, errlen))
		fail_msg("'%s': %s", spec, err);
	M.ncmds = 0;
	return sp_fault_apply_in(&ops, &st, dir, &f, err, errlen);
}

static void ana_sets_the_port_and_restore_puts_optimized_back(void **state)
{
	char err[512] = "", want[512];

	(void)state;
	up_nvme();
	assert_int_equal(apply("path=b how=ana", err, sizeof(err)), 0);
	snprintf(want, sizeof(want), SP_NVMET_CFS "/ports/%u/ana_groups/1/"
		 "ana_state = inaccessible\n", st.paths[1].ctl_port);
	assert_string_equal(writes, want);
	assert_string_equal(st.paths[1].fault_how, "ana");
	assert_string_equal(st.paths[1].fault_spec,
			    "path=b how=ana state=inaccessible");
	/* journaled: a down after a crash finds it */
	{
		struct sp_state back;
		char e[SP_STATE_ERRLEN];

		assert_int_equal(sp_state_load(dir, &back, e, sizeof(e)), 0);
		assert_string_equal(back.paths[1].fault_how, "ana");
	}
	writes[0] = '\0';
	M.ncmds = 0;
	assert_int_equal(sp_fault_restore_in(&ops, &st, dir, "b", err,
					     sizeof(err)), 0);
	snprintf(want, sizeof(want), SP_NVMET_CFS "/ports/%u/ana_groups/1/"
		 "ana_state = optimized\n", st.paths[1].ctl_port);
	assert_string_equal(writes, want);
	assert_string_equal(st.paths[1].fault_how, "");
	/* native multipath takes the path back: no map, no reinstate */
	assert_int_equal(ran("reinstate"), 0);
	assert_int_equal(ran("dmsetup"), 0);
}

static void non_optimized_is_a_state_too(void **state)
{
	char err[512] = "";

	(void)state;
	up_nvme();
	assert_int_equal(apply("path=c how=ana state=non-optimized", err,
			       sizeof(err)), 0);
	assert_non_null(strstr(writes, "ana_state = non-optimized\n"));
	/* a configfs write that fails: undone (optimized written), nothing
	 * left recorded as in force */
	assert_int_equal(sp_fault_restore_in(&ops, &st, dir, "c", err,
					     sizeof(err)), 0);
	writes[0] = '\0';
	write_ret = -EINVAL;
	write_fails = 1;
	assert_int_equal(apply("path=a how=ana", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ana_state"));
	assert_non_null(strstr(writes, "ana_state = optimized\n"));
	assert_string_equal(st.paths[0].fault_how, "");
}

static void tgt_faults_are_refused_on_nvme_and_ana_on_iscsi(void **state)
{
	const char *hows[] = { "hang", "reset", "error" };
	char err[512] = "", spec[64];
	size_t i;

	(void)state;
	up_nvme();
	for (i = 0; i < 3; i++) {
		snprintf(spec, sizeof(spec), "path=a how=%s", hows[i]);
		assert_int_equal(apply(spec, err, sizeof(err)), -ENOTSUP);
		assert_non_null(strstr(err, "nvme-tcp path takes down"));
		assert_string_equal(st.paths[0].fault_how, "");
	}
	assert_string_equal(writes, "");
	assert_int_equal(M.ncmds, 0);
	st.transport = SP_TRANSPORT_ISCSI;
	assert_int_equal(apply("path=a how=ana", err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "iSCSI"));
	assert_string_equal(writes, "");
}

static void down_and_blackhole_are_the_wires(void **state)
{
	char err[512] = "";

	(void)state;
	up_nvme();
	assert_int_equal(apply("path=a how=down", err, sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h1 down"), 1);
	M.ncmds = 0;
	assert_int_equal(sp_fault_restore_in(&ops, &st, dir, "a", err,
					     sizeof(err)), 0);
	assert_int_equal(ran("ip link set dev spu3fa2h1 up"), 1);
	/* no SCSI device to wait for, no map */
	assert_int_equal(ran("reinstate"), 0);
	assert_int_equal(apply("path=b how=blackhole", err, sizeof(err)), 0);
	assert_non_null(netem_on("spu3fa2h2"));
	assert_int_equal(netem_on("spu3fa2h2")->spec.loss_pct, 100);
	assert_int_equal(sp_fault_restore_in(&ops, &st, dir, "b", err,
					     sizeof(err)), 0);
	assert_string_equal(writes, "");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(ana_sets_the_port_and_restore_puts_optimized_back),
		T(non_optimized_is_a_state_too),
		T(tgt_faults_are_refused_on_nvme_and_ana_on_iscsi),
		T(down_and_blackhole_are_the_wires),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
