/* What `slowpath up`, `down`, `delay set` and `run` do once their
 * options are parsed, as functions of numbers and lists: the
 * subcommands call them after their option tables, and reproduce's
 * real effects (repro_real.c) call them instead of a subcommand's
 * argv, so k stays a number and what is printed and written is the
 * same as the user's command. Each returns an sp_exit code. */
#ifndef SP_CMD_EFFECTS_H
#define SP_CMD_EFFECTS_H

#include <stdint.h>

#include "harness/run/run_matrix.h"

/* up's options, as its option table fills them. */
struct sp_cli_up {
	int selector, mechanism;
	int64_t unit_ns, base_weight, threshold_multiplier;
	int64_t tgtd_wait_s, disk_wait_s;
	int64_t scale;
	int calibrate;
	int64_t calib_base_ns, calib_rounds, calib_runtime_s;
	int64_t serial_base_ns;
};

/* up's defaults, as `slowpath up TOPOLOGY` with no option has them. */
void sp_cli_up_defaults(struct sp_cli_up *cli);
/* `slowpath up TOPOLOGY` (a name or a file) with cli's options. */
int sp_cli_up_run(const char *topology, const struct sp_cli_up *cli);
/* `slowpath down`. */
int sp_cli_down_run(void);
/* `slowpath delay set PATH` to rd (read) and wr (write; -1: as rd),
 * each already within SP_DELAY_MAX_NS. */
int sp_cli_delay_run(const char *path, int64_t rd_ns, int64_t wr_ns);
/* `slowpath run` of cli (its table's defaults and what was given;
 * never --jobs, --kernels or --topology); ends_given: --size, --ios,
 * --runtime or --job was given (otherwise the lab's default runtime). */
int sp_cli_run_cases(struct sp_run_cli *cli, int ends_given);

#endif
