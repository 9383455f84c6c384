#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "dm/dm_table.h"

static void three_sd(struct sp_dm_map *m, enum sp_selector kind)
{
	sp_dm_map_init(m, kind);
	m->sectors = 4194304;	/* 2G, as in the seed */
	m->npaths = 3;
	m->paths[0].major = 8; m->paths[0].minor = 0;
	m->paths[1].major = 8; m->paths[1].minor = 16;
	m->paths[2].major = 8; m->paths[2].minor = 32;
}

static void build_ok(const struct sp_dm_map *m, const char *want)
{
	char buf[512], err[SP_DM_ERRLEN] = "";
	int ret = sp_dm_table_build(m, buf, sizeof(buf), err, sizeof(err));

	if (ret)
		fail_msg("build failed: %s", err);
	assert_string_equal(buf, want);
}

static void build_bad(const struct sp_dm_map *m, const char *needle)
{
	char buf[512], err[SP_DM_ERRLEN] = "";

	assert_int_equal(sp_dm_table_build(m, buf, sizeof(buf), err,
					   sizeof(err)), -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
}

/* The two lines known to load on Debian's 6.1. */
static void st_matches_known_good_line(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_ST);
	build_ok(&m, "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
		     "8:0 1 1 8:16 1 1 8:32 1 1");
}

static void hst_matches_known_good_line(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_HST);
	build_ok(&m, "0 4194304 multipath 0 0 1 1 historical-service-time 0 "
		     "3 1 8:0 1 8:16 1 8:32 1");
}

/* hst-5.8 (lab/hst-build.sh) registers a name of its own; its table
 * takes HST's arguments, and reads back as HST of that build. Other
 * selectors ignore the build. */
static void hst58_names_its_own_selector(void **state)
{
	char line[512], err[SP_DM_ERRLEN] = "";
	struct sp_dm_map m, back;

	(void)state;
	three_sd(&m, SP_SEL_HST);
	m.sel.hst_build = SP_HST_BUILD_5_8;
	m.sel.base_weight = 512;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 historical-service-time-5.8 "
		     "1 512 3 1 8:0 1 8:16 1 8:32 1");
	assert_string_equal(sp_dm_selector_kernel_name(&m.sel),
			    "historical-service-time-5.8");
	assert_string_equal(sp_dm_selector_module(&m.sel),
			    "dm_historical_service_time_58");
	assert_int_equal(sp_dm_table_build(&m, line, sizeof(line), err,
					   sizeof(err)), 0);
	assert_int_equal(sp_dm_table_parse(line, &back, err, sizeof(err)), 0);
	assert_int_equal(back.sel.kind, SP_SEL_HST);
	assert_int_equal(back.sel.hst_build, SP_HST_BUILD_5_8);
	assert_int_equal(back.sel.base_weight, 512);
	/* the stock name reads back as the stock build */
	m.sel.hst_build = SP_HST_BUILD_STOCK;
	assert_int_equal(sp_dm_table_build(&m, line, sizeof(line), err,
					   sizeof(err)), 0);
	back.sel.hst_build = SP_HST_BUILD_5_8;
	assert_int_equal(sp_dm_table_parse(line, &back, err, sizeof(err)), 0);
	assert_int_equal(back.sel.hst_build, SP_HST_BUILD_STOCK);
	three_sd(&m, SP_SEL_ST);
	m.sel.hst_build = SP_HST_BUILD_5_8;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
		     "8:0 1 1 8:16 1 1 8:32 1 1");
	assert_string_equal(sp_dm_selector_module(&m.sel), "dm_service_time");
}

/* hst-prebio names its own selector too and reads back as HST of
 * that build. */
