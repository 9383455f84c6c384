/* dm/selector.c: the selector table and its lookups both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dm/dm_table.h"
#include "dm/selector.h"

static void short_and_kernel_names_both_ways(void **state)
{
	static const struct {
		enum sp_selector kind;
		const char *short_name, *kernel_name;
	} want[] = {
		{ SP_SEL_ST, "st", "service-time" },
		{ SP_SEL_HST, "hst", "historical-service-time" },
		{ SP_SEL_QL, "ql", "queue-length" },
		{ SP_SEL_RR, "rr", "round-robin" },
		{ SP_SEL_IOA, "ioa", "io-affinity" },
	};
	enum sp_selector k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_string_equal(sp_selector_short_name(want[i].kind),
				    want[i].short_name);
		assert_string_equal(sp_selector_kernel_name(want[i].kind),
				    want[i].kernel_name);
		k = SP_SEL_COUNT;
		assert_int_equal(sp_selector_by_short(want[i].short_name, &k), 0);
		assert_int_equal(k, want[i].kind);
		k = SP_SEL_COUNT;
		assert_int_equal(sp_selector_by_kernel(want[i].kernel_name, &k), 0);
		assert_int_equal(k, want[i].kind);
		k = SP_SEL_COUNT;
		assert_int_equal(sp_selector_parse(want[i].short_name, &k), 0);
		assert_int_equal(k, want[i].kind);
		k = SP_SEL_COUNT;
		assert_int_equal(sp_selector_parse(want[i].kernel_name, &k), 0);
		assert_int_equal(k, want[i].kind);
	}
}

/* A short name is no kernel name and the other way round: a dm table
 * never says "st", a topology file never says "service-time". */
static void lookups_keep_to_their_column(void **state)
{
	enum sp_selector k = SP_SEL_RR;

	(void)state;
	assert_int_equal(sp_selector_by_kernel("st", &k), -EINVAL);
	assert_int_equal(sp_selector_by_short("service-time", &k), -EINVAL);
	assert_int_equal(k, SP_SEL_RR);	/* untouched on failure */
}

static void unknown_names(void **state)
{
	static const char *const bad[] = {
		"", "ST", "service_time", "service-time ", "io_affinity",
		"IOA", "dm_service_time", "s", "latency-random",
	};
	enum sp_selector k = SP_SEL_QL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sp_selector_parse(bad[i], &k), -EINVAL);
		assert_int_equal(sp_selector_by_short(bad[i], &k), -EINVAL);
		assert_int_equal(sp_selector_by_kernel(bad[i], &k), -EINVAL);
	}
	assert_int_equal(sp_selector_parse(NULL, &k), -EINVAL);
	assert_int_equal(k, SP_SEL_QL);
	assert_null(sp_selector_info(SP_SEL_COUNT));
	assert_null(sp_selector_info((enum sp_selector)-1));
	assert_string_equal(sp_selector_kernel_name(SP_SEL_COUNT), "?");
	assert_string_equal(sp_selector_short_name(SP_SEL_COUNT), "?");
	assert_string_equal(sp_selector_module(SP_SEL_COUNT), "?");
}

/* What modprobe and /sys/module know them as. */
static void module_names(void **state)
{
	(void)state;
	assert_string_equal(sp_selector_module(SP_SEL_ST), "dm_service_time");
	assert_string_equal(sp_selector_module(SP_SEL_HST),
			    "dm_historical_service_time");
	assert_string_equal(sp_selector_module(SP_SEL_QL), "dm_queue_length");
	assert_string_equal(sp_selector_module(SP_SEL_RR), "dm_round_robin");
	assert_string_equal(sp_selector_module(SP_SEL_IOA), "dm_io_affinity");
}

/* Every row's module is dm_ + its kernel name with '_' for '-', the
 * kernel's own naming (dm-ps-*.c register "dm_<name>"), so a new row
 * cannot get it wrong unnoticed. */
static void every_module_follows_its_kernel_name(void **state)
{
	char want[SP_SEL_NAME_MAX + 4];
	int k;
	size_t i;

	(void)state;
	for (k = 0; k < SP_SEL_COUNT; k++) {
		const struct sp_selector_info *s = sp_selector_info(k);

		assert_non_null(s);
		/* NVMe's iopolicies are nvme_core's, no module of their own */
		if (s->family == SP_SEL_FAMILY_NVME) {
			assert_string_equal(s->module, "nvme_core");
			continue;
		}
		snprintf(want, sizeof(want), "dm_%s", s->kernel_name);
		for (i = 0; want[i]; i++)
			if (want[i] == '-')
				want[i] = '_';
		assert_string_equal(s->module, want);
	}
}

