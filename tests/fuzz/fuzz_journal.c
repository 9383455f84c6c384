/* Fuzz target: slowpath's journal (/run/slowpath/state), replayed by
 * every command after `up`; a file root reads that anyone who could
 * write there could shape. Whatever replays is formatted again. */
#include "tests/fuzz/fuzz.h"

#include "harness/bringup/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_state st;
	char err[SP_STATE_ERRLEN], buf[2048];
	char *text = fuzz_text(data, size);
	size_t i;

	if (!text)
		return 0;
	if (sp_state_parse(text, &st, err, sizeof(err)) == 0) {
		sp_state_fmt_header(&st, buf, sizeof(buf));
		sp_state_fmt_selector(&st.sel, buf, sizeof(buf));
		for (i = 0; i < st.npaths; i++) {
			sp_state_fmt_path(&st.paths[i], buf, sizeof(buf));
			sp_state_fmt_delay(&st.paths[i], buf, sizeof(buf));
		}
	}
	free(text);
	return 0;
}
