#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "common/opttab.h"

struct sample_opts {
	int64_t read_delay_ns, write_delay_ns;
	int64_t depth;
	double fraction;
	uint64_t block_bytes;
	const char *label;
	int verbose;
	int dist;
};

static const char *const dist_names[] = { "uniform", "normal", "pareto", NULL };

static const struct sp_opt sample_table[] = {
	{ .name = "delay", .type = SP_OPT_DURATION,
	  .offset = offsetof(struct sample_opts, read_delay_ns),
	  .also_offset = offsetof(struct sample_opts, write_delay_ns),
	  .help = "both directions" },
	{ .name = "read_delay", .type = SP_OPT_DELAY, .def = "1ms",
	  .offset = offsetof(struct sample_opts, read_delay_ns) },
	{ .name = "write_delay", .type = SP_OPT_DURATION, .def = "2ms",
	  .offset = offsetof(struct sample_opts, write_delay_ns) },
	{ .name = "qd", .type = SP_OPT_INT, .def = "1", .min = 1, .max = 256,
	  .offset = offsetof(struct sample_opts, depth), .help = "queue depth" },
	{ .name = "frac", .type = SP_OPT_DOUBLE, .min = 0, .max = 1,
	  .offset = offsetof(struct sample_opts, fraction) },
	{ .name = "bs", .type = SP_OPT_SIZE, .def = "4k",
	  .offset = offsetof(struct sample_opts, block_bytes) },
	{ .name = "label", .type = SP_OPT_STR,
	  .offset = offsetof(struct sample_opts, label) },
	{ .name = "verbose", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct sample_opts, verbose) },
	{ .name = "dist", .type = SP_OPT_ENUM, .def = "uniform", .choices = dist_names,
	  .offset = offsetof(struct sample_opts, dist) },
	SP_OPT_END,
};

static void defaults_fill_every_field(void **state)
{
	struct sample_opts o = { 0 };

	(void)state;
	assert_int_equal(sp_opt_set_defaults(sample_table, &o), 0);
	assert_int_equal(o.read_delay_ns, 1000000);
	assert_int_equal(o.write_delay_ns, 2000000);
	assert_int_equal(o.depth, 1);
	assert_int_equal(o.block_bytes, 4096);
	assert_int_equal(o.dist, 0);
}

static void key_values_and_shared_fields(void **state)
{
	struct sample_opts o = { 0 };
	char text[] = "delay=5ms;;qd=64;dist=pareto;label=x;verbose";
	char err[SP_OPT_ERRLEN];

	(void)state;
	sp_opt_set_defaults(sample_table, &o);
	assert_int_equal(sp_opt_parse_kv(sample_table, &o, text, ';', err, sizeof(err)), 0);
	assert_int_equal(o.read_delay_ns, 5000000);
	assert_int_equal(o.write_delay_ns, 5000000);
	assert_int_equal(o.depth, 64);
	assert_int_equal(o.dist, 2);
	assert_string_equal(o.label, "x");
	assert_int_equal(o.verbose, 1);
}

static void each_bad_form_names_option_and_value(void **state)
{
	static const struct {
		const char *text;
		int ret;
		const char *must_mention;
	} bad[] = {
		{ "qd=0", -ERANGE, "'0' for option 'qd'" },
		{ "qd=many", -EINVAL, "'many' for option 'qd'" },
		{ "delay=5", -EINVAL, "'5' for option 'delay'" },
		/* about 146 years passed every parser before the bound */
		{ "read_delay=4611686018s", -ERANGE, "at most 60s" },
		{ "read_delay=60001ms", -ERANGE, "'60001ms' for option 'read_delay'" },
		{ "bs=4q", -EINVAL, "'4q' for option 'bs'" },
		{ "frac=2", -ERANGE, "'2' for option 'frac'" },
		{ "dist=gauss", -EINVAL, "uniform|normal|pareto" },
		{ "verbose=maybe", -EINVAL, "'maybe' for option 'verbose'" },
		{ "colour=red", -ENOENT, "unknown option 'colour'" },
		{ "qd", -EINVAL, "option 'qd': needs a value" },
	};
	char err[SP_OPT_ERRLEN], text[64];
	struct sample_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&o, 0, sizeof(o));
		strcpy(text, bad[i].text);
		err[0] = '\0';
		assert_int_equal(sp_opt_parse_kv(sample_table, &o, text, ';', err, sizeof(err)),
				 bad[i].ret);
		assert_non_null(strstr(err, bad[i].must_mention));
	}
}

static void argv_forms_and_positionals(void **state)
{
	char *argv[] = { "probe", "--qd", "32", "--bs=8k", "--verbose",
			 "iscsi://x", "--qd", "2" };
	struct sample_opts o = { 0 };
	char err[SP_OPT_ERRLEN];
	int next = -1;

	(void)state;
	sp_opt_set_defaults(sample_table, &o);
	assert_int_equal(sp_opt_parse_argv(sample_table, &o, 8, argv, 1, &next,
					   err, sizeof(err)), 0);
	assert_int_equal(next, 5);
	assert_int_equal(o.depth, 32);
	assert_int_equal(o.block_bytes, 8192);
	assert_int_equal(o.verbose, 1);
}

static void argv_errors(void **state)
{
	char *missing[] = { "probe", "--qd" };
	char *unknown[] = { "probe", "--colour=red" };
	struct sample_opts o = { 0 };
	char err[SP_OPT_ERRLEN];
	int next;

	(void)state;
	assert_int_equal(sp_opt_parse_argv(sample_table, &o, 2, missing, 1, &next,
					   err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'--qd' needs a value"));
	assert_int_equal(sp_opt_parse_argv(sample_table, &o, 2, unknown, 1, &next,
					   err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'--colour'"));
}

static void help_lists_every_option(void **state)
{
	char buf[2048];

	(void)state;
	sp_opt_help(sample_table, buf, sizeof(buf));
	assert_non_null(strstr(buf, "qd"));
	assert_non_null(strstr(buf, "queue depth (default 1)"));
	assert_non_null(strstr(buf, "dist"));
	/* as a key=value list takes them, and as a command line does */
	assert_non_null(strstr(buf, "  qd=VALUE "));
	assert_non_null(strstr(buf, "  verbose "));
	sp_opt_help_argv(sample_table, buf, sizeof(buf));
	assert_non_null(strstr(buf, "  --qd VALUE "));
	assert_non_null(strstr(buf, "  --verbose "));
	assert_null(strstr(buf, "  qd"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_fill_every_field),
		cmocka_unit_test(key_values_and_shared_fields),
		cmocka_unit_test(each_bad_form_names_option_and_value),
		cmocka_unit_test(argv_forms_and_positionals),
		cmocka_unit_test(argv_errors),
		cmocka_unit_test(help_lists_every_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
