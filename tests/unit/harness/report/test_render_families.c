/* Both multipath families of an nvme-tcp run: each case records whose
 * selector it ran (round-robin is a name of both), a case file of
 * before the key says so by its map, and the report puts the families
 * side by side where a point has both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure/case_result.h"
#include "harness/report/render.h"
#include "harness/report/render_families.h"
#include "tests/unit/log_capture.h"
#include "tests/unit/harness/measure/case_fixture.h"

static int setup(void **state)
{
	(void)state;
	(void)filled_pair;	/* the fixture's, for other tests */
	setenv("SRCDIR", ".", 0);
	return 0;
}

/* the fixture's case as native NVMe multipath's iopolicy sel */
static void nvme_case(struct sp_case_result *c, const char *sel)
{
	filled_case(c, sel);
	strcpy(c->family, "nvme");
	strcpy(c->map.name, "nvme0n1");
}

static void family_round_trips_and_older_cases_say_it_by_map(void **state)
{
	struct sp_case_result c, back;
	char *text, *at;

	(void)state;
	nvme_case(&c, "round-robin");
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	assert_non_null(strstr(text, "\"selector_family\": \"nvme\""));
	assert_int_equal(sp_case_from_json(text, "t.json", &back), 0);
	assert_string_equal(back.family, "nvme");
	/* a case file of before the key: nvme0n1 is native's disk */
	at = strstr(text, "\"selector_family\": \"nvme\",");
	assert_non_null(at);
	memmove(at, at + strlen("\"selector_family\": \"nvme\","),
		strlen(at + strlen("\"selector_family\": \"nvme\",")) + 1);
	assert_int_equal(sp_case_from_json(text, "t.json", &back), 0);
	assert_string_equal(back.family, "nvme");
	free(text);
	filled_case(&c, "round-robin");	/* dm-0: dm's, said or not */
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	assert_non_null(strstr(text, "\"selector_family\": \"dm\""));
	free(text);
	/* a family slowpath has not is refused, named */
	strcpy(c.family, "nvme");
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	at = strstr(text, "\"nvme\"");
	memcpy(at, "\"scsi\"", 6);
	capture_start(SP_LOG_ERR);
	assert_int_equal(sp_case_from_json(text, "t.json", &back), -EINVAL);
	assert_non_null(strstr(last_err, "'scsi' is neither dm nor nvme"));
	free(text);
}

static void families_side_by_side_where_a_point_has_both(void **state)
{
	static struct sp_case_result c[4];
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	nvme_case(&c[0], "numa");
	nvme_case(&c[1], "round-robin");
	filled_case(&c[2], "service-time");
	strcpy(c[2].family, "dm");
	filled_case(&c[3], "service-time");	/* another point: dm alone */
	strcpy(c[3].family, "dm");
	c[3].iodepth = 32;
	assert_true(sp_case_families_mixed(c, 4));
	assert_false(sp_case_families_mixed(c + 2, 2));
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sp_render_families(f, SP_FMT_TEXT, c, 4), 0);
	fclose(f);
	assert_non_null(strstr(out, "selector  family  disk"));
	assert_non_null(strstr(out, " numa      nvme    nvme0n1 "));
	assert_non_null(strstr(out, " rr        nvme    nvme0n1 "));
	assert_non_null(strstr(out, " st        dm      dm-0 "));
	/* the point only dm ran is not a row */
	assert_null(strstr(out, " 32  "));
	free(out);
	out = NULL;
	/* the whole report has the section; a dm-only run has not */
	f = open_memstream(&out, &len);
	assert_int_equal(sp_render_report(f, SP_FMT_TEXT, c, 4, "service-time",
					  "historical-service-time"), 0);
	fclose(f);
	assert_non_null(strstr(out, "selector=round-robin (nvme iopolicy)"));
	assert_non_null(strstr(out, "both multipath families side by side"));
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	assert_int_equal(sp_render_report(f, SP_FMT_TEXT, c + 2, 2,
					  "service-time",
					  "historical-service-time"), 0);
	fclose(f);
	assert_null(strstr(out, "families"));
	assert_null(strstr(out, "iopolicy"));
	free(out);
	assert_int_equal(sp_render_families(stdout, SP_FMT_JSON, c, 4), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(family_round_trips_and_older_cases_say_it_by_map, setup),
		cmocka_unit_test_setup(families_side_by_side_where_a_point_has_both, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
