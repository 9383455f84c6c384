/* Fuzz target: /proc/diskstats text (any kernel's field count). The
 * first line names the devices to pick, separated by blanks, as `run`
 * names its paths; the rest is the diskstats text. What is picked goes
 * through delta and summary the way a case's numbers do. */
#include "tests/fuzz/fuzz.h"

#include "harness/measure/diskstats.h"

#define MAX_NAMES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_diskstat out[MAX_NAMES], delta[MAX_NAMES];
	struct sp_path_summary sum[MAX_NAMES];
	const char *names[MAX_NAMES];
	char *text = fuzz_text(data, size), *rest, *save, *w;
	size_t n = 0;

	if (!text)
		return 0;
	rest = fuzz_first_line(text);
	for (w = strtok_r(text, " \t", &save); w && n < MAX_NAMES;
	     w = strtok_r(NULL, " \t", &save))
		names[n++] = w;
	if (n && sp_diskstats_select(rest, "diskstats", names, n, out) == 0 &&
	    sp_diskstats_delta(out, out, n, delta) == 0)
		sp_diskstats_summarise(delta, n, sum);
	free(text);
	return 0;
}
