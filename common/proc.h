/* Child processes: the one place that forks and execs. Spawn with the
 * options below, read its captured output while it runs, reap it, stop
 * it and its process group. 0 or -errno; prints only through the log
 * hook (and today never does). */
#ifndef SP_PROC_H
#define SP_PROC_H

#include <stddef.h>
#include <sys/types.h>

enum {
	SP_PROC_STDIN_NULL	= 1 << 0,	/* stdin from /dev/null */
	/* stdout to /dev/null unless captured or logged */
	SP_PROC_STDOUT_NULL	= 1 << 1,
	SP_PROC_CAPTURE_OUT	= 1 << 2,	/* stdout into p->out */
	SP_PROC_CAPTURE_ERR	= 1 << 3,	/* stderr into p->err */
	/* its own process group: the terminal's Ctrl-C reaches only us,
	 * and a stop reaches whatever it started too */
	SP_PROC_PGROUP		= 1 << 4,
	/* its own session (a daemon): no terminal signals at all, and
	 * its own process group */
	SP_PROC_SESSION		= 1 << 5,
	/* SIGTERM to the child when we die, even by SIGKILL */
	SP_PROC_PDEATHSIG	= 1 << 6,
	/* SIGINT and SIGTERM back to their default action (we may be
	 * ignoring them) and an empty signal mask */
	SP_PROC_DEFAULT_SIGNALS	= 1 << 7,
	/* SIGINT, SIGTERM and SIGHUP blocked in the child, and in us while
	 * sp_proc_run waits: a Ctrl-C cannot cut the tool half way; it is
	 * delivered to us once the child is reaped */
	SP_PROC_BLOCK_SIGNALS	= 1 << 8,
	/* close every inherited fd but 0-2 and the opts' fds */
	SP_PROC_CLOSE_FDS	= 1 << 9,
};

/* Captured output is kept up to a bound, default SP_PROC_CAPTURE_MAX;
 * the child's further output is read and dropped (so it never blocks
 * on a full pipe), and truncated says so. */
#define SP_PROC_CAPTURE_MAX (16u << 20)

struct sp_proc_fd {
	int from, to;	/* our fd from becomes the child's fd to */
};

struct sp_proc_opts {
	unsigned int flags;		/* SP_PROC_* */
	unsigned int timeout_ms;	/* sp_proc_run only; 0: none */
	size_t out_max, err_max;	/* capture bounds; 0: the default */
	/* stdout and stderr both to this file, truncated first */
	const char *logfile;
	const char *dir;		/* the child's working directory */
	const char *const *env;		/* "NAME=value"s, NULL-terminated */
	const struct sp_proc_fd *fds;	/* fds handed on at fixed numbers */
	size_t n_fds;
	/* Run in the child last, just before the exec (after the fds are
	 * placed and dir is entered): a confinement the caller owns, such as
	 * the lab's sandbox. Returns 0, or -1 with errno set, which fails the
	 * spawn with that errno. Only async-signal-safe work. */
	int (*child_setup)(void *arg);
	void *setup_arg;
};

struct sp_proc_buf {
	char *p;		/* NUL-terminated; may be NULL while len is 0 */
	size_t len, cap, max;
	int truncated;
};

struct sp_proc {
	pid_t pid;		/* the child until reaped, else -1 */
	int out_fd, err_fd;	/* our ends of the capture pipes, or -1 */
	struct sp_proc_buf out, err;
	int status;		/* once reaped: exit code, or 128 + signal */
	int signaled;		/* once reaped: it died of a signal */
};

void sp_proc_init(struct sp_proc *p);

/* Starts argv[0] (looked up in PATH when it has no '/'). A child that
 * cannot be set up or exec'd is reaped here and its errno returned
 * (-ENOENT: no such program). p must be idle (sp_proc_init, or after
 * sp_proc_release); its buffers are emptied. */
int sp_proc_spawn(struct sp_proc *p, const char *const *argv,
		  const struct sp_proc_opts *o);

/* The same set-up, but the child runs fn(arg) instead of a program and
 * exits with what it returns (0..255; anything else 127): work of ours
 * that must be a process of its own (its own process group, log file,
 * death signal), without our binary calling itself through an argv.
 * Only for a single-threaded caller; stdio is flushed before the fork. */
int sp_proc_fork(struct sp_proc *p, int (*fn)(void *arg), void *arg,
		 const struct sp_proc_opts *o);

/* Reads the captured streams for up to ms milliseconds (-1: no limit).
 * 1 once both streams are closed, 0 when the time is up, -EINTR when a
 * signal arrived (the caller decides whether that matters), -errno. */
int sp_proc_pump(struct sp_proc *p, int ms);

/* Reaps the child (blocking; retries on EINTR): 0 with p->status, or
 * -errno. status may be NULL. */
int sp_proc_wait(struct sp_proc *p, int *status);
/* 1 and reaped, 0 still running, or -errno. */
int sp_proc_try_wait(struct sp_proc *p, int *status);

/* SIGTERM to pid's process group when it leads one, else to pid; up to
 * grace_ms for it to exit, then SIGKILL; reaps pid. 0 when TERM was
 * enough, 1 when it took KILL, -errno. */
int sp_proc_kill_pid(pid_t pid, unsigned int grace_ms);
/* The same for p's child; p->pid is -1 after. */
int sp_proc_kill_group(struct sp_proc *p, unsigned int grace_ms);

/* Spawn, capture until the child closes its streams, reap. With a
 * timeout_ms, a child still running then is stopped (sp_proc_kill_group,
 * SP_PROC_KILL_GRACE_MS) and -ETIMEDOUT returned. 0 with p->status and
 * p->out / p->err, or -errno; sp_proc_release(p) after either. */
#define SP_PROC_KILL_GRACE_MS 2000
int sp_proc_run(struct sp_proc *p, const char *const *argv,
		const struct sp_proc_opts *o);

/* Stops a child still running, closes the pipes, frees the buffers. */
void sp_proc_release(struct sp_proc *p);

/* Hands the captured text over: the caller frees it; never NULL unless
 * out of memory. p's buffer is empty after. */
char *sp_proc_take(struct sp_proc_buf *b);

/* SIGINT, SIGTERM and SIGHUP to on_stop, without SA_RESTART: a command
 * waiting on a child, a poll or a sleep wakes to stop and tear down what
 * it set up. */
void sp_catch_stop_signals(void (*on_stop)(int sig));

#endif
