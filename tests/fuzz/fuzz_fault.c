/* Fuzz target: the fault spec grammar (`slowpath fault`'s words and
 * `run --fault`'s specs, both from a root user's command line). A spec
 * that parses must format, and the formatted text must parse back to
 * the same fault; anything else aborts. */
#include "tests/fuzz/fuzz.h"

#include "harness/fault/fault.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_fault f, back;
	char err[256], out[600];
	char *text = fuzz_text(data, size);

	if (!text)
		return 0;
	if (sp_fault_parse(text, &f, err, sizeof(err)) == 0) {
		if (sp_fault_format(&f, out, sizeof(out)) ||
		    sp_fault_parse(out, &back, err, sizeof(err)) ||
		    memcmp(&f, &back, sizeof(f)))
			abort();
	}
	free(text);
	return 0;
}
