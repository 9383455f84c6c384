/* Fuzz target: fio's stdout (JSON after any warning lines) through
 * sp_fio_parse, and the totals and cross-checks `run` takes from it. */
#include "tests/fuzz/fuzz.h"

#include "harness/measure/fio_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_fio_result r;
	char *text = fuzz_text(data, size);

	if (!text)
		return 0;
	memset(&r, 0, sizeof(r));
	if (sp_fio_parse(text, "fuzz.json", &r) == 0) {
		sp_fio_disk_find(&r, "dm-0");
		sp_fio_crosscheck(&r, "dm-0", 1000, 10, 0.05);
		sp_fio_crosscheck_total(&r, "dm-0", 1000, 10, 0.01);
		sp_fio_result_free(&r);
	}
	free(text);
	return 0;
}