static void hstpb_names_its_own_selector(void **state)
{
	char line[512], err[SP_DM_ERRLEN] = "";
	struct sp_dm_map m, back;

	(void)state;
	three_sd(&m, SP_SEL_HST);
	m.sel.hst_build = SP_HST_BUILD_PREBIO;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 historical-service-time-prebio "
		     "0 3 1 8:0 1 8:16 1 8:32 1");
	assert_string_equal(sp_dm_selector_module(&m.sel),
			    "dm_historical_service_time_prebio");
	assert_int_equal(sp_dm_table_build(&m, line, sizeof(line), err,
					   sizeof(err)), 0);
	assert_int_equal(sp_dm_table_parse(line, &back, err, sizeof(err)), 0);
	assert_int_equal(back.sel.kind, SP_SEL_HST);
	assert_int_equal(back.sel.hst_build, SP_HST_BUILD_PREBIO);
}

/* queue_mode bio is a feature with an argument: two words of the
 * feature count, after queue_if_no_path when both are on, as the
 * kernel's status prints them; the default (request-based) says
 * nothing. */
static void queue_mode_in_features(void **state)
{
	char line[512], err[SP_DM_ERRLEN] = "";
	struct sp_dm_map m, back;

	(void)state;
	three_sd(&m, SP_SEL_ST);
	m.queue_mode = SP_DM_QUEUE_BIO;
	build_ok(&m, "0 4194304 multipath 2 queue_mode bio 0 1 1 service-time 0 "
		     "3 2 8:0 1 1 8:16 1 1 8:32 1 1");
	m.queue_if_no_path = 1;
	build_ok(&m, "0 4194304 multipath 3 queue_if_no_path queue_mode bio 0 1 1 "
		     "service-time 0 3 2 8:0 1 1 8:16 1 1 8:32 1 1");
	assert_int_equal(sp_dm_table_build(&m, line, sizeof(line), err,
					   sizeof(err)), 0);
	assert_int_equal(sp_dm_table_parse(line, &back, err, sizeof(err)), 0);
	assert_int_equal(back.queue_mode, SP_DM_QUEUE_BIO);
	assert_int_equal(back.queue_if_no_path, 1);
	assert_int_equal(back.npaths, 3);
	/* as the kernel prints it, pg_init words and all */
	assert_int_equal(sp_dm_table_parse("0 8 multipath 5 queue_mode bio "
		"pg_init_retries 3 queue_if_no_path 0 1 1 round-robin 0 1 1 "
		"8:0 1", &back, err, sizeof(err)), 0);
	assert_int_equal(back.queue_mode, SP_DM_QUEUE_BIO);
	assert_int_equal(back.queue_if_no_path, 1);
	/* a bio-based map as 6.1 prints it: it retains the hardware
	 * handler, and says so first */
	assert_int_equal(sp_dm_table_parse("0 8 multipath 3 "
		"retain_attached_hw_handler queue_mode bio 0 1 1 round-robin 0 "
		"1 1 8:0 1", &back, err, sizeof(err)), 0);
	assert_int_equal(back.queue_mode, SP_DM_QUEUE_BIO);
	assert_int_equal(back.queue_if_no_path, 0);
	assert_int_equal(sp_dm_table_parse("0 8 multipath 2 queue_mode mq 0 1 1 "
		"round-robin 0 1 1 8:0 1", &back, err, sizeof(err)), 0);
	assert_int_equal(back.queue_mode, SP_DM_QUEUE_RQ);
	m.queue_mode = SP_DM_QUEUE_RQ;
	m.queue_if_no_path = 0;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
		     "8:0 1 1 8:16 1 1 8:32 1 1");
	/* a mode cut off by the count, or one the kernel has not */
	assert_int_equal(sp_dm_table_parse("0 8 multipath 1 queue_mode 0 1 1 "
		"round-robin 0 1 1 8:0 1", &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "queue_mode without its mode"));
	assert_int_equal(sp_dm_table_parse("0 8 multipath 2 queue_mode disk 0 1 1 "
		"round-robin 0 1 1 8:0 1", &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'disk' is not a queue mode"));
	{
		enum sp_dm_queue_mode q;

		assert_int_equal(sp_dm_queue_mode_parse("bio", &q), 0);
		assert_int_equal(q, SP_DM_QUEUE_BIO);
		assert_int_equal(sp_dm_queue_mode_parse("Bio", &q), -EINVAL);
		assert_int_equal(sp_dm_queue_mode_parse(NULL, &q), -EINVAL);
		assert_string_equal(sp_dm_queue_mode_name(SP_DM_QUEUE_BIO), "bio");
		assert_string_equal(sp_dm_queue_mode_name(SP_DM_QUEUE_RQ), "rq");
	}
}

static void hst_selector_args(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_HST);
	m.sel.base_weight = 512;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 historical-service-time 1 "
		     "512 3 1 8:0 1 8:16 1 8:32 1");
	/* a threshold alone still needs the weight before it */
	m.sel.base_weight = -1;
	m.sel.threshold_multiplier = 2;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 historical-service-time 2 "
		     "972 2 3 1 8:0 1 8:16 1 8:32 1");
}

