#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "harness/probe/probe.h"
#include "harness/probe/probe_report.h"

static void sample(struct probe_opts *o, struct probe_result *r)
{
	assert_int_equal(probe_opts_init(o), 0);
	o->url = "iscsi://127.0.0.1:3261/iqn.x:y/1";
	o->qd = 16;
	memset(r, 0, sizeof(*r));
	r->block_size = 512;
	r->capacity_bytes = 1 << 30;
	r->ios = 2000;
	r->bytes = 2000 * 4096;
	r->elapsed_ns = 1000000000;
	r->iops = 2000;
	r->lat = (struct probe_lat_summary){ 2000, 101000, 512000, 900000,
					     990000, 999000, 1234567, 520000 };
	r->checksum = 0xfedcba9876543210ULL;
}

static void text_has_every_figure(void **state)
{
	struct probe_opts o;
	struct probe_result r;
	char buf[1024];
	size_t need;

	(void)state;
	sample(&o, &r);
	need = probe_report_text(&o, &r, buf, sizeof(buf));
	assert_true(need < sizeof(buf));
	assert_int_equal(need, strlen(buf));
	assert_non_null(strstr(buf, "randread bs=4096 qd=16"));
	assert_non_null(strstr(buf, "2000 I/Os in 1.000 s: 2000 IOPS"));
	assert_non_null(strstr(buf, "p50 512.0 p90 900.0 p99 990.0 p99.9 999.0 max 1234.6"));
	assert_non_null(strstr(buf, "checksum 0xfedcba9876543210"));
	/* a short buffer is cut, never overrun, and the need is reported */
	assert_int_equal(probe_report_text(&o, &r, buf, 10), need);
	assert_int_equal(strlen(buf), 9);
}

static void json_has_the_same_fields(void **state)
{
	struct probe_opts o;
	struct probe_result r;
	struct json_object *j, *lat, *v;

	(void)state;
	sample(&o, &r);
	o.verify = 1;
	r.verify_mismatches = 3;
	j = probe_report_json(&o, &r);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "lat_ns", &lat));
	assert_true(json_object_object_get_ex(lat, "p99.9", &v));
	assert_int_equal(json_object_get_int64(v), 999000);
	assert_true(json_object_object_get_ex(lat, "p50", &v));
	assert_int_equal(json_object_get_int64(v), 512000);
	assert_true(json_object_object_get_ex(j, "iops", &v));
	assert_float_equal(json_object_get_double(v), 2000, 1e-9);
	assert_true(json_object_object_get_ex(j, "checksum", &v));
	assert_string_equal(json_object_get_string(v), "0xfedcba9876543210");
	assert_true(json_object_object_get_ex(j, "verify_mismatches", &v));
	assert_int_equal(json_object_get_int64(v), 3);
	assert_true(json_object_object_get_ex(j, "rw", &v));
	assert_string_equal(json_object_get_string(v), "randread");
	json_object_put(j);
}

static void options_from_a_kv_string(void **state)
{
	struct probe_opts o;
	char text[] = "qd=32;rw=write;bs=64k;size=1M;pattern=9";
	char err[SP_OPT_ERRLEN];

	(void)state;
	assert_int_equal(probe_opts_init(&o), 0);
	assert_int_equal(o.qd, 1);
	assert_int_equal(o.bs, 4096);
	assert_int_equal(o.timeout_s, 10);
	assert_int_equal(sp_opt_parse_kv(probe_opt_table, &o, text, ';', err,
					 sizeof(err)), 0);
	assert_int_equal(o.qd, 32);
	assert_int_equal(o.rw, PROBE_WRITE);
	assert_int_equal(o.bs, 65536);
	assert_int_equal(o.size, 1 << 20);
	assert_int_equal(probe_opts_validate(&o, err, sizeof(err)), 0);
	o.verify = 1;	/* verify is for reads */
	assert_int_equal(probe_opts_validate(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "verify"));
	o.verify = 0;
	o.bs = 1000;
	assert_int_equal(probe_opts_validate(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'1000'"));
	o.bs = 4096;
	o.size = 512;
	assert_int_equal(probe_opts_validate(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "size"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_has_every_figure),
		cmocka_unit_test(json_has_the_same_fields),
		cmocka_unit_test(options_from_a_kv_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
