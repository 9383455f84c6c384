/* Fuzz target: a topology INI file (topologies/NAME.ini, or any path a
 * user names) through sp_topo_parse, and what `up` does next with a
 * file that parses: resolve the delays, the plan, each path's bsopts
 * (the store's grammar, formatted), the map. */
#include "tests/fuzz/fuzz.h"

#include "harness/bringup/bringup.h"
#include "topologies/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_topo topo;
	static struct sp_state st;
	struct sp_up_opts opts = { .tag = "3fa2" };
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	unsigned int majors[SP_TOPO_MAX_PATHS], minors[SP_TOPO_MAX_PATHS];
	struct sp_dm_map map;
	char err[SP_BRINGUP_ERRLEN], bs[512];
	char *text = fuzz_text(data, size);
	size_t i;

	if (!text)
		return 0;
	if (sp_topo_parse(text, "fuzz.ini", "fuzz", &topo, err,
			  sizeof(err)) == 0 &&
	    sp_topo_resolve(&topo, 0, r, err, sizeof(err)) == 0) {
		int planned = !sp_bringup_plan(&topo, &opts, &st, err, sizeof(err));

		for (i = 0; i < topo.npaths; i++) {
			if (planned && i < st.npaths)
				sp_bringup_bsopts(&st.paths[i], "/run/x", bs,
						  sizeof(bs));
			majors[i] = 8;
			minors[i] = (unsigned int)(16 * i);
		}
		sp_topo_dm_map(&topo, majors, minors, &map);
	}
	free(text);
	return 0;
}
