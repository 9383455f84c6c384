/* The effects behind `slowpath run`: the live selector reload (through
 * the bring-up's journaled sp_bringup_selector_set), /proc/diskstats,
 * and fio as a child in its own process group, so the terminal's
 * Ctrl-C reaches only us and we decide how fio stops. */
#include "harness/run/run_exec.h"

#include "common/log.h"
#include "common/units.h"
#include "harness/bringup/bringup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int buf_read(struct sp_run_buf *b, int fd)
{
	ssize_t n;

	if (b->cap - b->len < 4096) {
		size_t cap = b->cap ? b->cap * 2 : 65536;
		char *np = realloc(b->p, cap);

		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	n = read(fd, b->p + b->len, b->cap - b->len - 1);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	b->len += (size_t)n;
	b->p[b->len] = '\0';
	return n > 0;
}

/* Blocks SIGINT and SIGTERM during the reload (in process through
 * libdevmapper as sp_sys_real can): a child (modprobe, or dmsetup on
 * the fallback path) inherits the mask, so a Ctrl-C cannot kill a
 * `dmsetup suspend` half way; the signal reaches our handler when the
 * reload is over. */
static int exec_selector_set(void *ctx, const struct sp_dm_selector *sel)
{
	struct sp_run_exec *x = ctx;
	char err[SP_BRINGUP_ERRLEN];
	sigset_t block, old;
	int ret;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	ret = sp_bringup_selector_set(&sp_sys_real, x->st, sel, x->state_dir,
				      err, sizeof(err));
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret)
		sp_err("selector %s: %s", sp_selector_short_name(sel->kind), err);
	return ret;
}

static int exec_diskstats(void *ctx, char **text)
{
	(void)ctx;
	return sp_read_text_file("/proc/diskstats", text, NULL);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int exec_fio_start(void *ctx, const char *const *argv)
{
	struct sp_run_exec *x = ctx;
	int po[2], pe[2];
	pid_t parent = getpid();

	if (x->pid > 0)
		return -EBUSY;
	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -errno;
	}
	x->pid = fork();
	if (x->pid < 0) {
		int e = -errno;

		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		return e;
	}
	if (!x->pid) {
		sigset_t none;

		setpgid(0, 0);
		/* fio must not outlive a SIGKILLed run */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	setpgid(x->pid, x->pid);	/* either side may win the race */
	close(po[1]);
	close(pe[1]);
	x->out_fd = po[0];
	x->err_fd = pe[0];
	free(x->out.p);
	free(x->err.p);
	memset(&x->out, 0, sizeof(x->out));
	memset(&x->err, 0, sizeof(x->err));
	return 0;
}

static int reap(struct sp_run_exec *x, int *status)
{
	int st;

	while (waitpid(x->pid, &st, 0) < 0)
		if (errno != EINTR) {
			x->pid = -1;
			return -errno;
		}
	x->pid = -1;
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st)
					: 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return 0;
}

static int exec_fio_wait(void *ctx, unsigned int ms, int *status, char **out,
			 char **errout)
{
	struct sp_run_exec *x = ctx;
	int64_t deadline = sp_now_ns() + (int64_t)ms * SP_NSEC_PER_MSEC;
	int ret;

	if (x->pid <= 0)
		return -ECHILD;
	while (x->out_fd >= 0 || x->err_fd >= 0) {
		struct pollfd fds[2] = { { x->out_fd, POLLIN, 0 },
					 { x->err_fd, POLLIN, 0 } };
		int64_t left = (deadline - sp_now_ns()) / SP_NSEC_PER_MSEC;

		if (left <= 0)
			return 0;
		if (poll(fds, 2, (int)left) < 0) {
			if (errno == EINTR)
				return 0;	/* let the loop see the signal */
			return -errno;
		}
		if (fds[0].revents) {
			ret = buf_read(&x->out, x->out_fd);
			if (ret < 0)
				return ret;
			if (!ret)
				close_fd(&x->out_fd);
		}
		if (fds[1].revents) {
			ret = buf_read(&x->err, x->err_fd);
			if (ret < 0)
				return ret;
			if (!ret)
				close_fd(&x->err_fd);
		}
	}
	ret = reap(x, status);
	if (ret)
		return ret;
	*out = x->out.p ? x->out.p : strdup("");
	*errout = x->err.p ? x->err.p : strdup("");
	memset(&x->out, 0, sizeof(x->out));
	memset(&x->err, 0, sizeof(x->err));
	return 1;
}

static void exec_fio_stop(void *ctx)
{
	struct sp_run_exec *x = ctx;
	int i, st;

	if (x->pid <= 0)
		return;
	/* fio finishes its jobs on TERM; KILL if it will not */
	kill(-x->pid, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (waitpid(x->pid, &st, WNOHANG) == x->pid) {
			x->pid = -1;
			break;
		}
		usleep(50000);
	}
	if (x->pid > 0) {
		sp_warn("fio did not stop in 5 s; killing it");
		kill(-x->pid, SIGKILL);
		reap(x, NULL);
	}
	close_fd(&x->out_fd);
	close_fd(&x->err_fd);
	free(x->out.p);
	free(x->err.p);
	memset(&x->out, 0, sizeof(x->out));
	memset(&x->err, 0, sizeof(x->err));
}

static int64_t exec_now(void *ctx)
{
	(void)ctx;
	return sp_now_ns();
}

void sp_run_exec_init(struct sp_run_exec *x, struct sp_state *st,
		      const char *state_dir, struct sp_run_ops *ops)
{
	memset(x, 0, sizeof(*x));
	x->st = st;
	x->state_dir = state_dir;
	x->pid = -1;
	x->out_fd = x->err_fd = -1;
	ops->selector_set = exec_selector_set;
	ops->diskstats = exec_diskstats;
	ops->fio_start = exec_fio_start;
	ops->fio_wait = exec_fio_wait;
	ops->fio_stop = exec_fio_stop;
	ops->now_ns = exec_now;
	ops->ctx = x;
}

void sp_run_exec_fini(struct sp_run_exec *x)
{
	exec_fio_stop(x);
}

int sp_run_dm_info(const char *map, char *name, size_t namelen, char *uuid,
		   size_t uuidlen, unsigned int *major, unsigned int *minor)
{
	const char *argv[] = { "dmsetup", "info", "-c", "--noheadings",
			       "--separator", "|", "-o",
			       "name,uuid,major,minor", map, NULL };
	char out[1024];
	int ret = sp_sys_real.run(sp_sys_real.ctx, argv, out, sizeof(out));

	if (ret < 0) {
		sp_err("cannot run dmsetup: %s", strerror(-ret));
		return ret == -ENOENT ? -ENOEXEC : ret;
	}
	if (ret) {
		const char *e = sp_sys_real.last_error(sp_sys_real.ctx);

		sp_err("dmsetup info %s: %s", map, e && *e ? e : "failed");
		return -ENOENT;
	}
	if (sp_run_parse_dm_info(out, name, namelen, uuid, uuidlen, major,
				 minor)) {
		sp_err("dmsetup info %s: cannot read '%s'", map, out);
		return -EINVAL;
	}
	return 0;
}
