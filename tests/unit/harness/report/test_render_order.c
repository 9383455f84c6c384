/* The order `slowpath report` lists a folder's cases in: a run's, not
 * the file names' (qd32 before qd8, hst before st). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "harness/report/render_order.h"

static void set_case(struct sp_case_result *c, const char *topo,
		     const char *sel, int iodepth, const char *kernel)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->topology, sizeof(c->topology), "%s", topo);
	snprintf(c->selector, sizeof(c->selector), "%s", sel);
	snprintf(c->rw, sizeof(c->rw), "randread");
	snprintf(c->env.kernel, sizeof(c->env.kernel), "%s", kernel);
	c->bs = 4096;
	c->iodepth = iodepth;
	c->numjobs = 1;
}

static void as_a_run_measured_them(void **state)
{
	static struct sp_case_result c[6];	/* 80 kB each */
	char got[512] = "";
	size_t i;

	(void)state;
	/* as scandir by name hands them in */
	set_case(&c[0], "u10", "historical-service-time", 32, "");
	set_case(&c[1], "u10", "service-time", 32, "");
	set_case(&c[2], "u10", "historical-service-time", 8, "");
	set_case(&c[3], "u10", "queue-length", 8, "");
	set_case(&c[4], "u10", "service-time", 8, "");
	set_case(&c[5], "equal3", "service-time", 1, "");
	assert_int_equal(sp_render_order_cases(c, 6, "st", "hst"), 0);
	for (i = 0; i < 6; i++) {
		size_t len = strlen(got);

		snprintf(got + len, sizeof(got) - len, "%.16s/%.8s/%d ",
			 c[i].topology, sp_selector_short(c[i].selector),
			 c[i].iodepth);
	}
	assert_string_equal(got, "equal3/st/1 u10/st/8 u10/hst/8 u10/ql/8 "
			    "u10/st/32 u10/hst/32 ");
}

static void base_and_other_come_first(void **state)
{
	static struct sp_case_result c[3];

	(void)state;
	set_case(&c[0], "t", "service-time", 1, "");
	set_case(&c[1], "t", "queue-length", 1, "");
	set_case(&c[2], "t", "round-robin", 1, "");
	assert_int_equal(sp_render_order_cases(c, 3, "rr", "queue-length"), 0);
	assert_string_equal(c[0].selector, "round-robin");
	assert_string_equal(c[1].selector, "queue-length");
	assert_string_equal(c[2].selector, "service-time");
}

/* run --kernels: the same point on two kernels keeps the order read */
static void equal_points_keep_their_order(void **state)
{
	static struct sp_case_result c[4];

	(void)state;
	set_case(&c[0], "t", "service-time", 1, "6.9");
	set_case(&c[1], "t", "service-time", 1, "6.1");
	set_case(&c[2], "t", "service-time", 1, "6.5");
	set_case(&c[3], "t", "service-time", 1, "5.4");
	assert_int_equal(sp_render_order_cases(c, 4, "st", "hst"), 0);
	assert_string_equal(c[0].env.kernel, "6.9");
	assert_string_equal(c[1].env.kernel, "6.1");
	assert_string_equal(c[2].env.kernel, "6.5");
	assert_string_equal(c[3].env.kernel, "5.4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(as_a_run_measured_them),
		cmocka_unit_test(base_and_other_come_first),
		cmocka_unit_test(equal_points_keep_their_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
