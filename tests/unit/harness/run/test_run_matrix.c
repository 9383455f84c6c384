#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/units.h"
#include "harness/run/run_matrix.h"

/* argv as the CLI would get it, through the real option table */
static int plan_of(struct sp_run_plan *plan, char *err, int argc, ...)
{
	struct sp_run_cli cli;
	char *argv[32] = { "run" };
	va_list ap;
	int i, next, ret;

	va_start(ap, argc);
	for (i = 1; i <= argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	memset(&cli, 0, sizeof(cli));
	sp_opt_set_defaults(sp_run_cli_table, &cli);
	ret = sp_opt_parse_argv(sp_run_cli_table, &cli, argc + 1, argv, 1,
				&next, err, SP_RUN_ERRLEN);
	if (ret)
		return ret;
	return sp_run_plan_from_cli(&cli, plan, err, SP_RUN_ERRLEN);
}

static void defaults_are_the_reference(void **state)
{
	struct sp_run_plan p;
	char err[SP_RUN_ERRLEN] = "";

	(void)state;
	assert_int_equal(plan_of(&p, err, 0), 0);
	assert_int_equal(p.n_sel, 2);
	assert_int_equal(p.sel[0], SP_SEL_ST);
	assert_int_equal(p.sel[1], SP_SEL_HST);
	assert_int_equal(p.n_rw, 4);
	assert_string_equal(p.rw[0], "read");
	assert_string_equal(p.rw[3], "randwrite");
	assert_int_equal(p.n_qd, 4);
	assert_int_equal(p.iodepth[2], 32);
	assert_int_equal(p.n_bs, 1);
	assert_int_equal(p.bs[0], 4096);
	assert_int_equal(p.numjobs, 1);
	assert_int_equal(p.stop, SP_RUN_STOP_SIZE);
	assert_int_equal(p.size_bytes, 500ULL << 20);
	assert_null(p.job_file);
	assert_int_equal(sp_run_plan_count(&p), 32);
}

static void matrix_order_pairs_selectors(void **state)
{
	struct sp_run_plan p;
	struct sp_run_case c;
	char err[SP_RUN_ERRLEN] = "";

	(void)state;
	assert_int_equal(plan_of(&p, err, 6, "--rw", "randread,randwrite",
				 "--iodepth", "1,8", "--selectors",
				 "st,hst,ql"), 0);
	assert_int_equal(sp_run_plan_count(&p), 12);
	/* selectors back to back, then iodepth, then rw */
	assert_int_equal(sp_run_plan_case(&p, 0, &c), 0);
	assert_int_equal(c.sel, SP_SEL_ST);
	assert_string_equal(c.rw, "randread");
	assert_int_equal(c.iodepth, 1);
	assert_int_equal(sp_run_plan_case(&p, 2, &c), 0);
	assert_int_equal(c.sel, SP_SEL_QL);
	assert_int_equal(c.iodepth, 1);
	assert_int_equal(sp_run_plan_case(&p, 4, &c), 0);
	assert_int_equal(c.sel, SP_SEL_HST);
	assert_int_equal(c.iodepth, 8);
	assert_string_equal(c.rw, "randread");
	assert_int_equal(sp_run_plan_case(&p, 11, &c), 0);
	assert_int_equal(c.sel, SP_SEL_QL);
	assert_int_equal(c.iodepth, 8);
	assert_string_equal(c.rw, "randwrite");
	assert_int_equal(c.index, 11);
	assert_int_equal(sp_run_plan_case(&p, 12, &c), -ERANGE);
}

static void stop_rules(void **state)
{
	struct sp_run_plan p;
	char err[SP_RUN_ERRLEN] = "";

	(void)state;
	assert_int_equal(plan_of(&p, err, 2, "--runtime", "5"), 0);
	assert_int_equal(p.stop, SP_RUN_STOP_RUNTIME);
	assert_int_equal(p.runtime_s, 5);
	assert_int_equal(plan_of(&p, err, 4, "--ios", "2000", "--size", "1G"), 0);
	assert_int_equal(p.stop, SP_RUN_STOP_IOS);
	assert_int_equal(p.ios, 2000);
	assert_int_equal(p.size_bytes, 1ULL << 30);
	assert_int_equal(plan_of(&p, err, 4, "--bs", " 4k , 64k", "--numjobs",
				 "4"), 0);
	assert_int_equal(p.n_bs, 2);
	assert_int_equal(p.bs[1], 65536);
	assert_int_equal(p.numjobs, 4);
}

/* Every bad form: the message names the option and the value. */
static void bad_forms(void **state)
{
	static const struct {
		const char *opt, *value, *expect;
	} bad[] = {
		{ "--selectors", "", "--selectors" },
		{ "--selectors", "st,,hst", "empty item" },
		{ "--selectors", "st,", "empty item" },
		{ "--selectors", ",st", "empty item" },
		{ "--selectors", "st,foo", "'foo' is none of st, hst, ql, rr, ioa" },
		{ "--selectors", "st,st", "'st' twice" },
		{ "--selectors", "st,service-time", "'st' twice" },
		{ "--iodepth", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		  "more than 16" },
		{ "--rw", "randred", "'randred' is not one of fio's" },
		{ "--rw", "read,read", "'read' twice" },
		{ "--rw", "read,,write", "empty item" },
		{ "--iodepth", "0", "'0' is not a whole number from 1" },
		{ "--iodepth", "-1", "'-1'" },
		{ "--iodepth", "1.5", "'1.5'" },
		{ "--iodepth", "65537", "'65537'" },
		{ "--iodepth", "1,01", "1 twice" },
		{ "--iodepth", "x", "'x'" },
		{ "--iodepth", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "too long" },
		{ "--bs", "4q", "'4q' is not a size" },
		{ "--bs", "1000", "'1000' is not a multiple of 512" },
		{ "--bs", "0", "'0'" },
		{ "--bs", "128m", "'128m'" },
		{ "--bs", "4k,4096", "'4096' twice" },
		{ "--numjobs", "0", "numjobs" },
		{ "--numjobs", "65", "numjobs" },
		{ "--runtime", "-1", "runtime" },
		{ "--runtime", "1s", "runtime" },
		{ "--warmup", "-1", "warmup" },
		{ "--warmup", "86401", "warmup" },
		{ "--warmup", "20s", "warmup" },
		{ "--ios", "many", "ios" },
		{ "--size", "lots", "size" },
		{ "--size", "1k", "--size 1024 is smaller than a block" },
		{ "--job", "", "--job: empty" },
		{ "--out", "", "--out: empty" },
		{ "--frobnicate", "1", "unknown option '--frobnicate'" },
	};
	struct sp_run_plan p;
	char err[SP_RUN_ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (!plan_of(&p, err, 2, bad[i].opt, bad[i].value) ||
		    !strstr(err, bad[i].expect))
			fail_msg("%s '%s': got '%s', want '%s'", bad[i].opt,
				 bad[i].value, err, bad[i].expect);
	}
	err[0] = '\0';
	assert_int_equal(plan_of(&p, err, 4, "--ios", "10", "--runtime", "5"),
			 -EINVAL);
	assert_non_null(strstr(err, "choose one"));
	assert_int_equal(plan_of(&p, err, 4, "--warmup", "20", "--job", "x.fio"),
			 -EINVAL);
	assert_non_null(strstr(err, "--warmup with --job"));
	assert_int_equal(plan_of(&p, err, 2, "--warmup", "20"), 0);
	assert_int_equal(p.warmup_s, 20);
	assert_int_equal(plan_of(&p, err, 1, "--rw"), -EINVAL);
	assert_non_null(strstr(err, "needs a value"));
}

static void split_trims_and_limits(void **state)
{
	char items[4][SP_RUN_ITEMLEN], err[SP_RUN_ERRLEN];
	size_t n;

	(void)state;
	assert_int_equal(sp_run_split_list(" a ,b,\tc", "x", items, 4, &n,
					   err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(items[0], "a");
	assert_string_equal(items[2], "c");
	assert_int_equal(sp_run_split_list("a,b,c,d,e", "x", items, 4, &n,
					   err, sizeof(err)), -EINVAL);
	assert_int_equal(sp_run_split_list(" , ", "x", items, 4, &n, err,
					   sizeof(err)), -EINVAL);
	assert_int_equal(sp_run_split_list(NULL, "x", items, 4, &n, err,
					   sizeof(err)), -EINVAL);
}

static void safety_accepts_only_our_map(void **state)
{
	const char *name = "slowpath-skew4", *uuid = "slowpath-skew4-1a2b";
	char err[SP_RUN_ERRLEN];

	(void)state;
	assert_int_equal(sp_run_map_is_ours(name, uuid, name, uuid, err,
					    sizeof(err)), 0);
	/* somebody's real multipath map */
	err[0] = '\0';
	assert_int_equal(sp_run_map_is_ours("mpatha", "mpath-3600", "mpatha",
					    "mpath-3600", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "'mpatha' is not one slowpath made"));
	/* our name on a map somebody else made */
	assert_int_equal(sp_run_map_is_ours(name, "mpath-3600", name, uuid, err,
					    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "uuid 'mpath-3600'"));
	assert_int_equal(sp_run_map_is_ours(name, "", name, uuid, err,
					    sizeof(err)), -EINVAL);
	/* bare prefixes are not names */
	assert_int_equal(sp_run_map_is_ours("slowpath-", uuid, "slowpath-",
					    uuid, err, sizeof(err)), -EINVAL);
	/* ours, but not the one that is up */
	assert_int_equal(sp_run_map_is_ours("slowpath-u10", uuid, name, uuid,
					    err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not the map of the topology that is up"));
	assert_int_equal(sp_run_map_is_ours(name, "slowpath-skew4-ffff", name,
					    uuid, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "another map took its name"));
	assert_int_equal(sp_run_map_is_ours(name, uuid, NULL, NULL, err,
					    sizeof(err)), -EINVAL);
	assert_int_equal(sp_run_map_is_ours(NULL, NULL, name, uuid, err,
					    sizeof(err)), -EINVAL);
}

static void dm_info_lines(void **state)
{
	char name[64], uuid[64];
	unsigned int maj, min;

	(void)state;
	assert_int_equal(sp_run_parse_dm_info("slowpath-skew4|slowpath-skew4-1a2b|254|3\n",
					      name, sizeof(name), uuid,
					      sizeof(uuid), &maj, &min), 0);
	assert_string_equal(name, "slowpath-skew4");
	assert_string_equal(uuid, "slowpath-skew4-1a2b");
	assert_int_equal(maj, 254);
	assert_int_equal(min, 3);
	/* a map without uuid */
	assert_int_equal(sp_run_parse_dm_info("mpatha||254|0", name,
					      sizeof(name), uuid, sizeof(uuid),
					      &maj, &min), 0);
	assert_string_equal(uuid, "");
	assert_int_equal(sp_run_parse_dm_info("mpatha|x|254", name, sizeof(name),
					      uuid, sizeof(uuid), &maj, &min),
			 -EINVAL);
	assert_int_equal(sp_run_parse_dm_info("mpatha|x|254|z", name,
					      sizeof(name), uuid, sizeof(uuid),
					      &maj, &min), -EINVAL);
	assert_int_equal(sp_run_parse_dm_info("|x|254|0", name, sizeof(name),
					      uuid, sizeof(uuid), &maj, &min),
			 -EINVAL);
	assert_int_equal(sp_run_parse_dm_info("mpatha|x|254|0", name, 4, uuid,
					      sizeof(uuid), &maj, &min),
			 -EINVAL);
}

static void progress_and_eta(void **state)
{
	struct sp_run_progress p = { .total = 16, .label = "hst randread 4k qd8" };
	char line[128], clock[32];
	const int64_t s = SP_NSEC_PER_SEC;

	(void)state;
	assert_string_equal(sp_run_fmt_clock(65 * s, clock, sizeof(clock)), "1:05");
	assert_string_equal(sp_run_fmt_clock(3723 * s, clock, sizeof(clock)),
			    "1:02:03");
	assert_string_equal(sp_run_fmt_clock(0, clock, sizeof(clock)), "0:00");
	assert_string_equal(sp_run_fmt_clock(-1, clock, sizeof(clock)), "--:--");
	/* nothing finished and no estimate: unknown */
	assert_int_equal(sp_run_eta_ns(&p), -1);
	sp_run_progress_line(&p, line, sizeof(line));
	assert_string_equal(line, "[ 1/16] hst randread 4k qd8  0:00 elapsed  ETA --:--");
	/* a time-based run knows its cases' length from the start */
	p.case_estimate_ns = 6 * s;
	p.case_elapsed_ns = 2 * s;
	p.elapsed_ns = 2 * s;
	assert_int_equal(sp_run_eta_ns(&p), 16 * 6 * s - 2 * s);
	/* then the finished cases' mean wins */
	p.done = 3;
	p.done_ns = 30 * s;
	p.case_elapsed_ns = 4 * s;
	p.elapsed_ns = 34 * s;
	assert_int_equal(sp_run_eta_ns(&p), 13 * 10 * s - 4 * s);
	sp_run_progress_line(&p, line, sizeof(line));
	assert_string_equal(line, "[ 4/16] hst randread 4k qd8  0:34 elapsed  ETA 2:06");
	/* a case running longer than the mean does not make ETA negative */
	p.case_elapsed_ns = 60 * s;
	assert_int_equal(sp_run_eta_ns(&p), 12 * 10 * s);
	p.done = 16;
	assert_int_equal(sp_run_eta_ns(&p), 0);
	sp_run_progress_line(&p, line, sizeof(line));
	assert_non_null(strstr(line, "[16/16]"));
	/* truncation keeps a terminated string */
	assert_int_equal(sp_run_progress_line(&p, line, 8), 7);
	assert_int_equal(strlen(line), 7);
}

static void case_labels(void **state)
{
	struct sp_run_case c = { .sel = SP_SEL_HST, .rw = "randread",
				 .bs = 4096, .iodepth = 8 };
	char buf[64];

	(void)state;
	sp_run_case_label(&c, 1, buf, sizeof(buf));
	assert_string_equal(buf, "hst randread 4k qd8");
	c.sel = SP_SEL_ST;
	c.bs = 1 << 20;
	sp_run_case_label(&c, 4, buf, sizeof(buf));
	assert_string_equal(buf, "st randread 1m qd8 j4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_the_reference),
		cmocka_unit_test(matrix_order_pairs_selectors),
		cmocka_unit_test(stop_rules),
		cmocka_unit_test(bad_forms),
		cmocka_unit_test(split_trims_and_limits),
		cmocka_unit_test(safety_accepts_only_our_map),
		cmocka_unit_test(dm_info_lines),
		cmocka_unit_test(progress_and_eta),
		cmocka_unit_test(case_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
