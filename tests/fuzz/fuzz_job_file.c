/* Fuzz target: a user's fio job file (`run --job FILE`), checked and
 * composed into the file fio runs as root. The first line is the map's
 * device as `run` would pass it; the rest is the job file. */
#include "tests/fuzz/fuzz.h"

#include "harness/run/run_fio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_run_plan plan;
	struct sp_run_case c = { .sel = SP_SEL_ST, .rw = "randread",
				 .bs = 4096, .iodepth = 32 };
	char err[SP_RUN_ERRLEN], *out = NULL;
	char *text = fuzz_text(data, size), *job;

	if (!text)
		return 0;
	job = fuzz_first_line(text);
	memset(&plan, 0, sizeof(plan));
	plan.numjobs = 1;
	plan.size_bytes = 500ULL << 20;
	plan.stop = SP_RUN_STOP_SIZE;
	sp_run_job_check(job, "fuzz.fio", text, err, sizeof(err));
	if (sp_run_job_compose(job, "fuzz.fio", &plan, &c, text, &out, err,
			       sizeof(err)) == 0)
		free(out);
	free(text);
	return 0;
}
