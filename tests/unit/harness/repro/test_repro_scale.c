/* Unit tests of harness/repro/repro_scale.c: k from the measured
 * capacity, and run lengths for a share's standard error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "harness/repro/repro_scale.h"

static const double skew4[4] = { 1, 1, 1, 4 };
static const double u10[10] = { 1, 1, 1, 4, 8, 8, 16, 16, 1, 1 };

/* the 2020 fit: 0.856 ms + 0.671 ms x multiplier */
static struct sp_scale_model model(const double *m, size_t n)
{
	struct sp_scale_model s = { .base_ns = 856000, .unit_ns = 671000,
				    .n_paths = n, .multiplier = m };

	return s;
}

/* One point: the CPU proportional to the rate. */
static struct sp_lab_capacity linear(double iops, double util, double idle,
				     int64_t own_ns)
{
	struct sp_lab_capacity c = { .n = 1, .iops = { iops },
				     .util = { util }, .idle_util = idle,
				     .own_ns = own_ns };

	assert_int_equal(sp_capacity_fit(&c), 0);
	return c;
}

/* Serial paths cap the rate at what they serve together, so a deep
 * case needs a smaller k than if every I/O overlapped. */
static void serial_paths_cap_the_rate(void **state)
{
	struct sp_lab_capacity cap = linear(1200, 0.95, 0, 2500000);
	struct sp_scale_model m = model(skew4, 4);
	uint64_t k_par, k_ser;
	double util, par, ser, cap32;

	(void)state;
	par = sp_scale_predicted_iops(&m, 32, 32);
	assert_float_equal(par, 32 / (32 * 1.527e-3), 0.5);
	assert_int_equal(sp_scale_pick(&cap, &m, 32, 0.5, &k_par, &util), 0);
	m.serial = 1;
	m.serial_base_ns = 468000;
	/* 3 / (32 x 1.139 ms) + 1 / (32 x 3.152 ms) */
	cap32 = 3 / (32 * 1.139e-3) + 1 / (32 * 3.152e-3);
	ser = sp_scale_predicted_iops(&m, 32, 32);
	assert_float_equal(ser, cap32, 0.5);
	assert_true(ser < par / 5);
	/* qd 1 is still bound by one I/O at a time */
	assert_float_equal(sp_scale_predicted_iops(&m, 1, 32),
			   1 / (32 * 1.527e-3), 0.1);
	assert_int_equal(sp_scale_pick(&cap, &m, 32, 0.5, &k_ser, &util), 0);
	assert_true(k_ser < k_par);
	/* a run at the capped rate must last longer for the same error */
	assert_true(sp_scale_runtime_for_se(&m, 32, 32, 0.1, 0.005) >
		    3600 / par);
}

static void k_grows_with_iodepth(void **state)
{
	/* a lab that did 1200 IOPS at 95 % CPU, 2.5 ms per I/O of its own */
	struct sp_lab_capacity cap = linear(1200, 0.95, 0, 2500000);
	struct sp_scale_model m = model(skew4, 4);
	uint64_t k;
	double util;

	(void)state;
	assert_float_equal(cap.b, 1, 1e-12);
	/* qd 1: the own cost decides: 2.5 ms <= a tenth of k x 1.527 ms */
	assert_int_equal(sp_scale_pick(&cap, &m, 1, 0.5, &k, &util), 0);
	assert_int_equal(k, 32);
	assert_true(util <= 0.5);
	/* qd 32: 32 / (k x 1.527 ms) IOPS at 0.95/1200 CPU each: 16.6 / k
	 * <= 0.5 needs k >= 33.2 */
	assert_int_equal(sp_scale_pick(&cap, &m, 32, 0.5, &k, &util), 0);
	assert_int_equal(k, 64);
	assert_true(util <= 0.5 && util > 0.25);
	assert_int_equal(sp_scale_pick(&cap, &m, 64, 0.5, &k, &util), 0);
	assert_int_equal(k, 128);
	/* a native host with headroom: k = 1 */
	cap = linear(200000, 0.5, 0, 100000);
	assert_int_equal(sp_scale_pick(&cap, &m, 64, 0.5, &k, &util), 0);
	assert_int_equal(k, 1);
}

/* The lab as measured: the CPU per I/O falls as the rate rises. */
static void power_law_from_the_lab(void **state)
{
	struct sp_lab_capacity cap = {
		.n = 4, .iops = { 15, 44, 132, 484 },
		.util = { 0.18, 0.35, 0.57, 0.83 }, .idle_util = 0.001,
		.own_ns = 4424000,
	};
	struct sp_scale_model m = model(skew4, 4);
	uint64_t k;
	double util;

	(void)state;
	assert_int_equal(sp_capacity_fit(&cap), 0);
	assert_true(cap.b > 0.4 && cap.b < 0.6);
	assert_float_equal(sp_capacity_util(&cap, 132), 0.57, 0.06);
	/* qd 32 at k = 128 asks 164 IOPS: over half the CPU; k = 256 */
	assert_true(sp_capacity_util(&cap, 164) > 0.5);
	assert_int_equal(sp_scale_pick(&cap, &m, 32, 0.5, &k, &util), 0);
	assert_int_equal(k, 256);
	/* nothing usable */
	cap.n = 1;
	cap.util[0] = 0.0001;
	assert_int_equal(sp_capacity_fit(&cap), -EINVAL);
}

