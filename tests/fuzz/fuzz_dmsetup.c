/* Fuzz target: what dmsetup prints and slowpath reads back. The first
 * byte picks which: 0 a `dmsetup table` line (sp_dm_table_parse, then
 * built again); 1 a `dmsetup info -c` line (run's safety check); 2 for
 * `status`: a table line, then `dmsetup status` text, rendered the way
 * `multipath -ll` looks for the equal3 plan's three paths. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

#include "dm/dm_table.h"
#include "harness/bringup/bringup_status.h"
#include "tests/fuzz/equal3_plan.h"
#include "harness/run/run_matrix.h"

/* The equal3 plan with its disks found as sda, sdb, sdc. */
static const struct sp_state *with_disks(void)
{
	struct sp_state *st = equal3_plan();
	size_t i;

	for (i = 0; i < st->npaths; i++) {
		st->paths[i].has_disk = 1;
		st->paths[i].major = 8;
		st->paths[i].minor = (unsigned int)(16 * i);
		snprintf(st->paths[i].disk, sizeof(st->paths[i].disk), "sd%c",
			 (char)('a' + i));
	}
	st->complete = 1;
	return st;
}

static void status(char *text)
{
	static struct sp_status s;
	static char out[16384];
	char err[SP_DM_ERRLEN], *rest = fuzz_first_line(text);
	size_t i;

	memset(&s, 0, sizeof(s));
	s.st = with_disks();
	s.map_present = 1;
	snprintf(s.dm_name, sizeof(s.dm_name), "dm-0");
	for (i = 0; i < s.st->npaths; i++) {
		snprintf(s.paths[i].hctl, sizeof(s.paths[i].hctl), "2:0:0:1");
		snprintf(s.paths[i].dm_state, sizeof(s.paths[i].dm_state),
			 "undef");
		snprintf(s.paths[i].dev_state, sizeof(s.paths[i].dev_state),
			 "running");
	}
	s.has_table = sp_dm_table_parse(text, &s.table, err, sizeof(err)) == 0;
	sp_status_parse_dm(&s, rest);
	sp_status_render(&s, out, sizeof(out));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_dm_map map;
	static char buf[8192];
	char err[SP_DM_ERRLEN], name[128], uuid[128];
	unsigned int major, minor;
	char *text;

	if (size < 1)
		return 0;
	text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	switch (data[0] % 3) {
	case 0:
		if (sp_dm_table_parse(text, &map, err, sizeof(err)) == 0)
			sp_dm_table_build(&map, buf, sizeof(buf), err,
					  sizeof(err));
		break;
	case 1:
		if (sp_run_parse_dm_info(text, name, sizeof(name), uuid,
					 sizeof(uuid), &major, &minor) == 0)
			sp_run_map_is_ours(name, uuid, "slowpath-equal3",
					   "slowpath-equal3-3fa2", err,
					   sizeof(err));
		break;
	default:
		status(text);
		break;
	}
	free(text);
	return 0;
}
