/* Unit tests of lab/hst_info.c's hst-5.8 half: `--hst stock|5.8[:SKEW]`
 * parsed, clock_skew_ns as /sys shows it, and the label a case's
 * ran-under line gives the build it ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dm/dm_table.h"
#include "lab/hst_info.h"

static void stock_and_none_are_stock(void **state)
{
	struct sp_hst_choice c = { 7, 7 };
	char err[128];

	(void)state;
	assert_int_equal(sp_hst_choice_parse("stock", &c, err, sizeof(err)), 0);
	assert_int_equal(c.build, SP_HST_BUILD_STOCK);
	assert_true(c.skew_ns == 0);
	c.build = 7;
	assert_int_equal(sp_hst_choice_parse(NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(c.build, SP_HST_BUILD_STOCK);
}

static void five_eight_takes_a_skew_with_its_unit(void **state)
{
	static const struct { const char *text; int64_t ns; } ok[] = {
		{ "5.8", 0 }, { "5.8:0", 0 }, { "5.8:200ms", 200000000 },
		{ "5.8:1.5ms", 1500000 }, { "5.8:20us", 20000 },
		{ "5.8:750ns", 750 }, { "5.8:-20ms", -20000000 },
		{ "5.8:3600s", 3600000000000LL }, { "5.8:-3600s", -3600000000000LL },
	};
	struct sp_hst_choice c;
	char err[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		memset(&c, 0, sizeof(c));
		if (sp_hst_choice_parse(ok[i].text, &c, err, sizeof(err)))
			fail_msg("'%s' refused: %s", ok[i].text, err);
		assert_int_equal(c.build, SP_HST_BUILD_5_8);
		if (c.skew_ns != ok[i].ns)
			fail_msg("'%s': skew %lld, want %lld", ok[i].text,
				 (long long)c.skew_ns, (long long)ok[i].ns);
	}
}

/* prebio takes no skew; its name goes both ways, and a case's label
 * says it (with a bucket_shift other than 24 after it) */
static void prebio_is_a_build_of_its_own(void **state)
{
	struct sp_hst_choice c = { 0, 7 };
	char err[128], label[64];

	(void)state;
	assert_int_equal(sp_hst_choice_parse("prebio", &c, err, sizeof(err)), 0);
	assert_int_equal(c.build, SP_HST_BUILD_PREBIO);
	assert_true(c.skew_ns == 0);
	assert_int_equal(sp_hst_choice_parse("prebio:1ms", &c, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "prebio"));
	assert_string_equal(sp_hst_build_name(SP_HST_BUILD_PREBIO), "prebio");
	assert_string_equal(sp_hst_build_name(SP_HST_BUILD_5_8), "5.8");
	assert_null(sp_hst_build_name(3));
	assert_null(sp_hst_build_name(-1));
	assert_int_equal(sp_hst_build_by_name("prebio"), SP_HST_BUILD_PREBIO);
	assert_int_equal(sp_hst_build_by_name("stock"), SP_HST_BUILD_STOCK);
	assert_int_equal(sp_hst_build_by_name("Prebio"), -EINVAL);
	assert_int_equal(sp_hst_build_by_name(NULL), -EINVAL);
	assert_int_equal(sp_hst_build_label("stock", SP_HST_BUILD_PREBIO, 0, 0,
					    label, sizeof(label)), 0);
	assert_string_equal(label, "prebio");
	assert_int_equal(sp_hst_build_label("bucket_shift 27", SP_HST_BUILD_PREBIO,
					    0, 0, label, sizeof(label)), 0);
	assert_string_equal(label, "prebio bucket_shift 27");
}

static void bad_builds_and_skews_are_one_message(void **state)
{
	static const char *const bad[] = {
		"", "5.9", "5.8x", "5.8:", "5.8:200", "5.8:abc", "5.8:200 ms",
		"5.8:3601s", "5.8:-3601s", "5.8:--1ms", "5.8:+1ms", "5.8:0x10ms",
		"5.8:1h", "5.8:inf", "Stock", "5", "5.8:1ms:2ms",
	};
	struct sp_hst_choice c = { 7, 7 };
	char err[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (sp_hst_choice_parse(bad[i], &c, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
		/* the message names the value */
		if (!strstr(err, "--hst '") || !strstr(err, bad[i]))
			fail_msg("'%s': message '%s'", bad[i], err);
	}
	assert_int_equal(c.build, 7);	/* untouched */
	assert_non_null(strstr(err, "5.8:1ms:2ms"));
}

static void sys_skew_text_reads_back(void **state)
{
	static const char *const bad[] = {
		"", "\n", "abc", "1ms", "3600000000001", "-3600000000001", "1 2",
	};
	int64_t v = 0;
	size_t i;

	(void)state;
	assert_int_equal(sp_hst_skew_parse("200000000\n", &v), 0);
	assert_true(v == 200000000);
	assert_int_equal(sp_hst_skew_parse("-20000000\n", &v), 0);
	assert_true(v == -20000000);
	assert_int_equal(sp_hst_skew_parse("0", &v), 0);
	assert_true(v == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sp_hst_skew_parse(bad[i], &v) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
	assert_int_equal(sp_hst_skew_parse(NULL, &v), -EINVAL);
}

static void label_says_build_and_skew(void **state)
{
	char label[48];

	(void)state;
	assert_int_equal(sp_hst_build_label("stock", SP_HST_BUILD_STOCK, 1,
					    200000000, label, sizeof(label)), 0);
	assert_string_equal(label, "stock");
	assert_int_equal(sp_hst_build_label("bucket_shift 27", SP_HST_BUILD_STOCK,
					    0, 0, label, sizeof(label)), 0);
	assert_string_equal(label, "bucket_shift 27");
	assert_int_equal(sp_hst_build_label("stock", SP_HST_BUILD_5_8, 1,
					    200000000, label, sizeof(label)), 0);
	assert_string_equal(label, "5.8 skew 200ms");
	assert_int_equal(sp_hst_build_label("stock", SP_HST_BUILD_5_8, 1, 0,
					    label, sizeof(label)), 0);
	assert_string_equal(label, "5.8 skew 0ns");
	assert_int_equal(sp_hst_build_label("stock", SP_HST_BUILD_5_8, 1,
					    -20000000, label, sizeof(label)), 0);
	assert_string_equal(label, "5.8 skew -20ms");
	assert_int_equal(sp_hst_build_label("bucket_shift 27", SP_HST_BUILD_5_8,
					    0, 0, label, sizeof(label)), 0);
	assert_string_equal(label, "5.8 bucket_shift 27 skew ?");
	assert_int_equal(sp_hst_build_label("stock", SP_HST_BUILD_5_8, 1,
					    200000000, label, 14), -ENOSPC);
	assert_int_equal(sp_hst_build_label("stock", SP_HST_BUILD_5_8, 1,
					    200000000, label, 15), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stock_and_none_are_stock),
		cmocka_unit_test(five_eight_takes_a_skew_with_its_unit),
		cmocka_unit_test(prebio_is_a_build_of_its_own),
		cmocka_unit_test(bad_builds_and_skews_are_one_message),
		cmocka_unit_test(sys_skew_text_reads_back),
		cmocka_unit_test(label_says_build_and_skew),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