static void no_k_fits_within_the_bound(void **state)
{
	struct sp_lab_capacity cap = linear(0.001, 1, 0, 1000);
	struct sp_scale_model m = model(u10, 10);
	uint64_t k;
	double util;

	(void)state;
	assert_int_equal(sp_scale_pick(&cap, &m, 64, 0.5, &k, &util), -ERANGE);
	/* u10's slowest path, 11.6 ms, times k stays within 60 s */
	assert_true(k * 11592000.0 <= 60e9);
	cap.a = 0;
	assert_int_equal(sp_scale_pick(&cap, &m, 64, 0.5, &k, &util), -EINVAL);
}

/* A guest that is busy with no I/O at all (the lab under a loaded
 * host): only the I/O's part shrinks with k. */
static void idle_busy_guest(void **state)
{
	struct sp_lab_capacity cap = linear(543, 0.81, 0.70, 4424000);
	struct sp_scale_model m = model(skew4, 4);
	uint64_t k;
	double util;

	(void)state;
	/* 0.11 / 543 per IOPS; qd 32 asks 20956 / k IOPS: 4.25 / k more
	 * CPU, at most 0.05 from k = 85 */
	assert_int_equal(sp_scale_pick(&cap, &m, 32, 0.75, &k, &util), 0);
	assert_int_equal(k, 128);
	assert_true(util > 0.70 && util <= 0.75);
	/* under 50 % is out of reach: the smallest k whose I/O adds at most
	 * a tenth of the headroom (0.03): k >= 142 */
	assert_int_equal(sp_scale_pick(&cap, &m, 32, 0.5, &k, &util), -ERANGE);
	assert_int_equal(k, 256);
	assert_true(util > 0.70 && util < 0.73);
}

static void run_length_for_the_standard_error(void **state)
{
	struct sp_scale_model m = model(skew4, 4);
	double s;

	(void)state;
	/* qd 1, ST in turn: mean 4 x (3 x 1.527 + 3.540) / 4 ms = 8.1 ms per
	 * I/O; 0.25 x 0.75 / 0.005^2 = 7500 I/Os: 60.8 s */
	s = sp_scale_runtime_for_se(&m, 1, 4, 0.25, 0.005);
	assert_float_equal(s, 7500 * 4 * (3 * 1.527e-3 + 3.540e-3) / 4, 1e-6);
	/* below the path count: twice the depth, half the time */
	assert_float_equal(sp_scale_runtime_for_se(&m, 2, 4, 0.25, 0.005),
			   s / 2, 1e-6);
	/* twice k, twice the time */
	assert_float_equal(sp_scale_runtime_for_se(&m, 32, 8, 0.1, 0.005),
			   2 * sp_scale_runtime_for_se(&m, 32, 4, 0.1, 0.005),
			   1e-9);
}

/* The capacity this machine's lab measured on 2026-11-30 (CPU 0.0224 x
 * IOPS^0.514, own p50 1.745 ms) and u10 on serial paths at qd 32: at
 * the flag's 50 % k = 16 passed (44 % predicted) and the runs measured
 * 51-71 %; planned for SP_SCALE_PLAN_UTIL it is 32. */
static void u10_deep_planned_with_a_margin(void **state)
{
	struct sp_lab_capacity cap = { .a = 0.02244, .b = 0.514,
				       .own_ns = 1745000 };
	struct sp_scale_model m = model(u10, 10);
	double util;
	uint64_t k;

	(void)state;
	m.serial = 1;
	m.serial_base_ns = 468000;
	assert_int_equal(sp_scale_pick(&cap, &m, 32, 0.5, &k, &util), 0);
	assert_int_equal(k, 16);
	assert_true(util > 0.4 && util <= 0.5);
	assert_int_equal(sp_scale_pick(&cap, &m, 32, SP_SCALE_PLAN_UTIL, &k,
				       &util), 0);
	assert_int_equal(k, 32);
	/* qd 1 stays where the own cost puts it */
	assert_int_equal(sp_scale_pick(&cap, &m, 1, SP_SCALE_PLAN_UTIL, &k,
				       &util), 0);
	assert_int_equal(k, 16);
}

/* HST at qd 2 on u10 came out at 3 pp in 35 s: the case runs again for
 * (3 / 0.5)^2 x 35 s, cut at --max-runtime; a run within the error, or
 * one already as long as allowed, does not. */
static void noisy_case_runs_again_longer(void **state)
{
	(void)state;
	assert_int_equal(sp_scale_rerun_size(0.030, 0.005, 35, 600), 600);
	assert_int_equal(sp_scale_rerun_size(0.030, 0.005, 35, 350), 350);
	/* 0.6 pp, aimed at 0.3: 35 x 0.36 / 0.09 = 140 s */
	assert_int_equal(sp_scale_rerun_size(0.006, 0.005, 35, 600), 140);
	assert_int_equal(sp_scale_rerun_size(0.005, 0.005, 35, 600), 0);
	assert_int_equal(sp_scale_rerun_size(0.001, 0.005, 35, 600), 0);
	assert_int_equal(sp_scale_rerun_size(0.030, 0.005, 35, 35), 0);
	assert_int_equal(sp_scale_rerun_size(0.030, 0.005, 0, 600), 0);
	assert_int_equal(sp_scale_rerun_size(NAN, 0.005, 35, 600), 0);
	assert_int_equal(sp_scale_rerun_size(INFINITY, 0.005, 35, 600), 600);
	assert_int_equal(sp_scale_rerun_size(0.030, 0, 35, 600), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(k_grows_with_iodepth),
		cmocka_unit_test(serial_paths_cap_the_rate),
		cmocka_unit_test(power_law_from_the_lab),
		cmocka_unit_test(no_k_fits_within_the_bound),
		cmocka_unit_test(idle_busy_guest),
		cmocka_unit_test(run_length_for_the_standard_error),
		cmocka_unit_test(u10_deep_planned_with_a_margin),
		cmocka_unit_test(noisy_case_runs_again_longer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
