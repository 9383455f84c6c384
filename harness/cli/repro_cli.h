/* What repro_cmd.c (`slowpath reproduce`) and repro_real.c (its real
 * effects) share inside cli/. */
#ifndef SP_REPRO_CLI_H
#define SP_REPRO_CLI_H

#include <stdint.h>

#include "harness/bringup/bringup_do.h"
#include "harness/repro/repro_ops.h"
#include "harness/repro/repro_plan.h"

struct repro_cli {
	const char *cases, *out, *unit, *data, *scale, *hst, *fit_skews;
	const char *builds;
	int64_t runtime_s, max_runtime_s, warmup_s, jobs, ios;
	int full, report_only, help;
};

/* The real effects: `up`, `delay set`, `run`, `down` as the user's
 * commands do them, and what reproduce says on stdout (repro_real.c). */
extern const struct sp_repro_ops sp_repro_real_ops;

/* The real ops' ctx: what every `up` of the reproduction is given
 * beyond the plan's (NULL ctx: nothing). */
struct sp_repro_real_ctx {
	const char *hst;	/* up --hst; NULL: stock */
};

/* `slowpath reproduce hst-bio-2022` (repro_bio_cmd.c): argv as
 * cmd_reproduce's, argv[1] the experiment. An sp_exit code. */
int sp_cmd_reproduce_bio(int argc, char **argv);

/* up's defaults, as `slowpath up TOPOLOGY` with no option has them
 * (its option table, bringup_cmd.c). */
void sp_cli_up_defaults(struct sp_up_args *a);

/* `slowpath reproduce nvme-latency-2025` (repro_nvme_cmd.c) */
int sp_cmd_reproduce_nvme(int argc, char **argv);

#endif
