/* Fuzz target: the published reference TSV (harness/repro/data/, or a
 * file `repro --reference` names) through sp_ref_parse, and the numbers
 * `repro` derives from every case it loads. */
#include "tests/fuzz/fuzz.h"

#include "harness/repro/reference.h"

/* The published setups come from the topology files, as in `reproduce`;
 * they are not what is fuzzed, so read them once. */
static struct sp_ref_topologies setups;

static void load_setups(void)
{
	static int loaded;
	char err[256];

	if (loaded++)
		return;
	if (sp_ref_topologies_load("topologies", &setups, err, sizeof(err)))
		abort();	/* run from the source tree */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_reference ref = { 0 };
	struct sp_linfit fit;
	uint64_t ios[SP_REF_MAX_PATHS];
	double frac[SP_REF_MAX_PATHS], ms;
	uint64_t wms;
	int marked[SP_REF_MAX_PATHS];
	char *text = fuzz_text(data, size);
	size_t i, p;

	load_setups();
	if (!text)
		return 0;
	if (sp_ref_parse(text, "fuzz.tsv", &setups, &ref) == 0) {
		for (i = 0; i < ref.n_cases; i++) {
			const struct sp_ref_case *c = &ref.cases[i];

			sp_ref_ios(c, ios);
			sp_ref_shares(c, frac);
			sp_ref_case_slow_marks(c, marked);
			for (p = 0; p < c->n_paths; p++) {
				sp_ref_service_ms(c, p, &ms);
				sp_ref_write_ms_recovered(&ref, c, p, &wms);
			}
		}
		sp_ref_calibrate(&ref, &fit);
		sp_ref_free(&ref);
	}
	free(text);
	return 0;
}
