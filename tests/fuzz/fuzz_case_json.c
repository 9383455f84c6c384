/* Fuzz target: a saved case (RUN/cases/NAME.json, which `report` and
 * `repro` read back) through sp_case_from_json, and the stem and JSON
 * written again from what it loaded. */
#include "tests/fuzz/fuzz.h"

#include "harness/measure/case_result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_case_result c;
	char stem[256], *json;
	char *text = fuzz_text(data, size);

	if (!text)
		return 0;
	if (sp_case_from_json(text, "fuzz.json", &c) == 0) {
		sp_case_stem(&c, stem, sizeof(stem));
		if (sp_case_to_json(&c, &json) == 0)
			free(json);
	}
	free(text);
	return 0;
}
