/* slowpath run --jobs N --topology T: the cases dealt to N exact-time
 * lab guests side by side, merged into one result directory. */
#ifndef SP_CLI_RUN_JOBS_H
#define SP_CLI_RUN_JOBS_H

#include "harness/run/run_matrix.h"

/* cli is the parsed command line, argv the original one (its other
 * options go to each guest's `slowpath run`). An exit code. */
int sp_cli_run_jobs(const struct sp_run_cli *cli, int argc, char **argv);

#endif