static void ql_rr_and_features(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_QL);
	build_ok(&m, "0 4194304 multipath 0 0 1 1 queue-length 0 3 1 "
		     "8:0 1 8:16 1 8:32 1");
	three_sd(&m, SP_SEL_RR);
	m.queue_if_no_path = 1;
	build_ok(&m, "0 4194304 multipath 1 queue_if_no_path 0 1 1 "
		     "round-robin 0 3 1 8:0 1 8:16 1 8:32 1");
}

static void st_relative_throughput(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_ST);
	m.paths[2].relative_throughput = 25;
	m.paths[1].relative_throughput = 0;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 service-time 0 3 2 "
		     "8:0 1 1 8:16 1 0 8:32 1 25");
}

static void bad_forms(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_ST);
	m.sectors = 0;
	build_bad(&m, "0 sectors");
	three_sd(&m, SP_SEL_ST);
	m.npaths = 0;
	build_bad(&m, "0 paths");
	m.npaths = SP_DM_MAX_PATHS + 1;
	build_bad(&m, "65 paths");
	three_sd(&m, SP_SEL_ST);
	m.paths[2].relative_throughput = 101;
	build_bad(&m, "relative_throughput 101");
	three_sd(&m, SP_SEL_QL);
	m.paths[0].relative_throughput = 5;
	build_bad(&m, "service-time argument");
	three_sd(&m, SP_SEL_ST);
	m.sel.base_weight = 900;
	build_bad(&m, "historical-service-time arguments");
	three_sd(&m, SP_SEL_HST);
	m.sel.base_weight = 1024;
	build_bad(&m, "base_weight 1024");
	three_sd(&m, SP_SEL_HST);
	m.sel.threshold_multiplier = (int64_t)UINT32_MAX + 1;
	build_bad(&m, "threshold_multiplier 4294967296");
	three_sd(&m, SP_SEL_RR);
	m.paths[1].minor = 0;
	build_bad(&m, "same device 8:0");
	three_sd(&m, SP_SEL_RR);
	m.paths[1].major = 0;
	build_bad(&m, "major 0");
	three_sd(&m, SP_SEL_RR);
	m.paths[1].major = 5000;
	build_bad(&m, "5000:16");
	three_sd(&m, SP_SEL_COUNT);
	build_bad(&m, "unknown path selector");
}

static void too_small_buffer(void **state)
{
	struct sp_dm_map m;
	char buf[20], err[SP_DM_ERRLEN];

	(void)state;
	three_sd(&m, SP_SEL_ST);
	assert_int_equal(sp_dm_table_build(&m, buf, sizeof(buf), err,
					   sizeof(err)), -ENOSPC);
}

static void selector_names(void **state)
{
	enum sp_selector k;

	(void)state;
	assert_int_equal(sp_selector_parse("hst", &k), 0);
	assert_int_equal(k, SP_SEL_HST);
	assert_int_equal(sp_selector_parse("queue-length", &k), 0);
	assert_int_equal(k, SP_SEL_QL);
	assert_int_equal(sp_selector_parse("service_time", &k), -EINVAL);
	assert_int_equal(sp_selector_parse("", &k), -EINVAL);
	assert_string_equal(sp_selector_kernel_name(SP_SEL_RR), "round-robin");
}

