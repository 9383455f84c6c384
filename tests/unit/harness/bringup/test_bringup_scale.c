/* `up --scale K` against the mock system: every delay times k within
 * the 60 s bound, HST loaded with bucket_shift 24 + log2 k (reloaded
 * when unused, refused when in use), both journaled and shown by
 * status; the calibration's journal line read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_status.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

static void scale_multiplies_every_delay(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "";

	(void)state;
	opts(&o);
	o.scale = 8;
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
	assert_int_equal(st.scale, 8);
	assert_int_equal(st.paths[0].read_ns, 4000000);
	assert_int_equal(st.paths[2].write_ns, 8000000);
	/* the wire's share too */
	o.has_mech = 1;
	o.mech = SP_MECH_BOTH;
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
	assert_int_equal(st.paths[2].netem_ns + st.paths[2].read_ns, 8000000);
	assert_int_equal(st.paths[2].netem_ns, 4000000);
	o.has_mech = 0;

	o.scale = 3;
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "power of two"));
	/* 1ms x 2^16 = 65.5 s: over the bound one command may be held */
	o.scale = 1 << 16;
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "path c"));
	assert_non_null(strstr(err, "60s"));
	o.scale = 1 << 15;	/* 32.8 s: still allowed */
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err,
					 sizeof(err)), 0);
}

/* A serial topology: the delay is the service, the serial base joins
 * it, both times k; the store is told so in its bsopts. */
static void serial_paths_plan_service_and_bsopts(void **state)
{
	struct sp_up_opts o;
	struct sp_state st;
	struct sp_topo t = topo;
	char err[SP_BRINGUP_ERRLEN] = "", bs[256];

	(void)state;
	opts(&o);
	t.servers = 1;
	o.scale = 4;
	o.serial_base_ns = 100000;
	assert_int_equal(sp_bringup_plan(&t, &o, &st, err, sizeof(err)), 0);
	assert_int_equal(st.paths[2].servers, 1);
	/* path c: 2 x 500us -> (1ms + 100us) x 4 */
	assert_int_equal(st.paths[2].service_ns, 4400000);
	assert_int_equal(st.paths[2].read_ns, 0);
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], "/run/x", bs,
					   sizeof(bs)), 0);
	assert_non_null(strstr(bs, "service=4400us"));
	assert_null(strstr(bs, "servers="));	/* 1 is the store's default */
	/* a hostile serial base: the sum is bounded before anything runs,
	 * scaled or not */
	o.serial_base_ns = 60000000000LL;	/* + path c's 1ms */
	o.scale = 1;
	assert_int_equal(sp_bringup_plan(&t, &o, &st, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "serial base"));
	o.serial_base_ns = 1000000000LL;
	o.scale = 64;
	assert_int_equal(sp_bringup_plan(&t, &o, &st, err, sizeof(err)),
			 -ERANGE);
	o.serial_base_ns = 100000;
	o.scale = 4;
	/* overlapping paths: no serial stage, whatever the serial base */
	assert_int_equal(sp_bringup_plan(&topo, &o, &st, err, sizeof(err)), 0);
	assert_int_equal(st.paths[2].servers, 0);
	assert_int_equal(sp_bringup_bsopts(&st.paths[2], "/run/x", bs,
					   sizeof(bs)), 0);
	assert_null(strstr(bs, "service="));
}

static void up_scaled_loads_hst_with_the_shift_and_journals_it(void **state)
{
	struct sp_up_opts o;
	static struct sp_state st;
	static struct sp_status s;
	static char text[4096];
	char err[SP_BRINGUP_ERRLEN] = "";
	int ret;

	(void)state;
	M.hst_absent = 1;
	opts(&o);
	o.scale = 8;
	ret = sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err));
	if (ret)
		fail_msg("up: %s", err);
	assert_int_equal(ran("modprobe -q dm_historical_service_time "
			     "bucket_shift=27"), 1);
	assert_int_equal(ran("rmmod"), 0);
	assert_int_equal(ran("--bstype delay --bsopts read_delay=4ms"), 2);
	assert_int_equal(ran("--bstype delay --bsopts read_delay=8ms"), 1);
	assert_int_equal(sp_state_load(dir, &st, err, sizeof(err)), 0);
	assert_int_equal(st.scale, 8);
	assert_int_equal(st.has_hst, 1);
	assert_int_equal(st.hst_shift, 27);
	assert_int_equal(st.paths[2].read_ns, 8000000);
	sp_status_gather(&mock_ops, &st, &s);
	assert_int_equal(sp_status_render(&s, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "scale k=8"));
	assert_non_null(strstr(text, "historical-service-time: bucket_shift 27"));
}

