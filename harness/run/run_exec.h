/* The real struct sp_run_ops: device-mapper (dm/dm_dev.c, also through
 * the bring-up's live selector reload), /proc/diskstats, fio as a child
 * process. */
#ifndef SP_RUN_EXEC_H
#define SP_RUN_EXEC_H

#include <stddef.h>
#include <sys/types.h>

#include "common/proc.h"
#include "harness/run/run_loop.h"
#include "harness/bringup/state.h"

struct sp_run_exec {
	struct sp_state *st;		/* the journal; reloads record in it */
	const char *state_dir;
	struct sp_proc fio;		/* its stdout, stderr so far */
	int fio_journaled;		/* "run fio" is the journal's last word */
};

void sp_run_exec_init(struct sp_run_exec *x, struct sp_state *st,
		      const char *state_dir, struct sp_run_ops *ops);
/* Stops a fio still running. */
void sp_run_exec_fini(struct sp_run_exec *x);

/* The real sp_run_ops.cpustat and env_info (run_machine.c): /proc/stat;
 * SLOWPATH_IN_LAB, /sys's HST, uname. */
int sp_run_real_cpustat(void *ctx, char **text);
void sp_run_real_env_info(void *ctx, struct sp_case_env *env);

/* The dm info of map (dm/dm_dev.h): its name, uuid and numbers as the kernel has
 * them. -ENOENT when there is no such map. */
int sp_run_dm_info(const char *map, char *name, size_t namelen, char *uuid,
		   size_t uuidlen, unsigned int *major, unsigned int *minor);

#endif
