/* Fuzz target: netem's words as `slowpath netem` and topology files give
 * them. The first byte picks the parser: 0 the whole word list
 * (whitespace-split, as a shell would hand them over) then formatted and
 * turned into a tc command; 1 one rate; 2 a tc .dist table. */
#include "tests/fuzz/fuzz.h"

#include "netem/netem.h"

#define MAX_WORDS 64

static void words(char *text)
{
	char *argv[MAX_WORDS + 1], *save, *w;
	struct sp_netem_spec spec;
	char err[SP_NETEM_ERRLEN], buf[512];
	int argc = 0;

	for (w = strtok_r(text, " \t\n", &save); w && argc < MAX_WORDS;
	     w = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (sp_netem_parse(argc, argv, &spec, err, sizeof(err)) == 0) {
		sp_netem_format(&spec, buf, sizeof(buf));
		sp_netem_tc_command("replace", "ns", "eth0", &spec, buf,
				    sizeof(buf));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int16_t table[256];
	uint64_t bps;
	size_t n;
	char *text;

	if (size < 1)
		return 0;
	text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	switch (data[0] % 3) {
	case 0:
		words(text);
		break;
	case 1:
		sp_netem_parse_rate(text, &bps);
		break;
	default:
		sp_netem_parse_dist(text, table, sizeof(table) / sizeof(table[0]),
				    &n);
		break;
	}
	free(text);
	return 0;
}