static void hst_loaded_with_another_shift(void **state)
{
	char err[SP_BRINGUP_ERRLEN] = "";
	unsigned int shift = 0;
	int loaded = 0;

	(void)state;
	/* unused: reloaded with the shift k needs */
	snprintf(M.hst_shift, sizeof(M.hst_shift), "24\n");
	assert_int_equal(sp_bringup_hst_ensure(&mock_ops, 4, &loaded, &shift,
					       err, sizeof(err)), 0);
	assert_true(first("rmmod dm_historical_service_time") <
		    first("modprobe -q dm_historical_service_time bucket_shift=26"));
	assert_int_equal(loaded, 1);
	assert_int_equal(shift, 26);
	/* already right: nothing to do */
	M.ncmds = 0;
	assert_int_equal(sp_bringup_hst_ensure(&mock_ops, 4, &loaded, &shift,
					       err, sizeof(err)), 0);
	assert_int_equal(M.ncmds, 0);
	/* k = 1 after a scaled run: back to the stock 24, no parameter */
	assert_int_equal(sp_bringup_hst_ensure(&mock_ops, 1, &loaded, &shift,
					       err, sizeof(err)), 0);
	assert_int_equal(shift, 24);
	assert_int_equal(ran("modprobe -q dm_historical_service_time"), 1);
	assert_int_equal(ran("bucket_shift="), 0);
	/* in use by a map: refused, nothing unloaded */
	M.ncmds = 0;
	M.hst_refcnt = 1;
	assert_int_equal(sp_bringup_hst_ensure(&mock_ops, 8, &loaded, &shift,
					       err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "in use"));
	assert_non_null(strstr(err, "27"));
	assert_int_equal(ran("rmmod"), 0);
	/* a stock build cannot scale */
	M.hst_refcnt = 0;
	M.hst_shift[0] = '\0';
	assert_int_equal(sp_bringup_hst_ensure(&mock_ops, 8, &loaded, &shift,
					       err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "stock build"));
	/* not there and not loadable: fine unscaled, refused scaled */
	M.hst_absent = 1;
	M.fail_match = "modprobe -q dm_historical_service_time";
	assert_int_equal(sp_bringup_hst_ensure(&mock_ops, 1, &loaded, &shift,
					       err, sizeof(err)), 0);
	assert_int_equal(loaded, 0);
	M.failed = 0;
	assert_int_equal(sp_bringup_hst_ensure(&mock_ops, 2, &loaded, &shift,
					       err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "bucket_shift=25"));
}

static void busy_hst_refuses_up_before_any_change(void **state)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "", path[128];

	(void)state;
	snprintf(M.hst_shift, sizeof(M.hst_shift), "24\n");
	M.hst_refcnt = 2;
	opts(&o);
	o.scale = 2;
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EBUSY);
	assert_int_equal(ran("ip netns add"), 0);
	snprintf(path, sizeof(path), "%s/state", dir);
	assert_int_equal(access(path, F_OK), -1);
}

static void journal_scale_lines_and_old_journals(void **state)
{
	static struct sp_state st;
	char err[SP_STATE_ERRLEN] = "", buf[128];
	const char *head = "slowpath-state 1\ntopology t t.ini\n"
			   "path 1 label=a read=5\npath 2 label=b read=9\n";
	char text[512];

	(void)state;
	/* a journal from before: k = 1, no HST recorded */
	assert_int_equal(sp_state_parse(head, &st, err, sizeof(err)), 0);
	assert_int_equal(st.scale, 1);
	assert_int_equal(st.has_hst, 0);
	assert_int_equal(sp_state_fmt_scale(&st, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	snprintf(text, sizeof(text), "%sscale 16\nhst 28\n"
		 "calib 2 40000000 41000000\ncalib 2 40000000 40400000\n", head);
	assert_int_equal(sp_state_parse(text, &st, err, sizeof(err)), 0);
	assert_int_equal(st.scale, 16);
	assert_int_equal(st.hst_shift, 28);
	assert_int_equal(st.paths[0].has_calib, 0);
	assert_int_equal(st.paths[1].has_calib, 1);
	/* the later line wins */
	assert_int_equal(st.paths[1].calib_measured_ns, 40400000);
	assert_true(sp_state_calib_residual(&st.paths[1]) > 0.0099 &&
		    sp_state_calib_residual(&st.paths[1]) < 0.0101);
	assert_int_equal(sp_state_fmt_scale(&st, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "scale 16\nhst 28\n");
	assert_int_equal(sp_state_fmt_calib(&st.paths[1], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "calib 2 40000000 40400000\n");
	snprintf(text, sizeof(text), "%sscale 12\n", head);
	assert_int_equal(sp_state_parse(text, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "scale"));
	snprintf(text, sizeof(text), "%scalib 3 1 1\n", head);
	assert_int_equal(sp_state_parse(text, &st, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(scale_multiplies_every_delay),
		T(serial_paths_plan_service_and_bsopts),
		T(up_scaled_loads_hst_with_the_shift_and_journals_it),
		T(hst_loaded_with_another_shift),
		T(busy_hst_refuses_up_before_any_change),
		T(journal_scale_lines_and_old_journals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
