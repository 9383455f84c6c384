#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/log.h"
#include "harness/measure/diskstats.h"

#include "tests/unit/log_capture.h"

static int setup(void **state)
{
	(void)state;
	capture_start(SP_LOG_ERR);
	return 0;
}

static char *fixture(const char *rel)
{
	const char *src = getenv("SRCDIR");
	char path[1024];
	char *text = NULL;

	snprintf(path, sizeof(path), "%s/tests/fixtures/diskstats/%s",
		 src ? src : ".", rel);
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &text, NULL), 0);
	return text;
}

static void parses_each_kernel_layout(void **state)
{
	struct sp_diskstat d;

	(void)state;
	assert_int_equal(sp_diskstats_parse_line(
		"   8       0 sda 1 2 3 4 5 6 7 8 9 10 11", "t", 1, &d), 0);
	assert_int_equal(d.n_fields, SP_DS_FIELDS_OLD);
	assert_string_equal(d.name, "sda");
	assert_int_equal(d.v[SP_DS_QUEUE_TICKS], 11);
	assert_int_equal(sp_diskstats_parse_line(
		"8 16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", "t", 1, &d), 0);
	assert_int_equal(d.n_fields, SP_DS_FIELDS_DISCARD);
	assert_int_equal(d.minor, 16);
	assert_int_equal(d.v[SP_DS_DTICKS], 15);
	assert_int_equal(sp_diskstats_parse_line(
		" 253 0 dm-0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", "t", 1, &d), 0);
	assert_int_equal(d.n_fields, SP_DS_FIELDS_FLUSH);
	assert_int_equal(d.v[SP_DS_FTICKS], 17);
	assert_int_equal(d.v[SP_DS_WTICKS], 8);
	assert_int_equal(n_err, 0);
}

static void malformed_lines_name_line_and_value(void **state)
{
	struct sp_diskstat d;

	(void)state;
	assert_int_equal(sp_diskstats_parse_line(
		"8 0 sda 1 2 x3 4 5 6 7 8 9 10 11", "snap", 7, &d), -EINVAL);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "snap:7"));
	assert_non_null(strstr(last_err, "'x3'"));
	assert_non_null(strstr(last_err, "sda"));
	assert_int_equal(sp_diskstats_parse_line(
		"8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12", "snap", 3, &d), -EINVAL);
	assert_non_null(strstr(last_err, "15 fields"));
	assert_int_equal(sp_diskstats_parse_line(
		"8 0 sda 1 2 3 4 -5 6 7 8 9 10 11", "snap", 3, &d), -EINVAL);
	assert_non_null(strstr(last_err, "'-5'"));
	assert_int_equal(n_err, 3);
}

static void select_picks_in_requested_order(void **state)
{
	char *text = fixture("seed-randread-after.txt");
	const char *names[] = { "dm-0", "sdb" };
	struct sp_diskstat d[2];

	(void)state;
	assert_int_equal(sp_diskstats_select(text, "after", names, 2, d), 0);
	assert_string_equal(d[0].name, "dm-0");
	assert_string_equal(d[1].name, "sdb");
	assert_int_equal(d[1].v[SP_DS_READS], 43678);
	free(text);
}

static void select_missing_device_is_named(void **state)
{
	char *text = fixture("seed-randread-after.txt");
	const char *names[] = { "sda", "sdq" };
	struct sp_diskstat d[2];

	(void)state;
	assert_int_equal(sp_diskstats_select(text, "after", names, 2, d), -ENOENT);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "'sdq'"));
	free(text);
}

static void select_rejects_bad_line_anywhere(void **state)
{
	const char *text = "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
			   "8 16 sdb 1 2 3\n";
	const char *names[] = { "sda" };
	struct sp_diskstat d[1];

	(void)state;
	assert_int_equal(sp_diskstats_select(text, "x", names, 1, d), -EINVAL);
	assert_non_null(strstr(last_err, "x:2"));
}

static void real_host_dump_parses(void **state)
{
	char *text = fixture("host-6.18-20fields.txt");
	const char *names[] = { "vda" };
	struct sp_diskstat d[1];

	(void)state;
	assert_int_equal(sp_diskstats_select(text, "host", names, 1, d), 0);
	assert_int_equal(d[0].n_fields, SP_DS_FIELDS_FLUSH);
	assert_true(d[0].v[SP_DS_READS] > 0);
	free(text);
}

/* The seed's randread rows show tWrit 2939123/2940710/2942042 next to
 * zero writes: a cumulative counter pasted into a per-run table.  From
 * the same two snapshots every field must be a difference. */
