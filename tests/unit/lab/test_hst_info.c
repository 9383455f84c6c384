/* Unit tests of lab/hst_info.c: telling the loaded HST from /sys text,
 * and the bucket shift for a delay scale k. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lab/hst_info.h"

static void not_loaded_is_enoent(void **state)
{
	struct sp_hst_info info = { 99, 7, 99 };

	(void)state;
	assert_int_equal(sp_hst_info_parse(0, NULL, &info), -ENOENT);
	assert_int_equal(sp_hst_info_parse(0, "24\n", &info), -ENOENT);
	/* untouched on failure */
	assert_int_equal(info.bucket_shift, 99);
}

static void lab_build_at_default_is_stock(void **state)
{
	struct sp_hst_info info;
	char label[32];

	(void)state;
	assert_int_equal(sp_hst_info_parse(1, "24\n", &info), 0);
	assert_int_equal(info.bucket_shift, 24);
	assert_int_equal(info.has_param, 1);
	assert_int_equal(info.k, 1);
	assert_int_equal(sp_hst_info_label(&info, label, sizeof(label)), 0);
	assert_string_equal(label, "stock");
}

static void build_without_parameter_is_stock(void **state)
{
	struct sp_hst_info info;
	char label[32];

	(void)state;
	assert_int_equal(sp_hst_info_parse(1, NULL, &info), 0);
	assert_int_equal(info.bucket_shift, 24);
	assert_int_equal(info.has_param, 0);
	assert_int_equal(info.k, 1);
	assert_int_equal(sp_hst_info_label(&info, label, sizeof(label)), 0);
	assert_string_equal(label, "stock");
}

static void other_shift_names_it_and_its_k(void **state)
{
	struct sp_hst_info info;
	char label[32];

	(void)state;
	assert_int_equal(sp_hst_info_parse(1, "27\n", &info), 0);
	assert_int_equal(info.bucket_shift, 27);
	assert_int_equal(info.k, 8);
	assert_int_equal(sp_hst_info_label(&info, label, sizeof(label)), 0);
	assert_string_equal(label, "bucket_shift 27");

	assert_int_equal(sp_hst_info_parse(1, "63", &info), 0);
	assert_true(info.k == (uint64_t)1 << 39);
	/* below 24 is a scale under 1: loaded as asked, no lab k */
	assert_int_equal(sp_hst_info_parse(1, " 20\n", &info), 0);
	assert_int_equal(info.bucket_shift, 20);
	assert_int_equal(info.k, 0);
	assert_int_equal(sp_hst_info_label(&info, label, sizeof(label)), 0);
	assert_string_equal(label, "bucket_shift 20");
}

static void text_the_module_never_shows_is_einval(void **state)
{
	static const char *const bad[] = {
		"", "\n", "64\n", "4294967320", "-1", "2 4", "24x", "0x18", "abc",
	};
	struct sp_hst_info info;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (sp_hst_info_parse(1, bad[i], &info) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
	}
}

static void label_too_small_is_enospc(void **state)
{
	struct sp_hst_info info = { 27, 1, 8 };
	char label[16];

	(void)state;
	assert_int_equal(sp_hst_info_label(&info, label, 15), -ENOSPC);
	assert_int_equal(sp_hst_info_label(&info, label, 16), 0);
	assert_string_equal(label, "bucket_shift 27");
	info.bucket_shift = 24;
	assert_int_equal(sp_hst_info_label(&info, label, 5), -ENOSPC);
}

static void shift_for_k_adds_log2(void **state)
{
	unsigned int shift = 0;

	(void)state;
	assert_int_equal(sp_hst_bucket_shift_for_k(1, &shift), 0);
	assert_int_equal(shift, 24);
	assert_int_equal(sp_hst_bucket_shift_for_k(2, &shift), 0);
	assert_int_equal(shift, 25);
	assert_int_equal(sp_hst_bucket_shift_for_k(8, &shift), 0);
	assert_int_equal(shift, 27);
	assert_int_equal(sp_hst_bucket_shift_for_k(1024, &shift), 0);
	assert_int_equal(shift, 34);
	assert_int_equal(sp_hst_bucket_shift_for_k((uint64_t)1 << 39, &shift), 0);
	assert_int_equal(shift, 63);
}

static void shift_for_k_refuses_other_k(void **state)
{
	unsigned int shift = 77;

	(void)state;
	assert_int_equal(sp_hst_bucket_shift_for_k(0, &shift), -EINVAL);
	assert_int_equal(sp_hst_bucket_shift_for_k(3, &shift), -EINVAL);
	assert_int_equal(sp_hst_bucket_shift_for_k(12, &shift), -EINVAL);
	assert_int_equal(sp_hst_bucket_shift_for_k(UINT64_MAX, &shift), -EINVAL);
	assert_int_equal(sp_hst_bucket_shift_for_k((uint64_t)1 << 40, &shift), -ERANGE);
	assert_int_equal(sp_hst_bucket_shift_for_k((uint64_t)1 << 63, &shift), -ERANGE);
	assert_int_equal(shift, 77);
}

/* What a recorder does: k -> shift -> the text the module shows -> k. */
static void shift_for_k_round_trips_through_sys_text(void **state)
{
	struct sp_hst_info info;
	unsigned int shift;
	char text[8];
	uint64_t k;

	(void)state;
	for (k = 1; k <= (uint64_t)1 << 39; k <<= 1) {
		assert_int_equal(sp_hst_bucket_shift_for_k(k, &shift), 0);
		snprintf(text, sizeof(text), "%u\n", shift);
		assert_int_equal(sp_hst_info_parse(1, text, &info), 0);
		assert_true(info.k == k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_loaded_is_enoent),
		cmocka_unit_test(lab_build_at_default_is_stock),
		cmocka_unit_test(build_without_parameter_is_stock),
		cmocka_unit_test(other_shift_names_it_and_its_k),
		cmocka_unit_test(text_the_module_never_shows_is_einval),
		cmocka_unit_test(label_too_small_is_enospc),
		cmocka_unit_test(shift_for_k_adds_log2),
		cmocka_unit_test(shift_for_k_refuses_other_k),
		cmocka_unit_test(shift_for_k_round_trips_through_sys_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