static void parse_round_trips(void **state)
{
	const enum sp_selector kinds[] = { SP_SEL_ST, SP_SEL_HST, SP_SEL_QL,
					   SP_SEL_RR };
	struct sp_dm_map m, back;
	char line[512], again[512], err[SP_DM_ERRLEN] = "";
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		three_sd(&m, kinds[i]);
		if (kinds[i] == SP_SEL_HST) {
			m.sel.base_weight = 900;
			m.sel.threshold_multiplier = 3;
		}
		if (kinds[i] == SP_SEL_ST)
			m.paths[1].relative_throughput = 7;
		assert_int_equal(sp_dm_table_build(&m, line, sizeof(line), err,
						   sizeof(err)), 0);
		if (sp_dm_table_parse(line, &back, err, sizeof(err)))
			fail_msg("parse '%s': %s", line, err);
		assert_int_equal(back.sel.kind, kinds[i]);
		assert_int_equal(back.npaths, 3);
		assert_int_equal(back.paths[2].minor, 32);
		assert_int_equal(sp_dm_table_build(&back, again, sizeof(again),
						   err, sizeof(err)), 0);
		assert_string_equal(line, again);
	}
}

/* What `dmsetup table` prints for HST: per-path table arg is 0 and the
 * selector reports both of its arguments. */
static void parse_dmsetup_hst_output(void **state)
{
	struct sp_dm_map m;
	char err[SP_DM_ERRLEN] = "";

	(void)state;
	assert_int_equal(sp_dm_table_parse(
		"0 4194304 multipath 1 queue_if_no_path 1 alua 1 1 "
		"historical-service-time 2 972 0 2 1 8:0 0 8:16 0\n",
		&m, err, sizeof(err)), 0);
	assert_int_equal(m.sel.kind, SP_SEL_HST);
	assert_int_equal(m.sel.base_weight, 972);
	assert_int_equal(m.sel.threshold_multiplier, 0);
	assert_int_equal(m.queue_if_no_path, 1);
	assert_int_equal(m.npaths, 2);
	assert_int_equal(m.paths[1].minor, 16);
}

static void parse_bad(const char *line, const char *needle)
{
	struct sp_dm_map m;
	char err[SP_DM_ERRLEN] = "";

	assert_int_equal(sp_dm_table_parse(line, &m, err, sizeof(err)),
			 -EINVAL);
	if (!strstr(err, needle))
		fail_msg("parsing '%s': error '%s' does not mention '%s'",
			 line, err, needle);
}

static void parse_bad_forms(void **state)
{
	(void)state;
	parse_bad("0 100 linear 8:0 0", "'linear' is not multipath");
	parse_bad("0 100 multipath 0 0 2 1 service-time 0 1 2 8:0 1 1",
		  "2 path groups");
	parse_bad("0 100 multipath 0 0 1 1 latency-random 0 1 1 8:0 1",
		  "'latency-random'");
	parse_bad("0 100 multipath 0 0 1 1 io-affinity 0 1 1 8:0 x3",
		  "'x3' is not a valid CPU mask");
	parse_bad("0 100 multipath 0 0 1 1 service-time 0 1 2 8:0 1",
		  "table ends");
	parse_bad("0 100 multipath 0 0 1 1 service-time 0 1 2 sda 1 1",
		  "'sda' is not major:minor");
	parse_bad("0 100 multipath 0 0 1 1 service-time 1 5 1 2 8:0 1 1",
		  "no selector arguments");
	parse_bad("0 100 multipath 0 0 1 1 round-robin 0 1 1 8:0 1 junk",
		  "unexpected 'junk'");
	parse_bad("0 x multipath", "'x' is not a valid length");
	parse_bad("0 100 multipath 0 0 1 1 historical-service-time 1 2000 "
		  "1 1 8:0 1", "'2000' is not a valid base_weight");
	parse_bad("0 100 multipath 0 0 1 1 queue-length 0 0 1", "no paths");
}

/* io-affinity's per-path argument is a hex CPU mask; by default the
 * machine's CPUs are dealt out to the paths in turn. */
