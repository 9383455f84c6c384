/* Fuzz target: a saved case (RUN/cases/NAME.json, which `report` and
 * `repro` read back) through sp_case_from_json, and the stem, each
 * path's plot tag and the JSON written again from what it loaded. */
#include "tests/fuzz/fuzz.h"

#include "harness/measure/case_result.h"
#include "harness/report/render_plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_case_result c;
	char stem[256], tag[64], *json;
	char *text = fuzz_text(data, size);
	size_t i;

	if (!text)
		return 0;
	if (sp_case_from_json(text, "fuzz.json", &c) == 0) {
		sp_case_stem(&c, stem, sizeof(stem));
		for (i = 0; i < c.n_paths; i++)
			sp_plot_path_tag(&c, i, c.slow[i], tag, sizeof(tag));
		if (sp_case_to_json(&c, &json) == 0)
			free(json);
	}
	free(text);
	return 0;
}
