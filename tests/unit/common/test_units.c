#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "common/units.h"

static void durations_in_every_unit(void **state)
{
	int64_t ns;

	(void)state;
	assert_int_equal(sp_parse_duration_ns("750ns", &ns), 0);
	assert_int_equal(ns, 750);
	assert_int_equal(sp_parse_duration_ns("500us", &ns), 0);
	assert_int_equal(ns, 500000);
	assert_int_equal(sp_parse_duration_ns("1.5ms", &ns), 0);
	assert_int_equal(ns, 1500000);
	assert_int_equal(sp_parse_duration_ns("2s", &ns), 0);
	assert_int_equal(ns, 2000000000LL);
	assert_int_equal(sp_parse_duration_ns("0", &ns), 0);
	assert_int_equal(ns, 0);
}

static void bad_durations_are_refused(void **state)
{
	static const char *const bad[] = {
		"", "ms", "5", "-1ms", "5 ms", "5m", "5msec", "1e400s", "nan",
		"0x10us", "5ms5",
	};
	int64_t ns = 42;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(sp_parse_duration_ns(bad[i], &ns) < 0);
		assert_int_equal(ns, 42);
	}
}

static void sizes_use_binary_multiples(void **state)
{
	uint64_t bytes;

	(void)state;
	assert_int_equal(sp_parse_size_bytes("4k", &bytes), 0);
	assert_int_equal(bytes, 4096);
	assert_int_equal(sp_parse_size_bytes("500M", &bytes), 0);
	assert_int_equal(bytes, 500ULL << 20);
	assert_int_equal(sp_parse_size_bytes("2GiB", &bytes), 0);
	assert_int_equal(bytes, 2ULL << 30);
	assert_int_equal(sp_parse_size_bytes("512", &bytes), 0);
	assert_int_equal(bytes, 512);
	assert_true(sp_parse_size_bytes("4x", &bytes) < 0);
	assert_true(sp_parse_size_bytes("-4k", &bytes) < 0);
	/* strtoull would skip the blank and wrap the sign to 2^64-1 */
	assert_true(sp_parse_size_bytes(" -1", &bytes) < 0);
	assert_true(sp_parse_size_bytes("+4k", &bytes) < 0);
	assert_true(sp_parse_size_bytes(" 4k", &bytes) < 0);
	assert_true(sp_parse_size_bytes("k", &bytes) < 0);
	assert_int_equal(sp_parse_size_bytes("99999999999999T", &bytes), -ERANGE);
}

static void durations_format_exactly(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(sp_format_duration(500000, buf, sizeof(buf)), "500us");
	assert_string_equal(sp_format_duration(1500000, buf, sizeof(buf)), "1500us");
	assert_string_equal(sp_format_duration(20000000, buf, sizeof(buf)), "20ms");
	assert_string_equal(sp_format_duration(3000000000LL, buf, sizeof(buf)), "3s");
	assert_string_equal(sp_format_duration(7, buf, sizeof(buf)), "7ns");
	assert_string_equal(sp_format_duration(0, buf, sizeof(buf)), "0ns");
}

static void integers_check_their_range(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(sp_parse_int64("64", 1, 256, &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(sp_parse_int64("0", 1, 256, &v), -ERANGE);
	assert_int_equal(sp_parse_int64("257", 1, 256, &v), -ERANGE);
	assert_int_equal(sp_parse_int64("12a", 1, 256, &v), -EINVAL);
	assert_int_equal(sp_parse_int64("", 1, 256, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations_in_every_unit),
		cmocka_unit_test(bad_durations_are_refused),
		cmocka_unit_test(sizes_use_binary_multiples),
		cmocka_unit_test(durations_format_exactly),
		cmocka_unit_test(integers_check_their_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