static void seed_read_run_has_no_write_time(void **state)
{
	char *b = fixture("seed-randread-before.txt");
	char *a = fixture("seed-randread-after.txt");
	const char *names[] = { "sda", "sdb", "sdc" };
	struct sp_diskstat before[3], after[3], delta[3];
	struct sp_path_summary sum[3];
	int i;

	(void)state;
	assert_int_equal(sp_diskstats_select(b, "before", names, 3, before), 0);
	assert_int_equal(sp_diskstats_select(a, "after", names, 3, after), 0);
	/* the raw counters do carry the seed's numbers */
	assert_int_equal(after[0].v[SP_DS_WTICKS], 2939123);
	assert_int_equal(sp_diskstats_delta(before, after, 3, delta), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(delta[i].v[SP_DS_WRITES], 0);
		assert_int_equal(delta[i].v[SP_DS_WSECTORS], 0);
		assert_int_equal(delta[i].v[SP_DS_WTICKS], 0);
	}
	assert_int_equal(delta[0].v[SP_DS_READS], 42676);
	assert_int_equal(delta[0].v[SP_DS_RTICKS], 59032);
	assert_int_equal(delta[2].v[SP_DS_RSECTORS], 341336);
	/* in_flight is the gauge at the end, not 1 - 0 by accident */
	assert_int_equal(delta[0].v[SP_DS_IN_FLIGHT], 1);
	assert_int_equal(sp_diskstats_summarise(delta, 3, sum), 0);
	assert_float_equal(sum[0].rsvc_ms, 59032.0 / 42676.0, 1e-9);
	assert_true(sum[0].wsvc_ms < 0);	/* no writes: no mean */
	assert_float_equal(sum[0].svc_ms, 59032.0 / 42676.0, 1e-9);
	assert_float_equal(sum[1].share_ios, 42677.0 / 128030.0, 1e-9);
	assert_float_equal(sum[1].share_writes, 0, 0);
	free(a);
	free(b);
}

static void gauge_may_drop_counters_may_not(void **state)
{
	struct sp_diskstat b = { .name = "sda", .n_fields = 11 };
	struct sp_diskstat a = b, d;

	(void)state;
	b.v[SP_DS_IN_FLIGHT] = 9;
	a.v[SP_DS_IN_FLIGHT] = 2;
	b.v[SP_DS_READS] = 10;
	a.v[SP_DS_READS] = 15;
	assert_int_equal(sp_diskstats_delta(&b, &a, 1, &d), 0);
	assert_int_equal(d.v[SP_DS_IN_FLIGHT], 2);
	assert_int_equal(d.v[SP_DS_READS], 5);
	a.v[SP_DS_WTICKS] = 3;
	b.v[SP_DS_WTICKS] = 4;
	assert_int_equal(sp_diskstats_delta(&b, &a, 1, &d), -ERANGE);
	assert_non_null(strstr(last_err, "sda tWrit went backwards: 4 then 3"));
}

static void pairing_and_layout_must_match(void **state)
{
	struct sp_diskstat b = { .name = "sda", .n_fields = 11 };
	struct sp_diskstat a = { .name = "sdb", .n_fields = 11 }, d;

	(void)state;
	assert_int_equal(sp_diskstats_delta(&b, &a, 1, &d), -EINVAL);
	assert_non_null(strstr(last_err, "'sda' before and 'sdb' after"));
	strcpy(a.name, "sda");
	a.n_fields = 17;
	assert_int_equal(sp_diskstats_delta(&b, &a, 1, &d), -EINVAL);
	assert_non_null(strstr(last_err, "11 fields before and 17 after"));
}

static void old_kernel_dump_summarises(void **state)
{
	char *text = fixture("old-14fields.txt");
	const char *names[] = { "sda", "sdb" };
	struct sp_diskstat d[2];
	struct sp_path_summary s[2];

	(void)state;
	assert_int_equal(sp_diskstats_select(text, "old", names, 2, d), 0);
	assert_int_equal(sp_diskstats_summarise(d, 2, s), 0);
	assert_float_equal(s[0].share_writes, 1.0, 1e-12);
	assert_float_equal(s[0].wsvc_ms, 7.0 / 5.0, 1e-12);
	/* both directions together: ticks and I/Os summed, not the means */
	assert_float_equal(s[0].svc_ms, (double)(d[0].v[SP_DS_RTICKS] + 7) /
			   (double)(d[0].v[SP_DS_READS] + 5), 1e-12);
	assert_float_equal(s[0].share_ios + s[1].share_ios, 1.0, 1e-12);
	free(text);
}

static void field_names_round_trip(void **state)
{
	int f;

	(void)state;
	for (f = 0; f < SP_DS_NFIELDS; f++)
		assert_int_equal(sp_ds_field_by_name(sp_ds_field_name(f)), f);
	assert_int_equal(sp_ds_field_by_name("nope"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(parses_each_kernel_layout, setup),
		cmocka_unit_test_setup(malformed_lines_name_line_and_value, setup),
		cmocka_unit_test_setup(select_picks_in_requested_order, setup),
		cmocka_unit_test_setup(select_missing_device_is_named, setup),
		cmocka_unit_test_setup(select_rejects_bad_line_anywhere, setup),
		cmocka_unit_test_setup(real_host_dump_parses, setup),
		cmocka_unit_test_setup(seed_read_run_has_no_write_time, setup),
		cmocka_unit_test_setup(gauge_may_drop_counters_may_not, setup),
		cmocka_unit_test_setup(pairing_and_layout_must_match, setup),
		cmocka_unit_test_setup(old_kernel_dump_summarises, setup),
		cmocka_unit_test_setup(field_names_round_trip, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
