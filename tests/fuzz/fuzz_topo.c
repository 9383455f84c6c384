/* Fuzz target: a topology INI file (topologies/NAME.ini, or any path a
 * user names) through sp_topo_parse, and what `up` does next with a
 * file that parses: resolve the delays, each path's bsopts, the map. */
#include "tests/fuzz/fuzz.h"

#include "topologies/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_topo topo;
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	unsigned int majors[SP_TOPO_MAX_PATHS], minors[SP_TOPO_MAX_PATHS];
	struct sp_dm_map map;
	char err[SP_TOPO_ERRLEN], bs[256];
	char *text = fuzz_text(data, size);
	size_t i;

	if (!text)
		return 0;
	if (sp_topo_parse(text, "fuzz.ini", "fuzz", &topo, err,
			  sizeof(err)) == 0 &&
	    sp_topo_resolve(&topo, 0, r, err, sizeof(err)) == 0) {
		for (i = 0; i < topo.npaths; i++) {
			sp_topo_bsopts(&r[i], bs, sizeof(bs));
			majors[i] = 8;
			minors[i] = (unsigned int)(16 * i);
		}
		sp_topo_dm_map(&topo, majors, minors, &map);
	}
	free(text);
	return 0;
}