static void short_names_are_an_enum_choice_list(void **state)
{
	enum sp_selector k;
	int i;

	(void)state;
	for (i = 0; i < SP_SEL_COUNT; i++) {
		assert_non_null(sp_selector_short_names[i]);
		assert_int_equal(sp_selector_by_short(sp_selector_short_names[i],
						      &k), 0);
		assert_int_equal(k, i);
	}
	assert_null(sp_selector_short_names[SP_SEL_COUNT]);
}

/* The argument grammar dm_table.c builds on. */
static void argument_counts(void **state)
{
	(void)state;
	assert_int_equal(sp_selectors[SP_SEL_ST].path_args, 2);
	assert_int_equal(sp_selectors[SP_SEL_HST].path_args, 1);
	assert_int_equal(sp_selectors[SP_SEL_QL].path_args, 1);
	assert_int_equal(sp_selectors[SP_SEL_RR].path_args, 1);
	assert_int_equal(sp_selectors[SP_SEL_ST].selector_args, 0);
	assert_int_equal(sp_selectors[SP_SEL_HST].selector_args, 2);
	assert_int_equal(sp_selectors[SP_SEL_QL].selector_args, 0);
	assert_int_equal(sp_selectors[SP_SEL_RR].selector_args, 0);
	assert_int_equal(sp_selectors[SP_SEL_IOA].path_args, 1);
	assert_int_equal(sp_selectors[SP_SEL_IOA].selector_args, 0);
	assert_int_equal(sp_selectors[SP_SEL_IOA].path_arg, SP_SEL_ARG_CPUMASK);
	assert_int_equal(sp_selectors[SP_SEL_RR].path_arg, SP_SEL_ARG_REPEAT);
	assert_string_equal(sp_selectors[SP_SEL_ST].ko_path, "");
	/* only HST's choice depends on what the paths did before */
	assert_true(sp_selectors[SP_SEL_HST].keeps_history);
	assert_false(sp_selectors[SP_SEL_ST].keeps_history);
	assert_false(sp_selectors[SP_SEL_QL].keeps_history);
	assert_false(sp_selectors[SP_SEL_RR].keeps_history);
	assert_false(sp_selectors[SP_SEL_IOA].keeps_history);
}

/* A selector the user built joins the table: found by its kernel name
 * (which is also its short name), listed as an enum choice, and its
 * table line is round-robin's grammar. */
static void registered_selector_joins_the_table(void **state)
{
	struct sp_dm_map m;
	enum sp_selector k, k2;
	char buf[256], err[SP_DM_ERRLEN] = "";

	(void)state;
	sp_selector_unregister_all();
	assert_int_equal(sp_selector_count(), SP_SEL_COUNT);
	assert_int_equal(sp_selector_register("latency-random",
					      "dm_latency_random",
					      "/var/lib/x/dm-latency-random.ko",
					      &k), 0);
	assert_int_equal(k, SP_SEL_COUNT);
	assert_int_equal(sp_selector_count(), SP_SEL_COUNT + 1);
	assert_int_equal(sp_selector_parse("latency-random", &k2), 0);
	assert_int_equal(k2, k);
	assert_int_equal(sp_selector_by_kernel("latency-random", &k2), 0);
	assert_string_equal(sp_selector_short_name(k), "latency-random");
	assert_string_equal(sp_selector_module(k), "dm_latency_random");
	assert_string_equal(sp_selector_info(k)->ko_path,
			    "/var/lib/x/dm-latency-random.ko");
	assert_true(sp_selector_info(k)->keeps_history);
	/* its build, for telling a loaded module from it; stock: none */
	assert_string_equal(sp_selector_info(k)->srcversion, "");
	assert_int_equal(sp_selector_set_srcversion(k, "1DFCA0797279"), 0);
	assert_string_equal(sp_selector_info(k)->srcversion, "1DFCA0797279");
	assert_int_equal(sp_selector_set_srcversion(k, "1D\n"), -EINVAL);
	assert_int_equal(sp_selector_set_srcversion(k, ""), -EINVAL);
	assert_int_equal(sp_selector_set_srcversion(SP_SEL_ST, "1D"), -EINVAL);
	assert_string_equal(sp_selector_info(k)->srcversion, "1DFCA0797279");
	assert_string_equal(sp_selector_short_names[SP_SEL_COUNT],
			    "latency-random");
	assert_null(sp_selector_short_names[SP_SEL_COUNT + 1]);
	assert_string_equal(sp_selector_list(),
			    "st, hst, ql, rr, ioa, numa, nvme-rr, qd, latency-random");
	/* the same again is the same entry */
	assert_int_equal(sp_selector_register("latency-random",
					      "dm_latency_random",
					      "/var/lib/x/dm-latency-random.ko",
					      &k2), 0);
	assert_int_equal(k2, k);
	assert_int_equal(sp_selector_count(), SP_SEL_COUNT + 1);

	sp_dm_map_init(&m, k);
	m.sectors = 100;
	m.npaths = 2;
	m.paths[0].major = 8;
	m.paths[1].major = 8;
	m.paths[1].minor = 16;
	assert_int_equal(sp_dm_table_build(&m, buf, sizeof(buf), err,
					   sizeof(err)), 0);
	assert_string_equal(buf, "0 100 multipath 0 0 1 1 latency-random 0 2 1 "
			    "8:0 1 8:16 1");
	assert_int_equal(sp_dm_table_parse(buf, &m, err, sizeof(err)), 0);
	assert_int_equal(m.sel.kind, k);
	sp_selector_unregister_all();
	assert_int_equal(sp_selector_parse("latency-random", &k2), -EINVAL);
	assert_null(sp_selector_info(k));
}