static void ioa_default_masks_spread_the_cpus(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_IOA);
	m.ncpus = 8;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 io-affinity 0 3 1 "
		 "8:0 49 8:16 92 8:32 24");
	m.ncpus = 3;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 io-affinity 0 3 1 "
		 "8:0 1 8:16 2 8:32 4");
	/* unknown: one CPU per path */
	m.ncpus = 0;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 io-affinity 0 3 1 "
		 "8:0 1 8:16 2 8:32 4");
}

static void ioa_explicit_masks_and_refusals(void **state)
{
	struct sp_dm_map m;

	(void)state;
	three_sd(&m, SP_SEL_IOA);
	m.ncpus = 2;
	/* three paths, two CPUs: the third would get none */
	build_bad(&m, "path 3: io-affinity needs a CPU of its own");
	m.paths[0].cpumask = 0x1;
	m.paths[1].cpumask = 0x2;
	m.paths[2].cpumask = 0x3;	/* both already taken */
	build_bad(&m, "path 3: io-affinity needs a CPU of its own");
	m.ncpus = 4;
	m.paths[2].cpumask = 0xc;
	build_ok(&m, "0 4194304 multipath 0 0 1 1 io-affinity 0 3 1 "
		 "8:0 1 8:16 2 8:32 c");
	/* a mask is io-affinity's argument only */
	m.sel.kind = SP_SEL_RR;
	build_bad(&m, "cpus is an io-affinity argument");
}

static void ioa_table_round_trips(void **state)
{
	struct sp_dm_map m;
	char err[SP_DM_ERRLEN] = "";

	(void)state;
	assert_int_equal(sp_dm_table_parse("0 100 multipath 0 0 1 1 io-affinity "
					   "0 2 1 8:0 00000001 8:16 0000000a,00000002",
					   &m, err, sizeof(err)), 0);
	assert_int_equal(m.sel.kind, SP_SEL_IOA);
	assert_int_equal(m.npaths, 2);
	assert_true(m.paths[0].cpumask == 1);
	assert_true(m.paths[1].cpumask == UINT64_C(0xa00000002));
}

static void cpulist_parse(void **state)
{
	uint64_t m = 7;

	(void)state;
	assert_int_equal(sp_dm_cpulist_parse("0", &m), 0);
	assert_true(m == 1);
	assert_int_equal(sp_dm_cpulist_parse("1,3", &m), 0);
	assert_true(m == 0xa);
	assert_int_equal(sp_dm_cpulist_parse("0-3,8", &m), 0);
	assert_true(m == 0x10f);
	assert_int_equal(sp_dm_cpulist_parse("63", &m), 0);
	assert_true(m == UINT64_C(1) << 63);
	assert_int_equal(sp_dm_cpulist_parse("", &m), -EINVAL);
	assert_int_equal(sp_dm_cpulist_parse("64", &m), -EINVAL);
	assert_int_equal(sp_dm_cpulist_parse("3-1", &m), -EINVAL);
	assert_int_equal(sp_dm_cpulist_parse("1,", &m), -EINVAL);
	assert_int_equal(sp_dm_cpulist_parse("0x3", &m), -EINVAL);
	assert_int_equal(sp_dm_cpulist_parse("-1", &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(st_matches_known_good_line),
		cmocka_unit_test(hst_matches_known_good_line),
		cmocka_unit_test(hst_selector_args),
		cmocka_unit_test(ql_rr_and_features),
		cmocka_unit_test(st_relative_throughput),
		cmocka_unit_test(bad_forms),
		cmocka_unit_test(too_small_buffer),
		cmocka_unit_test(selector_names),
		cmocka_unit_test(parse_round_trips),
		cmocka_unit_test(parse_dmsetup_hst_output),
		cmocka_unit_test(parse_bad_forms),
		cmocka_unit_test(ioa_default_masks_spread_the_cpus),
		cmocka_unit_test(ioa_explicit_masks_and_refusals),
		cmocka_unit_test(ioa_table_round_trips),
		cmocka_unit_test(cpulist_parse),
		cmocka_unit_test(hst58_names_its_own_selector),
		cmocka_unit_test(hstpb_names_its_own_selector),
		cmocka_unit_test(queue_mode_in_features),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
