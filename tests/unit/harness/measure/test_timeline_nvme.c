/* An nvme-tcp path's state in the timeline (timeline_nvme.c): from its
 * controller's state and its ANA state, as sysfs spells them, and the
 * controller named by a hidden disk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure/timeline.h"

static void states(void **state)
{
	(void)state;
	assert_int_equal(sp_tl_nvme_state("live\n", "optimized\n"), 'A');
	assert_int_equal(sp_tl_nvme_state("live", "non-optimized"), 'A');
	assert_int_equal(sp_tl_nvme_state("live\n", "inaccessible\n"), 'F');
	assert_int_equal(sp_tl_nvme_state("live\n", "persistent-loss\n"), 'F');
	assert_int_equal(sp_tl_nvme_state("live\n", "change\n"), 'F');
	/* a controller not live fails the path whatever its ANA says */
	assert_int_equal(sp_tl_nvme_state("connecting\n", "optimized\n"), 'F');
	assert_int_equal(sp_tl_nvme_state("resetting\n", ""), 'F');
	assert_int_equal(sp_tl_nvme_state("deleting", NULL), 'F');
	/* "live" is a word, not a prefix */
	assert_int_equal(sp_tl_nvme_state("lively\n", "optimized\n"), 'F');
	assert_int_equal(sp_tl_nvme_state("live\n", "optimizedx\n"), 'F');
	/* what was not read */
	assert_int_equal(sp_tl_nvme_state("live\n", ""), 'A');
	assert_int_equal(sp_tl_nvme_state("", "inaccessible\n"), 'F');
	assert_int_equal(sp_tl_nvme_state(NULL, "optimized"), '-');
	assert_int_equal(sp_tl_nvme_state("", ""), '-');
	assert_int_equal(sp_tl_nvme_state(NULL, NULL), '-');
}

static void controller_of_a_disk(void **state)
{
	char c[16];

	(void)state;
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme0c2n1", c, sizeof(c)), 0);
	assert_string_equal(c, "nvme2");
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme12c345n7", c, sizeof(c)), 0);
	assert_string_equal(c, "nvme345");
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme0n1", c, sizeof(c)), -EINVAL);
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme0c2", c, sizeof(c)), -EINVAL);
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme0c2n1x", c, sizeof(c)),
			 -EINVAL);
	assert_int_equal(sp_tl_nvme_ctrl_of("sda", c, sizeof(c)), -EINVAL);
	assert_int_equal(sp_tl_nvme_ctrl_of("", c, sizeof(c)), -EINVAL);
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme0c/../n1", c, sizeof(c)),
			 -EINVAL);
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme0c1234567n1", c, sizeof(c)),
			 -EINVAL);
	assert_int_equal(sp_tl_nvme_ctrl_of("nvme0c2n1", c, 5), -ENOSPC);
}

/* The head disk keeps no statistics on 6.1: with map_sums_paths its
 * row is the paths' sum, so the map's stall is measured; the TSV says
 * so. */
static void the_heads_row_is_the_paths_sum(void **state)
{
	static const char *const devs[] = { "nvme0c0n1", "nvme0c1n1",
					    "nvme0n1" };
	static const char ds[] =
		" 259 1 nvme0c0n1 10 0 80 10 5 0 40 7 2 20 15 0 0 0 0 0 0\n"
		" 259 2 nvme0c1n1 20 0 160 30 0 0 0 0 3 20 15 0 0 0 0 0 0\n"
		" 259 0 nvme0n1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	struct sp_timeline tl;
	char buf[1024];
	FILE *f;

	(void)state;
	assert_int_equal(sp_tl_init(&tl, devs, 3), 0);
	assert_int_equal(sp_tl_add_diskstats(&tl, 0, ds, NULL), 0);
	assert_int_equal(tl.s[2].ios, 0);	/* as the kernel says */
	tl.map_sums_paths = 1;
	assert_int_equal(sp_tl_add_diskstats(&tl, 100, ds, NULL), 0);
	assert_int_equal(tl.n, 6);
	assert_int_equal(tl.s[5].ios, 35);
	assert_int_equal(tl.s[5].sectors, 280);
	assert_int_equal(tl.s[5].in_flight, 5);
	assert_int_equal(tl.s[5].ticks_ms, 47);
	assert_int_equal(tl.s[5].state, '-');
	/* the paths' own rows untouched */
	assert_int_equal(tl.s[3].ios, 15);
	assert_int_equal(tl.s[4].ios, 20);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	assert_int_equal(sp_tl_write_tsv(f, &tl, NULL, 0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "# nvme0n1: the paths' sum"));
	sp_tl_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(states),
		cmocka_unit_test(controller_of_a_disk),
		cmocka_unit_test(the_heads_row_is_the_paths_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