/* Hostile or clashing names never reach the table. */
static void register_refuses_bad_names(void **state)
{
	static const char *const bad[] = {
		"", "-x", "a b", "x;rm", "../x", "a/b", "service-time", "st",
		"io-affinity", "abcdefghijklmnopqrstuvwxyz0123456789",
	};
	enum sp_selector k;
	size_t i;
	char mod[64];

	(void)state;
	sp_selector_unregister_all();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sp_selector_register(bad[i], "dm_x", "/x.ko",
						      &k), -EINVAL);
	/* a stock module name, an empty path */
	assert_int_equal(sp_selector_register("mine", "dm_round_robin", "/x.ko",
					      &k), -EINVAL);
	assert_int_equal(sp_selector_register("mine", "dm_mine", "", &k),
			 -EINVAL);
	assert_int_equal(sp_selector_count(), SP_SEL_COUNT);
	/* full */
	for (i = 0; i < SP_SEL_MAX_REGISTERED; i++) {
		snprintf(mod, sizeof(mod), "dm_m%zu", i);
		assert_int_equal(sp_selector_register(mod + 3, mod, "/x.ko", &k), 0);
	}
	assert_int_equal(sp_selector_register("one-more", "dm_one_more", "/x.ko",
					      &k), -ENOSPC);
	sp_selector_unregister_all();
}

/* A table names the kernel's selector; the short name is refused. */
/* `rr` is round-robin of whichever multipath the topology has; st has
 * no NVMe counterpart, numa no dm one. */
static void family_mapping(void **state)
{
	enum sp_selector k;

	(void)state;
	assert_int_equal(sp_selector_family(SP_SEL_ST), SP_SEL_FAMILY_DM);
	assert_int_equal(sp_selector_family(SP_SEL_QD), SP_SEL_FAMILY_NVME);
	assert_int_equal(sp_selector_for_family(SP_SEL_RR, SP_SEL_FAMILY_NVME,
						&k), 0);
	assert_int_equal(k, SP_SEL_NRR);
	assert_int_equal(sp_selector_for_family(SP_SEL_NRR, SP_SEL_FAMILY_DM,
						&k), 0);
	assert_int_equal(k, SP_SEL_RR);
	assert_int_equal(sp_selector_for_family(SP_SEL_NUMA,
						SP_SEL_FAMILY_NVME, &k), 0);
	assert_int_equal(k, SP_SEL_NUMA);
	assert_int_equal(sp_selector_for_family(SP_SEL_ST, SP_SEL_FAMILY_NVME,
						&k), -EINVAL);
	assert_int_equal(sp_selector_for_family(SP_SEL_QD, SP_SEL_FAMILY_DM,
						&k), -EINVAL);
	assert_int_equal(sp_selector_by_short("qd", &k), 0);
	assert_string_equal(sp_selector_kernel_name(k), "queue-depth");
	/* the journal's and the CLI's "rr" stays dm's */
	assert_int_equal(sp_selector_parse("rr", &k), 0);
	assert_int_equal(k, SP_SEL_RR);
}

static void table_parse_wants_the_kernel_name(void **state)
{
	struct sp_dm_map m;
	char err[SP_DM_ERRLEN];

	(void)state;
	assert_int_equal(sp_dm_table_parse("0 100 multipath 0 0 1 1 rr 0 1 1 "
					   "8:0 1", &m, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "unknown path selector 'rr'"));
	assert_int_equal(sp_dm_table_parse("0 100 multipath 0 0 1 1 "
					   "round-robin 0 1 1 8:0 1", &m, err,
					   sizeof(err)), 0);
	assert_int_equal(m.sel.kind, SP_SEL_RR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_and_kernel_names_both_ways),
		cmocka_unit_test(lookups_keep_to_their_column),
		cmocka_unit_test(unknown_names),
		cmocka_unit_test(module_names),
		cmocka_unit_test(every_module_follows_its_kernel_name),
		cmocka_unit_test(short_names_are_an_enum_choice_list),
		cmocka_unit_test(argument_counts),
		cmocka_unit_test(table_parse_wants_the_kernel_name),
		cmocka_unit_test(family_mapping),
		cmocka_unit_test(registered_selector_joins_the_table),
		cmocka_unit_test(register_refuses_bad_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
