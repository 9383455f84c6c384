/* What `slowpath run` does once its options are parsed: the matrix
 * checked, the topology that is up found and checked under the run's
 * lock (no down or selector set under our fio), every case through the
 * loop (run_loop.h) over the real effects (run_exec.h), the reports and
 * comparisons saved and printed, the progress line on a terminal. The
 * CLI calls it after its option table; reproduce's real effects call it
 * for their cases. */
#ifndef SP_RUN_DO_H
#define SP_RUN_DO_H

#include "harness/run/run_matrix.h"

/* The cases of cli (its table's defaults and what was given; never
 * --jobs, --kernels or --topology); ends_given: --size, --ios,
 * --runtime or --job was given (otherwise the lab's default runtime);
 * check_only: the plan and the job file checked, nothing run. An exit
 * code. */
int sp_do_run(struct sp_run_cli *cli, int ends_given, int check_only);

#endif
