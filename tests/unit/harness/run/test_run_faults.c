/* Unit tests of harness/run/run_faults.c, the schedule of a case's
 * faults, and of the plan's --verify, --timeline and --fault checks
 * (run_matrix.c). Pure: no clock but the one passed in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "harness/run/run_faults.h"
#include "harness/run/run_loop.h"
#include "harness/run/run_matrix.h"

#define MS SP_NSEC_PER_MSEC

static struct sp_fault fault(const char *path, enum sp_fault_how how,
			     int64_t at_ms, int64_t for_ms)
{
	struct sp_fault f;

	memset(&f, 0, sizeof(f));
	strcpy(f.path, path);
	f.how = how;
	f.at_ns = at_ms * MS;
	f.for_ns = for_ms * MS;
	return f;
}

static void schedule_is_pure(void **state)
{
	struct sp_fault f[3];
	struct sp_run_fault_clock c[3];
	int64_t next;
	size_t i;
	char err[256];

	(void)state;
	f[0] = fault("p1", SP_FAULT_HANG, 1000, 2000);
	f[1] = fault("p2", SP_FAULT_FLAP, 500, 1000);
	f[1].flap_period_ns = 300 * MS;
	f[2] = fault("p1", SP_FAULT_DOWN, 3000, 0);	/* to the end */
	assert_int_equal(sp_run_faults_check(f, 3, err, sizeof(err)), 0);
	sp_run_faults_reset(c, 3);
	assert_int_equal(sp_run_faults_next(f, c, 3, 0, &i, &next), SP_RF_NONE);
	assert_int_equal(next, 500 * MS);
	/* late: the earliest first, the rest when asked again */
	assert_int_equal(sp_run_faults_next(f, c, 3, 1200 * MS, &i, &next),
			 SP_RF_APPLY);
	assert_int_equal(i, 1);
	assert_int_equal(next, 800 * MS);	/* the flap's first up */
	assert_int_equal(sp_run_faults_next(f, c, 3, 1200 * MS, &i, &next),
			 SP_RF_FLAP_UP);
	assert_int_equal(sp_run_faults_next(f, c, 3, 1200 * MS, &i, &next),
			 SP_RF_APPLY);
	assert_int_equal(i, 0);
	assert_int_equal(next, 1100 * MS);
	assert_int_equal(sp_run_faults_next(f, c, 3, 1200 * MS, &i, &next),
			 SP_RF_FLAP_DOWN);
	assert_int_equal(sp_run_faults_next(f, c, 3, 1200 * MS, &i, &next),
			 SP_RF_NONE);
	assert_int_equal(next, 1400 * MS);
	/* 1400 would be up again, but the flap ends at 1500 */
	assert_int_equal(sp_run_faults_next(f, c, 3, 1450 * MS, &i, &next),
			 SP_RF_FLAP_UP);
	assert_int_equal(next, 1500 * MS);
	assert_int_equal(sp_run_faults_next(f, c, 3, 1500 * MS, &i, &next),
			 SP_RF_RESTORE);
	assert_int_equal(i, 1);
	assert_int_equal(sp_run_faults_next(f, c, 3, 3000 * MS, &i, &next),
			 SP_RF_RESTORE);
	assert_int_equal(i, 0);
	assert_int_equal(sp_run_faults_next(f, c, 3, 3000 * MS, &i, &next),
			 SP_RF_APPLY);
	assert_int_equal(i, 2);
	assert_int_equal(next, INT64_MAX);	/* no for=: the case's end */
	assert_int_equal(c[2].phase, SP_RF_ACTIVE);

	/* one path broken twice at once: refused, both named */
	f[2] = fault("p1", SP_FAULT_SLOW, 2500, 1000);
	assert_int_equal(sp_run_faults_check(f, 3, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--fault 1 and --fault 3"));
	assert_non_null(strstr(err, "p1"));
	/* back to back is fine */
	f[2] = fault("p1", SP_FAULT_SLOW, 3000, 1000);
	assert_int_equal(sp_run_faults_check(f, 3, err, sizeof(err)), 0);
	f[1].flap_period_ns = 0;
	assert_int_equal(sp_run_faults_check(f, 3, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "period"));
}

static void verify_needs_writes(void **state)
{
	struct sp_run_cli cli;
	struct sp_run_plan p;
	char err[512];

	(void)state;
	memset(&cli, 0, sizeof(cli));
	sp_opt_set_defaults(sp_run_cli_table, &cli);
	cli.verify = 1;
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--verify: --rw read does not write"));
	cli.rw = "write,randwrite,randrw";
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)), 0);
	assert_true(p.verify);
	assert_true(p.timeline);
	assert_true(sp_run_counts_errors(&p));
	/* faults turn the timeline on; overlapping ones are refused */
	cli.verify = 0;
	cli.n_faults = 2;
	cli.faults[0] = fault("p1", SP_FAULT_HANG, 1000, 0);
	cli.faults[1] = fault("p1", SP_FAULT_DOWN, 5000, 1000);
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)),
			 -EINVAL);
	cli.faults[0].for_ns = 4000 * MS;
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n_faults, 2);
	assert_true(p.timeline);
	assert_false(p.verify);
	cli.n_faults = 0;
	assert_int_equal(sp_run_plan_from_cli(&cli, &p, err, sizeof(err)), 0);
	assert_false(p.timeline);
	assert_false(sp_run_counts_errors(&p));
}

static void two_paths(struct sp_state *st)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->topology, sizeof(st->topology), "skew4");
	st->npaths = 2;
	st->paths[0].index = 1;
	snprintf(st->paths[0].label, sizeof(st->paths[0].label), "a");
	snprintf(st->paths[0].disk, sizeof(st->paths[0].disk), "sdb");
	st->paths[1].index = 2;
	snprintf(st->paths[1].label, sizeof(st->paths[1].label), "slow");
	snprintf(st->paths[1].disk, sizeof(st->paths[1].disk), "sdc");
}

/* run --fault names a path as `slowpath fault` does: by label, number
 * or disk, and the plan then holds the label. */
static void faults_name_a_path_any_way(void **state)
{
	static struct sp_state st;
	struct sp_fault f[3];
	char err[256];

	(void)state;
	two_paths(&st);
	f[0] = fault("2", SP_FAULT_HANG, 1000, 1000);
	f[1] = fault("sdb", SP_FAULT_DOWN, 0, 500);
	f[2] = fault("a", SP_FAULT_HANG, 3000, 0);
	assert_int_equal(sp_run_faults_resolve(f, 3, &st, err, sizeof(err)), 0);
	assert_string_equal(f[0].path, "slow");
	assert_string_equal(f[1].path, "a");
	assert_string_equal(f[2].path, "a");
	/* one path under two names overlaps itself */
	f[0] = fault("1", SP_FAULT_HANG, 1000, 1000);
	f[1] = fault("a", SP_FAULT_DOWN, 1500, 0);
	assert_int_equal(sp_run_faults_resolve(f, 2, &st, err, sizeof(err)),
			 -EINVAL);
	f[0] = fault("3", SP_FAULT_HANG, 1000, 1000);
	assert_int_equal(sp_run_faults_resolve(f, 1, &st, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "--fault 1: topology skew4 has no path '3' "
			    "(its paths are a..slow)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schedule_is_pure),
		cmocka_unit_test(verify_needs_writes),
		cmocka_unit_test(faults_name_a_path_any_way),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
