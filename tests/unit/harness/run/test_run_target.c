/* The target of `slowpath run` from up's journal: the device fio
 * reads, the disks its paths are counted on, which are slow; on
 * nvme-tcp, which family's disks each case runs on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/run_loop.h"
#include "tests/unit/harness/run/run_mock.h"

static void slow_paths_from_the_journal(void **state)
{
	static struct sp_state st;
	struct sp_run_target t;
	char err[256];
	size_t i;

	(void)state;
	sp_state_init(&st);
	strcpy(st.topology, "skew4");
	strcpy(st.map_name, "slowpath-skew4");
	strcpy(st.map_uuid, "slowpath-skew4-00aa");
	sp_dm_selector_init(&st.sel, SP_SEL_HST);
	st.npaths = 4;
	for (i = 0; i < 4; i++) {
		snprintf(st.paths[i].label, sizeof(st.paths[i].label), "p%zu", i);
		snprintf(st.paths[i].disk, sizeof(st.paths[i].disk), "sd%c",
			 (char)('b' + i));
		st.paths[i].has_disk = 1;
		st.paths[i].read_ns = st.paths[i].write_ns = 5000000;
	}
	st.paths[3].read_ns = st.paths[3].write_ns = 20000000;
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)),
			 -EINVAL);	/* not complete */
	assert_non_null(strstr(err, "not fully up"));
	st.complete = 1;
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)), 0);
	assert_string_equal(t.device, "/dev/mapper/slowpath-skew4");
	assert_string_equal(t.dm_name, "dm-3");
	assert_string_equal(t.path[3], "sde");
	assert_int_equal(t.slow[0] + t.slow[1] + t.slow[2], 0);
	assert_int_equal(t.slow[3], 1);
	assert_int_equal(t.initial.kind, SP_SEL_HST);
	/* a netem-delayed path is slow too */
	st.paths[3].read_ns = st.paths[3].write_ns = 5000000;
	st.paths[0].netem_ns = 1000000;
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)), 0);
	assert_int_equal(t.slow[0], 1);
	assert_int_equal(t.slow[3], 0);
	/* equal paths: none is slow */
	st.paths[0].netem_ns = 0;
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(t.slow[i], 0);
	/* a serial path's service counts */
	st.paths[1].servers = 1;
	st.paths[1].service_ns = 2000000;
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)), 0);
	assert_int_equal(t.slow[1], 1);
	assert_int_equal(t.slow[0] + t.slow[2] + t.slow[3], 0);
	/* calibrated: the targets decide, not the injected delays, which
	 * differ by each path's own cost */
	for (i = 0; i < 4; i++) {
		st.paths[i].has_calib = 1;
		st.paths[i].calib_target_ns = i == 2 ? 90000000 : 30000000;
		st.paths[i].read_ns = st.paths[i].write_ns = 1000000 * (int64_t)(i + 1);
	}
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)), 0);
	assert_int_equal(t.slow[2], 1);
	assert_int_equal(t.slow[0] + t.slow[1] + t.slow[3], 0);
	for (i = 0; i < 4; i++)
		st.paths[i].has_calib = 0;
	/* a fault already on a path (issue 23 item 8): refused, named */
	strcpy(st.paths[1].fault_how, "hang");
	strcpy(st.paths[1].fault_spec, "path=p1 how=hang");
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)),
			 -EBUSY);
	assert_non_null(strstr(err, "path p1 has a hang fault"));
	assert_non_null(strstr(err, "slowpath fault p1 restore"));
	st.paths[1].fault_how[0] = st.paths[1].fault_spec[0] = '\0';
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)), 0);
	st.paths[2].has_disk = 0;
	assert_int_equal(sp_run_target_from_state(&st, 3, &t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "path p2"));
}

/* nvme-tcp with a map over each path's own subsystem: the iopolicies'
 * cases read native multipath's disk and count its hidden disks, a dm
 * selector's the map and the paths' own disks (docs/nvme.md) */
static void nvme_families_run_on_their_own_disks(void **state)
{
	static struct sp_state st;
	struct sp_run_target t, alt;
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char err[256], *dir = run_mock_tmpdir("test_run_loop");
	size_t i;

	(void)state;
	sp_state_init(&st);
	strcpy(st.topology, "equal2");
	strcpy(st.map_name, "slowpath-equal2");
	st.transport = SP_TRANSPORT_NVME_TCP;
	strcpy(st.head, "nvme0n1");
	sp_dm_selector_init(&st.sel, SP_SEL_NUMA);
	st.complete = 1;
	st.npaths = 2;
	for (i = 0; i < 2; i++) {
		snprintf(st.paths[i].label, sizeof(st.paths[i].label), "p%zu", i);
		snprintf(st.paths[i].disk, sizeof(st.paths[i].disk),
			 "nvme0c%zun1", i);
		st.paths[i].has_disk = 1;
	}
	assert_int_equal(sp_run_target_from_state(&st, 0, &t, err,
						  sizeof(err)), 0);
	assert_int_equal(sp_run_target_solo(&st, 4, &t, &alt, err,
					    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "path p0"));
	for (i = 0; i < 2; i++) {
		st.paths[i].has_solo = 1;
		snprintf(st.paths[i].solo_disk, sizeof(st.paths[i].solo_disk),
			 "nvme%zuc%zun1", i + 2, i + 2);
	}
	assert_int_equal(sp_run_target_solo(&st, 4, &t, &alt, err,
					    sizeof(err)), 0);
	assert_string_equal(t.device, "/dev/nvme0n1");
	assert_string_equal(alt.device, "/dev/mapper/slowpath-equal2");
	assert_string_equal(alt.dm_name, "dm-4");
	assert_string_equal(alt.path[1], "nvme3c3n1");
	assert_false(alt.map_sums_paths);
	t.dm_alt = &alt;
	run_mock_init(&m);
	m.any_device = 1;
	snprintf(m.more_disks, sizeof(m.more_disks), "nvme0n1 nvme0c0n1 "
		 "nvme0c1n1 nvme2c2n1 nvme3c3n1 dm-4");
	ops = run_mock_ops(&m);
	run_mock_plan(&p);
	p.sel[0] = SP_SEL_NRR;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	assert_int_equal(s.done, 2);
	assert_non_null(strstr(m.argv_seen, "--filename=/dev/nvme0n1"));
	assert_non_null(strstr(m.argv_seen,
			       "--filename=/dev/mapper/slowpath-equal2"));
	assert_int_equal(strstr(m.argv_seen, "/dev/nvme0n1") <
			 strstr(m.argv_seen, "/dev/mapper/"), 1);
	assert_string_equal(s.cases[0].map.name, "nvme0n1");
	assert_string_equal(s.cases[0].path[1].name, "nvme0c1n1");
	assert_string_equal(s.cases[1].map.name, "dm-4");
	assert_string_equal(s.cases[1].path[1].name, "nvme3c3n1");
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slow_paths_from_the_journal),
		cmocka_unit_test(nvme_families_run_on_their_own_disks),
	};

	sp_log_set_hook(run_mock_quiet, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
