/* Fuzz target: the tgt delay store's option grammar, which runs inside
 * tgtd (root). The first byte picks the door: even, the bsopts string
 * given at LUN creation; odd, a line written to the LUN's ctl file at
 * run time. The rest is the text; a parse that succeeds is formatted
 * back the way the stats file shows it. */
#include "tests/fuzz/fuzz.h"

#include "tgt-backend/delay_opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct delay_opts o;
	enum delay_opts_scope scope;
	char err[256], out[1024];
	char *text;

	if (size < 1)
		return 0;
	scope = (data[0] & 1) ? DELAY_OPTS_RUNTIME : DELAY_OPTS_CREATE;
	text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	delay_opts_defaults(&o);
	if (delay_opts_parse(&o, text, scope, err, sizeof(err)) == 0)
		delay_opts_format(&o, out, sizeof(out));
	free(text);
	return 0;
}
