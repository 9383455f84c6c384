/* nvme-latency-2025 (harness/repro/ref_nvme.c): the published table,
 * bad tables refused by line, the kernel releases that have
 * queue-depth, and the ratios' score and report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/repro/ref_nvme.h"

static struct sp_nvref_table pub;

static int setup(void **state)
{
	(void)state;
	return sp_nvref_load(SP_NVREF_DEFAULT_DATA, &pub);
}

static void published_table(void **state)
{
	(void)state;
	assert_true(fabs(pub.mibps[SP_NVREF_READ][SP_NVREF_NUMA] - 50.0) < 1e-9);
	assert_true(fabs(pub.mibps[SP_NVREF_READ][SP_NVREF_ADAPTIVE] - 350) < 1e-9);
	assert_true(fabs(pub.mibps[SP_NVREF_WRITE][SP_NVREF_QD] - 385) < 1e-9);
	assert_true(fabs(pub.mibps[SP_NVREF_WRITE][SP_NVREF_NUMA] - 65.9) < 1e-9);
	/* nothing published for rw */
	assert_true(pub.mibps[SP_NVREF_RW][SP_NVREF_NUMA] < 0);
}

static void bad_tables_refused(void **state)
{
	struct sp_nvref_table t;

	(void)state;
	assert_int_equal(sp_nvref_parse("policy\trw\tmibps\n", "t", &t), -EINVAL);
	assert_int_equal(sp_nvref_parse("numa read 50\nnuma read 51\n", "t", &t),
			 -EINVAL);
	assert_int_equal(sp_nvref_parse("numa read -1\n", "t", &t), -EINVAL);
	assert_int_equal(sp_nvref_parse("numa read nan\n", "t", &t), -EINVAL);
	assert_int_equal(sp_nvref_parse("st read 50\n", "t", &t), -EINVAL);
	assert_int_equal(sp_nvref_parse("numa randread 50\n", "t", &t), -EINVAL);
	assert_int_equal(sp_nvref_parse("numa read 50 x\n", "t", &t), -EINVAL);
	/* nothing half-loaded */
	assert_true(t.mibps[SP_NVREF_READ][SP_NVREF_NUMA] < 0);
	assert_int_equal(sp_nvref_parse("# c\nrr write 1.5\nqd rw 3\n", "t", &t), 0);
	assert_true(fabs(t.mibps[SP_NVREF_WRITE][SP_NVREF_RR] - 1.5) < 1e-9);
	assert_int_equal(sp_nvref_pol_parse("nvme-rr"), SP_NVREF_RR);
	assert_int_equal(sp_nvref_pol_parse("queue-depth"), SP_NVREF_QD);
	assert_int_equal(sp_nvref_pol_parse("service-time"), -EINVAL);
}

static void kernels_with_queue_depth(void **state)
{
	(void)state;
	assert_int_equal(sp_nvref_kernel_has_qd("6.1.192-slowpath-uml"), 0);
	assert_int_equal(sp_nvref_kernel_has_qd("6.1.0-57-amd64"), 0);
	assert_int_equal(sp_nvref_kernel_has_qd("6.10.3"), 0);
	assert_int_equal(sp_nvref_kernel_has_qd("6.11.0"), 1);
	assert_int_equal(sp_nvref_kernel_has_qd("6.12.95+deb12-amd64"), 1);
	assert_int_equal(sp_nvref_kernel_has_qd("7.0"), 1);
	assert_int_equal(sp_nvref_kernel_has_qd("5.19.1"), 0);
	assert_int_equal(sp_nvref_kernel_has_qd("six"), -EINVAL);
	assert_int_equal(sp_nvref_kernel_has_qd("6"), -EINVAL);
	assert_int_equal(sp_nvref_kernel_has_qd(""), -EINVAL);
}

/* numa and rr measured, qd not: rr/numa scored, qd/rr not run */
static void score_ratios(void **state)
{
	struct sp_nvref_table m;
	struct sp_nvref_ratio r[SP_NVREF_NRATIOS];
	char text[4096];
	size_t n;

	(void)state;
	sp_nvref_init(&m);
	m.mibps[SP_NVREF_READ][SP_NVREF_NUMA] = 4.0;
	m.mibps[SP_NVREF_READ][SP_NVREF_RR] = 7.75;	/* 1.94: 2.10 published */
	m.mibps[SP_NVREF_WRITE][SP_NVREF_NUMA] = 4.0;
	m.mibps[SP_NVREF_WRITE][SP_NVREF_RR] = 10.0;	/* 2.5: 1.90 published */
	m.mibps[SP_NVREF_RW][SP_NVREF_NUMA] = 4.0;
	m.mibps[SP_NVREF_RW][SP_NVREF_RR] = 8.0;
	n = sp_nvref_score(&pub, &m, r, SP_NVREF_NRATIOS);
	assert_int_equal(n, 9);
	assert_int_equal(r[0].rw, SP_NVREF_READ);
	assert_int_equal(r[0].num, SP_NVREF_RR);
	assert_true(fabs(r[0].published - 2.1) < 1e-9);
	assert_true(fabs(r[0].measured - 1.9375) < 1e-9);
	assert_string_equal(r[0].verdict, "as published");
	assert_true(fabs(r[1].published - 230.0 / 105) < 1e-9);
	assert_string_equal(r[1].verdict, "not run");
	assert_string_equal(r[3].verdict, "differs");	/* write rr/numa */
	assert_true(fabs(r[3].rel - (2.5 / (125 / 65.9) - 1)) < 1e-9);
	assert_string_equal(r[6].verdict, "nothing published");
	assert_int_equal(sp_nvref_report(&pub, &m, "queue-depth: not in this "
					 "kernel (6.1.192)", text, sizeof(text)), 0);
	assert_non_null(strstr(text, "read rr/numa              1.94       "
				     "2.10  as published (-8 %)"));
	assert_non_null(strstr(text, "read qd/rr                   -       "
				     "2.19  not run"));
	assert_non_null(strstr(text, "not run: queue-depth: not in this kernel"));
	assert_non_null(strstr(text, "rw rr/numa                2.00          "
				     "-  nothing published"));
	/* adaptive/qd: published, neither measured nor measurable here */
	assert_non_null(strstr(text, "write adaptive/qd            -       1.16"));
	assert_int_equal(sp_nvref_report(&pub, &m, NULL, text, 64), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(published_table),
		cmocka_unit_test(bad_tables_refused),
		cmocka_unit_test(kernels_with_queue_depth),
		cmocka_unit_test(score_ratios),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
