/* slowpath run --kernels 6.1,6.12: the same cases in one lab boot per
 * kernel, merged into one result directory and reported side by side. */
#ifndef SP_CLI_RUN_KERNELS_H
#define SP_CLI_RUN_KERNELS_H

#include "harness/run/run_matrix.h"

/* cli is the parsed command line, argv the original one (its other
 * options go to each boot's `slowpath run`). An exit code. */
int sp_cli_run_kernels(const struct sp_run_cli *cli, int argc, char **argv);

#endif
