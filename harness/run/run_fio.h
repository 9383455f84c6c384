/* The fio command line of one case, and the checks on a user's --job
 * file: whatever it says, fio only ever touches the map. Pure. */
#ifndef SP_RUN_FIO_H
#define SP_RUN_FIO_H

#include <stddef.h>

#include "harness/run/run_matrix.h"

#define SP_RUN_ARGV_MAX 24
/* --verify: fio re-reads a written block after this many more writes */
#define SP_RUN_VERIFY_BACKLOG 1024
#define SP_RUN_ARGV_BUF 2048

struct sp_run_argv {
	const char *argv[SP_RUN_ARGV_MAX];	/* NULL-terminated */
	size_t argc;
	char buf[SP_RUN_ARGV_BUF];
};

/* The reference command line (libaio, direct, one named job on device)
 * with the case's rw, bs, iodepth and the plan's numjobs and stop rule;
 * or, when job_path is set, fio on that composed job file. JSON on
 * stdout either way. 0 or -ENOSPC. */
int sp_run_fio_argv(const struct sp_run_plan *plan,
		    const struct sp_run_case *c, const char *device,
		    const char *job_path, struct sp_run_argv *out);

/* fio's ignore_error= for a run that counts errors: every errno the
 * block layer gives a failed I/O, for reads, writes and verify. */
const char *sp_run_ignore_errors(void);

/* A user's job file, checked once before the run: any filename= that
 * is not device, and any option that would reach past the map or the
 * matrix (directory, include, exec_*, rw, bs, iodepth, numjobs ...),
 * is -EINVAL with err "FILE:LINE: why". */
int sp_run_job_check(const char *text, const char *origin,
		     const char *device, char *err, size_t errlen);

/* The job fio runs for one case: a [global] section with the map as
 * filename, the case's point of the matrix and the stop rule, then the
 * user's file without its filename= lines, then a job section when the
 * file has none. *out is malloc'd. 0, -EINVAL (the check) or -ENOMEM. */
int sp_run_job_compose(const char *text, const char *origin,
		       const struct sp_run_plan *plan,
		       const struct sp_run_case *c, const char *device,
		       char **out, char *err, size_t errlen);

#endif
