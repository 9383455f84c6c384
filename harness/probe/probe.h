/* slowpath's userspace iSCSI client: keeps qd commands outstanding on one
 * LUN through libiscsi and times each one from submit to completion. The
 * CLI (`slowpath probe`) is a thin wrapper; the harness calls probe_run()
 * directly. */
#ifndef SP_PROBE_H
#define SP_PROBE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/opttab.h"
#include "harness/probe/probe_lat.h"

enum probe_rw { PROBE_RANDREAD, PROBE_RANDWRITE, PROBE_READ, PROBE_WRITE };

struct probe_opts {
	const char *url;	/* iscsi://HOST[:PORT]/IQN/LUN */
	int64_t qd;
	int64_t ios;		/* stop after this many; 0: use time */
	int64_t time_ns;	/* stop submitting after this; 0: use ios */
	int rw;			/* enum probe_rw */
	uint64_t bs;
	uint64_t size;		/* bytes of the region; 0: LUN end - offset */
	uint64_t offset;	/* first byte of the region */
	int64_t pattern;	/* seed of the data written and verified */
	int verify;		/* reads: compare every block to the pattern */
	int64_t timeout_s;	/* per command and for login */
	int json;
	const char *initiator;
	/* CHAP: the user, and a file whose first line is the secret (a
	 * secret on the command line would be visible to every local
	 * user in /proc/PID/cmdline). Both or neither. */
	const char *chap_user;
	const char *chap_secret_file;
	/* Set asynchronously (SIGINT): stop submitting, drain, log out. */
	volatile sig_atomic_t *stop;
};

struct probe_result {
	uint32_t block_size;
	uint64_t capacity_bytes;
	uint64_t ios;		/* completed with GOOD status */
	uint64_t bytes;
	uint64_t errors;	/* completed with another status */
	uint64_t verify_mismatches;	/* I/Os whose data was not the pattern */
	uint64_t first_mismatch;	/* byte address of the first of them */
	uint64_t checksum;	/* order-independent sum over (lba, data) */
	int64_t elapsed_ns;	/* first submit to last completion */
	double iops;
	double mib_s;
	int interrupted;
	struct probe_lat_summary lat;
};

extern const struct sp_opt probe_opt_table[];
extern const char *const probe_rw_names[];

/* Defaults of probe_opt_table, plus what the table cannot express. */
int probe_opts_init(struct probe_opts *o);

/* Checks what does not depend on the LUN (bs, qd, alignment, ...).
 * 0 or -EINVAL with the reason in err. */
int probe_opts_validate(const struct probe_opts *o, char *err, size_t errlen);

/* The secret of --chap-secret-file: its first line, without the line
 * end. 0, or -errno with err naming the file: what sp_file_read says,
 * or -EINVAL for a secret that is empty, longer than len - 1 or holds
 * a blank or control character. */
#define PROBE_CHAP_SECRET_MAX 256
int probe_chap_secret_read(const char *path, char *secret, size_t len,
			   char *err, size_t errlen);

/* Logs in, runs the I/O, logs out. 0, or -EINVAL (bad URL or a region
 * outside the LUN, a bad CHAP secret), -ENOENT/-EACCES (the secret file
 * cannot be read), -ECONNREFUSED (cannot reach or log in), -EIO (a
 * command failed or the connection broke), -ENOMEM. Every failure is
 * reported once through the log hook; libiscsi's own chatter goes to
 * sp_debug. */
int probe_run(const struct probe_opts *o, struct probe_result *res);

#endif
