/* harness/repro/ref_topology.c: the published setups come from the
 * topology files, and their slow paths from sp_slow_marks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/repro/reference.h"
#include "topologies/topo.h"

static void parse_topo(const char *text, const char *name,
		       struct sp_topo *t)
{
	char err[SP_TOPO_ERRLEN];

	if (sp_topo_parse(text, "t.ini", name, t, err, sizeof(err)))
		fail_msg("%s", err);
}

/* The files hold the multipliers the seed published: 1 1 1 4 and the
 * U of u10. */
static void files_give_the_published_multipliers(void **state)
{
	static const double skew4[] = { 1, 1, 1, 4 };
	static const double u10[] = { 1, 1, 1, 4, 8, 8, 16, 16, 1, 1 };
	static struct sp_ref_topologies set;
	const char *src = getenv("SRCDIR");
	struct sp_reference ref = { .topologies = &set };
	const struct sp_ref_topology *t;
	char dir[4096], err[512];
	size_t i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/topologies", src ? src : ".");
	assert_int_equal(sp_ref_topologies_load(dir, &set, err, sizeof(err)), 0);
	t = sp_ref_topology(&ref, "equal3");
	assert_non_null(t);
	assert_int_equal(t->n_paths, 3);
	for (i = 0; i < 3; i++)
		assert_float_equal(t->multiplier[i], 1, 0);
	t = sp_ref_topology(&ref, "skew4");
	assert_int_equal(t->n_paths, 4);
	for (i = 0; i < 4; i++)
		assert_float_equal(t->multiplier[i], skew4[i], 0);
	/* unit = 500us */
	assert_float_equal(t->delay_ns[3], 2e6, 0);
	t = sp_ref_topology(&ref, "u10");
	assert_int_equal(t->n_paths, 10);
	for (i = 0; i < 10; i++)
		assert_float_equal(t->multiplier[i], u10[i], 0);
	assert_string_equal(t->name, "u10");
}

static void a_missing_directory_is_an_error(void **state)
{
	struct sp_ref_topologies set;
	char err[512] = "";

	(void)state;
	assert_int_equal(sp_ref_topologies_load("/nonexistent-dir", &set, err,
						sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "equal3"));
}

/* Delays given as delay= rather than multipliers count the same way,
 * and a fastest path with multiplier 2 does not make every path slow. */
static void set_from_a_parsed_file(void **state)
{
	static struct sp_topo t;
	static struct sp_ref_topologies set;
	struct sp_reference ref = { .topologies = &set };
	char err[512];
	int m[SP_REF_MAX_PATHS];

	(void)state;
	memset(&set, 0, sizeof(set));
	parse_topo("[topology]\nunit = 1ms\n"
		   "[path a]\nmultiplier = 2\n[path b]\ndelay = 2ms\n"
		   "[path c]\nmultiplier = 2\n[path d]\nread_delay = 5ms\n"
		   "write_delay = 1ms\n", "skew4", &t);
	assert_int_equal(sp_ref_topology_set(&set, &t, err, sizeof(err)), 0);
	assert_null(sp_ref_topology(&ref, "u10"));	/* not set */
	assert_float_equal(sp_ref_topology(&ref, "skew4")->multiplier[3], 5, 0);
	assert_int_equal(sp_ref_slow_marks(&ref, "skew4", 4, m), 1);
	assert_int_equal(m[3], 1);
	assert_int_equal(m[0] + m[1] + m[2], 0);
	assert_int_equal(sp_ref_slow_marks(&ref, "skew4", 3, m), -EINVAL);
	assert_int_equal(sp_ref_slow_marks(&ref, "u10", 4, m), -EINVAL);
}

static void only_published_names(void **state)
{
	static struct sp_topo t;
	struct sp_ref_topologies set;
	char err[512];

	(void)state;
	memset(&set, 0, sizeof(set));
	parse_topo("[topology]\n[path a]\nmultiplier = 1\n", "ring5", &t);
	assert_int_equal(sp_ref_topology_set(&set, &t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "ring5"));
}

/* The data file's "ST" and "HST" are dm/selector.c's short names. */
static void selectors_map_to_the_selector_table(void **state)
{
	(void)state;
	assert_int_equal(sp_ref_selector_kind(SP_REF_ST), SP_SEL_ST);
	assert_int_equal(sp_ref_selector_kind(SP_REF_HST), SP_SEL_HST);
	assert_string_equal(sp_ref_selector_name(SP_REF_ST), "ST");
	assert_string_equal(sp_ref_selector_name(SP_REF_HST), "HST");
	assert_string_equal(sp_ref_selector_name(SP_REF_N_SELECTORS), "?");
	assert_int_equal(sp_ref_selector_parse("HST"), SP_REF_HST);
	assert_int_equal(sp_ref_selector_parse("ST"), SP_REF_ST);
	assert_int_equal(sp_ref_selector_parse("st"), -EINVAL);
	assert_int_equal(sp_ref_selector_parse("QL"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(files_give_the_published_multipliers),
		cmocka_unit_test(a_missing_directory_is_an_error),
		cmocka_unit_test(set_from_a_parsed_file),
		cmocka_unit_test(only_published_names),
		cmocka_unit_test(selectors_map_to_the_selector_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
