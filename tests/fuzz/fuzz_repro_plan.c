/* Fuzz target: `slowpath repro --cases SPEC` through sp_repro_plan_parse,
 * and the per-topology lists `repro` hands to `run` from a plan. */
#include "tests/fuzz/fuzz.h"

#include "harness/repro/repro_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_repro_plan plan;
	char err[256], buf[128];
	char *text = fuzz_text(data, size);
	size_t t;
	int rw;

	if (!text)
		return 0;
	if (sp_repro_plan_parse(text, &plan, err, sizeof(err)) == 0) {
		sp_repro_plan_points(&plan);
		for (t = 0; t < SP_REPRO_N_TOPOS; t++) {
			if (!sp_repro_plan_has_topology(&plan, t))
				continue;
			for (rw = 0; rw < SP_REF_N_RW; rw++)
				sp_repro_plan_iodepths(&plan, t,
						       (enum sp_ref_rw)rw, buf,
						       sizeof(buf));
		}
	}
	free(text);
	return 0;
}
