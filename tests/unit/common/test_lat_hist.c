/* common/lat_hist: buckets, the file text both ways, differences and
 * quantiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lat_hist.h"

/* every value falls in the bucket that spans it, each bucket at most
 * 1/64 of its value wide, and the buckets tile the line with no gap */
static void buckets_span_their_values(void **state)
{
	static const int64_t values[] = { 0, 1, 63, 64, 65, 127, 128, 500000,
					  1000000, 8000000, 123456789,
					  (int64_t)1 << 40, ((int64_t)1 << 41) - 1 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		size_t b = sp_lat_bucket(values[i]);
		int64_t low = sp_lat_bucket_low(b), w = sp_lat_bucket_width(b);

		assert_true(b < SP_LAT_BUCKETS);
		assert_true(low <= values[i] && values[i] < low + w);
		assert_true(w == 1 || w * SP_LAT_SUB <= low);
	}
	for (i = 1; i < SP_LAT_BUCKETS; i++)
		assert_int_equal(sp_lat_bucket_low(i - 1) + sp_lat_bucket_width(i - 1),
				 sp_lat_bucket_low(i));
	assert_int_equal(sp_lat_bucket(-5), 0);
	assert_int_equal(sp_lat_bucket(INT64_MAX), SP_LAT_BUCKETS - 1);
}

/* a fixed delay d comes back as d within 1 %, at every quantile */
static void quantiles_of_a_fixed_delay_are_it(void **state)
{
	static struct sp_lat_hist h;
	int i;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(sp_lat_quantile(&h, 0.5), -1);
	for (i = 0; i < 1000; i++)
		sp_lat_add(&h, 500000);
	assert_true(llabs(sp_lat_quantile(&h, 0.5) - 500000) <= 5000);
	assert_int_equal(sp_lat_quantile(&h, 0.5), sp_lat_quantile(&h, 0.999));
	/* 10 of 1000 at 8 ms: p99 still 0.5 ms, p99.9 8 ms */
	memset(&h, 0, sizeof(h));
	for (i = 0; i < 990; i++)
		sp_lat_add(&h, 500000);
	for (i = 0; i < 10; i++)
		sp_lat_add(&h, 8000000);
	assert_true(llabs(sp_lat_quantile(&h, 0.99) - 500000) <= 5000);
	assert_true(llabs(sp_lat_quantile(&h, 0.999) - 8000000) <= 80000);
}

static void text_round_trip_and_diff(void **state)
{
	static struct sp_lat_hist a, b, back, d;
	char *text;
	size_t need;
	char err[160];

	(void)state;
	memset(&a, 0, sizeof(a));
	sp_lat_add(&a, 1000);
	sp_lat_add(&a, 1000);
	sp_lat_add(&a, 2000000);
	need = sp_lat_format(&a, NULL, 0);
	text = malloc(need + 1);
	assert_int_equal(sp_lat_format(&a, text, need + 1), need);
	assert_int_equal(sp_lat_parse(text, "hist", &back, err, sizeof(err)), 0);
	assert_memory_equal(&a, &back, sizeof(a));
	free(text);

	b = a;
	sp_lat_add(&b, 2000000);
	assert_int_equal(sp_lat_diff(&b, &a, &d), 0);
	assert_int_equal(d.count, 1);
	assert_int_equal(d.bucket[sp_lat_bucket(2000000)], 1);
	/* a LUN made again: its counts went down */
	assert_int_equal(sp_lat_diff(&a, &b, &d), -EINVAL);
}

/* what a hostile file can say, each refused with file, line and value */
static void parse_refuses_bad_text(void **state)
{
	static struct sp_lat_hist h;
	static const char *const bad[] = {
		"",
		"# something else\ncount=0\n",
		SP_LAT_MAGIC "\ncount=x\n",
		SP_LAT_MAGIC "\ncount=1\n99999 1\n",
		SP_LAT_MAGIC "\ncount=2\n5 1\n5 1\n",
		SP_LAT_MAGIC "\ncount=1\n5 0\n",
		SP_LAT_MAGIC "\ncount=2\n5 1\n",
		SP_LAT_MAGIC "\ncount=1\n5 -1\n",
		SP_LAT_MAGIC "\ncount=1\n5 1",
		SP_LAT_MAGIC "\ncount=0\n1 18446744073709551615\n2 1\n",
	};
	char err[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(sp_lat_parse(bad[i], "f/hist", &h, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "f/hist"));
	}
	assert_int_equal(sp_lat_parse(SP_LAT_MAGIC "\ncount=0\n", "f", &h, err,
				      sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets_span_their_values),
		cmocka_unit_test(quantiles_of_a_fixed_delay_are_it),
		cmocka_unit_test(text_round_trip_and_diff),
		cmocka_unit_test(parse_refuses_bad_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
