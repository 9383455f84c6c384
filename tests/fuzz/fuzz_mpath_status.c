/* Fuzz target: `dmsetup status` of the map as run's timeline reads it
 * at 10 Hz (sp_mpath_status_parse), then each path disk's state out of
 * it (sp_tl_path_states) and one tick added (sp_tl_add_diskstats). The
 * first line is the status; the rest is /proc/diskstats text, read for
 * the timeline of sda, sdb, sdc and the map dm-0. */
#include "tests/fuzz/fuzz.h"

#include "harness/measure/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const devs[] = { "sda", "sdb", "sdc", "dm-0" };
	struct sp_mpath_path mp[8];
	struct sp_timeline tl;
	struct sp_tl_path_view views[4];
	char *text = fuzz_text(data, size), *diskstats;
	size_t n, i;

	if (!text)
		return 0;
	diskstats = fuzz_first_line(text);
	if (sp_mpath_status_parse(text, mp, 8, &n) == 0) {
		if (n > 8)
			abort();
		if (sp_tl_init(&tl, devs, 4))
			abort();
		sp_tl_path_states(&tl, diskstats, mp, n, views);
		for (i = 0; i + 1 < tl.n_devs; i++)
			if ((views[i].state != SP_TL_ACTIVE &&
			     views[i].state != SP_TL_FAILED &&
			     views[i].state != SP_TL_UNKNOWN) ||
			    views[i].n_sel > SP_TL_MAX_SEL)
				abort();
		for (i = 0; i < n; i++)
			if (mp[i].n_sel > SP_TL_MAX_SEL)
				abort();
		sp_tl_add_diskstats(&tl, 100, diskstats, views);
		sp_tl_free(&tl);
	}
	free(text);
	return 0;
}
