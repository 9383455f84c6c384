/* What repro_cmd.c (`slowpath reproduce`), repro_jobs.c (its --jobs)
 * and repro_real.c (its real effects) share inside cli/. */
#ifndef SP_REPRO_CLI_H
#define SP_REPRO_CLI_H

#include <stdint.h>

#include "harness/repro/repro_ops.h"
#include "harness/repro/repro_plan.h"

struct repro_cli {
	const char *cases, *out, *unit, *data, *scale;
	int64_t runtime_s, max_runtime_s, warmup_s, jobs;
	int full, report_only, help;
};

/* The real effects: `up`, `delay set`, `run`, `down` as the user's
 * commands do them, and what reproduce says on stdout (repro_real.c). */
extern const struct sp_repro_ops sp_repro_real_ops;

/* reproduce --jobs N from a host without the kernel stack: the plan in
 * N exact-time guests side by side, their runs gathered under OUT/runs
 * (repro_jobs.c). 0, -EIO when a guest failed, or -errno. */
int repro_jobs(const char *experiment, const struct repro_cli *cli,
	       const struct sp_repro_plan *plan, const char *out, int64_t n_jobs);

#endif
