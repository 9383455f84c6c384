#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness/probe/probe_data.h"

static void pattern_round_trip(void **state)
{
	unsigned char buf[4096];

	(void)state;
	probe_pattern_fill(buf, sizeof(buf), 7, 8192);
	assert_true(probe_pattern_check(buf, sizeof(buf), 7, 8192));
	/* another seed, another address, one flipped bit: all refused */
	assert_false(probe_pattern_check(buf, sizeof(buf), 8, 8192));
	assert_false(probe_pattern_check(buf, sizeof(buf), 7, 4096));
	buf[4000] ^= 1;
	assert_false(probe_pattern_check(buf, sizeof(buf), 7, 8192));
}

/* Two writers of the same (seed, address) produce the same bytes, and a
 * 2-block I/O equals its two 1-block halves: what lets one probe verify
 * what another wrote with another block size. */
static void pattern_depends_only_on_seed_and_address(void **state)
{
	unsigned char big[1024], a[512], b[512];

	(void)state;
	probe_pattern_fill(big, sizeof(big), 42, 1 << 20);
	probe_pattern_fill(a, sizeof(a), 42, 1 << 20);
	probe_pattern_fill(b, sizeof(b), 42, (1 << 20) + 512);
	assert_memory_equal(big, a, 512);
	assert_memory_equal(big + 512, b, 512);
	assert_memory_not_equal(a, b, 512);
}

static void checksum_sees_content_and_place(void **state)
{
	unsigned char a[512], b[512];
	uint64_t in_order, swapped, reordered;

	(void)state;
	probe_pattern_fill(a, sizeof(a), 1, 0);
	probe_pattern_fill(b, sizeof(b), 1, 512);
	in_order = probe_io_checksum(a, 512, 0) + probe_io_checksum(b, 512, 512);
	reordered = probe_io_checksum(b, 512, 512) + probe_io_checksum(a, 512, 0);
	swapped = probe_io_checksum(b, 512, 0) + probe_io_checksum(a, 512, 512);
	assert_int_equal(in_order, reordered);
	assert_int_not_equal(in_order, swapped);
	a[7] ^= 0x80;
	assert_int_not_equal(probe_io_checksum(a, 512, 0) +
			     probe_io_checksum(b, 512, 512), in_order);
}

static void sequential_plan_wraps(void **state)
{
	struct probe_plan p;

	(void)state;
	probe_plan_init(&p, 4096, 3 * 4096, 4096, 0, 1);
	assert_int_equal(probe_plan_next(&p), 4096);
	assert_int_equal(probe_plan_next(&p), 8192);
	assert_int_equal(probe_plan_next(&p), 12288);
	assert_int_equal(probe_plan_next(&p), 4096);
}

static void random_plan_stays_aligned_inside(void **state)
{
	struct probe_plan p, q;
	int seen[16] = { 0 }, i, distinct = 0;
	uint64_t addr;

	(void)state;
	probe_plan_init(&p, 1 << 20, 16 * 8192, 8192, 1, 99);
	probe_plan_init(&q, 1 << 20, 16 * 8192, 8192, 1, 99);
	for (i = 0; i < 1000; i++) {
		addr = probe_plan_next(&p);
		assert_int_equal(addr, probe_plan_next(&q));	/* seeded */
		assert_true(addr >= (1 << 20));
		assert_true(addr < (1 << 20) + 16 * 8192);
		assert_int_equal(addr % 8192, 0);
		seen[(addr - (1 << 20)) / 8192]++;
	}
	for (i = 0; i < 16; i++)
		distinct += seen[i] > 0;
	assert_int_equal(distinct, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pattern_round_trip),
		cmocka_unit_test(pattern_depends_only_on_seed_and_address),
		cmocka_unit_test(checksum_sees_content_and_place),
		cmocka_unit_test(sequential_plan_wraps),
		cmocka_unit_test(random_plan_stays_aligned_inside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
