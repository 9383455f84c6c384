/* The process runner (see proc.h). The child reports a failed set-up or
 * exec through a close-on-exec pipe, so "no such program" is an errno
 * from sp_proc_spawn, not an exit code to guess from. */
#include "common/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Placed fds go below this, our own copies above it. */
#define FD_HIGH 64
/* SP_PROC_CLOSE_FDS closes up to here: far above anything we open. */
#define FD_CLOSE_LIMIT 1024

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void sp_proc_init(struct sp_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->out_fd = p->err_fd = -1;
}

static void buf_reset(struct sp_proc_buf *b, size_t max)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
	b->max = max ? max : SP_PROC_CAPTURE_MAX;
}

/* Only async-signal-safe calls from here to the exec (bar putenv, and
 * we are single-threaded when we fork). */
static void child_fail(int report)
{
	int e = errno;
	ssize_t n;

	do
		n = write(report, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

static int is_placed(const struct sp_proc_opts *o, int fd)
{
	size_t i;

	for (i = 0; i < o->n_fds; i++)
		if (o->fds[i].to == fd)
			return 1;
	return 0;
}

/* What the child becomes once it is set up: a program (argv) or, for
 * sp_proc_fork, a function of ours. */
struct child_job {
	const char *const *argv;
	int (*fn)(void *arg);
	void *arg;
};

/* The child's process group or session, its death signal and its
 * signal dispositions, as the flags f say. */
static void child_group_and_signals(unsigned int f, pid_t parent, int report)
{
	sigset_t set;

	if (f & SP_PROC_SESSION) {
		if (setsid() < 0)
			child_fail(report);
	} else if (f & SP_PROC_PGROUP) {
		if (setpgid(0, 0))
			child_fail(report);
	}
	if (f & SP_PROC_PDEATHSIG) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* we died before the prctl took */
		if (getppid() != parent)
			_exit(127);
	}
	if (f & SP_PROC_DEFAULT_SIGNALS) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&set);
		sigprocmask(SIG_SETMASK, &set, NULL);
	}
	if (f & SP_PROC_BLOCK_SIGNALS) {
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
}

static void child(const struct child_job *job, const struct sp_proc_opts *o,
		  pid_t parent, int nullfd, int logfd, int out_w, int err_w,
		  int report)
{
	unsigned int f = o->flags;
	int from[16], fd, hi, first_report = report;
	const char *const *e;
	size_t i;

	/* out of the way of the fds we place */
	hi = fcntl(report, F_DUPFD_CLOEXEC, FD_HIGH);
	if (hi >= 0)
		report = hi;
	child_group_and_signals(f, parent, report);
	/* copies first, so no dup2 below lands on another's source */
	for (i = 0; i < o->n_fds; i++) {
		from[i] = fcntl(o->fds[i].from, F_DUPFD_CLOEXEC, FD_HIGH);
		if (from[i] < 0)
			child_fail(report);
	}
	if ((f & SP_PROC_STDIN_NULL) && dup2(nullfd, STDIN_FILENO) < 0)
		child_fail(report);
	fd = out_w >= 0 ? out_w : logfd >= 0 ? logfd :
	     (f & SP_PROC_STDOUT_NULL) ? nullfd : -1;
	if (fd >= 0 && dup2(fd, STDOUT_FILENO) < 0)
		child_fail(report);
	fd = err_w >= 0 ? err_w : logfd;
	if (fd >= 0 && dup2(fd, STDERR_FILENO) < 0)
		child_fail(report);
	for (i = 0; i < o->n_fds; i++)
		if (dup2(from[i], o->fds[i].to) < 0)
			child_fail(report);
	if (f & SP_PROC_CLOSE_FDS)
		for (fd = 3; fd < FD_CLOSE_LIMIT; fd++)
			if (fd != report && !is_placed(o, fd))
				close(fd);
	if (o->dir && chdir(o->dir))
		child_fail(report);
	if (o->child_setup && o->child_setup(o->setup_arg))
		child_fail(report);
	for (e = o->env; e && *e; e++)
		if (putenv((char *)*e))
			child_fail(report);
	if (job->fn) {
		/* set up: the EOF on report is the spawn's success, so both
		 * its copies go (no exec closes them here); the first only
		 * if no placed fd has taken its number since */
		close(report);
		if (first_report != report && first_report > STDERR_FILENO &&
		    !is_placed(o, first_report))
			close(first_report);
		fd = job->fn(job->arg);
		fflush(NULL);
		_exit(fd < 0 || fd > 255 ? 127 : fd);
	}
	execvp(job->argv[0], (char *const *)job->argv);
	child_fail(report);
}

static int start_child(struct sp_proc *p, const struct child_job *job,
		       const struct sp_proc_opts *o)
{
	static const struct sp_proc_opts none;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, rp[2] = { -1, -1 };
	int nullfd = -1, logfd = -1, ret = 0, err = 0, st;
	pid_t parent = getpid(), pid = -1;
	ssize_t n;

	if (!o)
		o = &none;
	if (p->pid > 0)
		return -EBUSY;
	if (o->n_fds > 16)
		return -EINVAL;
	close_fd(&p->out_fd);
	close_fd(&p->err_fd);
	buf_reset(&p->out, o->out_max);
	buf_reset(&p->err, o->err_max);
	p->status = p->signaled = 0;
	if ((o->flags & (SP_PROC_STDIN_NULL | SP_PROC_STDOUT_NULL)) &&
	    (nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	if (o->logfile) {
		logfd = open(o->logfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
		if (logfd < 0)
			ret = -errno;
	}
	if (!ret && (o->flags & SP_PROC_CAPTURE_OUT) && pipe2(po, O_CLOEXEC))
		ret = -errno;
	if (!ret && (o->flags & SP_PROC_CAPTURE_ERR) && pipe2(pe, O_CLOEXEC))
		ret = -errno;
	if (!ret && pipe2(rp, O_CLOEXEC))
		ret = -errno;
	if (!ret) {
		pid = fork();
		if (pid < 0)
			ret = -errno;
		else if (!pid)
			child(job, o, parent, nullfd, logfd, po[1], pe[1], rp[1]);
	}
	close_fd(&nullfd);
	close_fd(&logfd);
	close_fd(&po[1]);
	close_fd(&pe[1]);
	close_fd(&rp[1]);
	if (!ret) {
		/* EOF: the exec closed it; an int: the child's errno */
		do
			n = read(rp[0], &err, sizeof(err));
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)sizeof(err)) {
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			ret = err > 0 ? -err : -EIO;
		}
	}
	close_fd(&rp[0]);
	if (ret) {
		close_fd(&po[0]);
		close_fd(&pe[0]);
		return ret;
	}
	p->pid = pid;
	p->out_fd = po[0];
	p->err_fd = pe[0];
	return 0;
}

int sp_proc_spawn(struct sp_proc *p, const char *const *argv,
		  const struct sp_proc_opts *o)
{
	const struct child_job job = { .argv = argv };

	if (!argv || !argv[0])
		return -EINVAL;
	return start_child(p, &job, o);
}

int sp_proc_fork(struct sp_proc *p, int (*fn)(void *arg), void *arg,
		 const struct sp_proc_opts *o)
{
	const struct child_job job = { .fn = fn, .arg = arg };

	if (!fn)
		return -EINVAL;
	/* what we buffered is ours, not printed twice by the child */
	fflush(NULL);
	return start_child(p, &job, o);
}

/* 0 while the stream is open, 1 at its end, or -errno. */
static int buf_read(struct sp_proc_buf *b, int fd)
{
	char scratch[4096], *dst = scratch;
	size_t room = sizeof(scratch);
	ssize_t n;

	if (b->len < b->max) {
		if (b->cap - b->len < 2) {
			size_t cap = b->cap ? b->cap * 2 : 65536;
			char *np;

			if (cap > b->max + 1)
				cap = b->max + 1;
			np = realloc(b->p, cap);
			if (!np)
				return -ENOMEM;
			b->p = np;
			b->cap = cap;
		}
		dst = b->p + b->len;
		room = b->cap - b->len - 1;
	}
	n = read(fd, dst, room);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (!n)
		return 1;
	if (dst == scratch) {
		b->truncated = 1;
		return 0;
	}
	b->len += (size_t)n;
	b->p[b->len] = '\0';
	return 0;
}

int sp_proc_pump(struct sp_proc *p, int ms)
{
	int64_t deadline = ms >= 0 ? now_ms() + ms : 0;
	int ret, wait = -1;

	while (p->out_fd >= 0 || p->err_fd >= 0) {
		/* poll skips the negative fd of a stream already closed */
		struct pollfd fds[2] = { { p->out_fd, POLLIN, 0 },
					 { p->err_fd, POLLIN, 0 } };

		if (ms >= 0) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				return 0;
			wait = left > 60000 ? 60000 : (int)left;
		}
		if (poll(fds, 2, wait) < 0)
			return errno == EINTR ? -EINTR : -errno;
		if (fds[0].revents) {
			ret = buf_read(&p->out, p->out_fd);
			if (ret < 0)
				return ret;
			if (ret)
				close_fd(&p->out_fd);
		}
		if (fds[1].revents) {
			ret = buf_read(&p->err, p->err_fd);
			if (ret < 0)
				return ret;
			if (ret)
				close_fd(&p->err_fd);
		}
	}
	return 1;
}

static void set_status(struct sp_proc *p, int st, int *status)
{
	p->pid = -1;
	p->signaled = WIFSIGNALED(st);
	p->status = WIFEXITED(st) ? WEXITSTATUS(st)
				  : 128 + (p->signaled ? WTERMSIG(st) : 0);
	if (status)
		*status = p->status;
}

int sp_proc_wait(struct sp_proc *p, int *status)
{
	int st;

	if (p->pid <= 0)
		return -ECHILD;
	while (waitpid(p->pid, &st, 0) < 0)
		if (errno != EINTR) {
			p->pid = -1;
			return -errno;
		}
	set_status(p, st, status);
	return 0;
}

int sp_proc_try_wait(struct sp_proc *p, int *status)
{
	pid_t r;
	int st;

	if (p->pid <= 0)
		return -ECHILD;
	do
		r = waitpid(p->pid, &st, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		p->pid = -1;
		return -errno;
	}
	if (!r)
		return 0;
	set_status(p, st, status);
	return 1;
}

/* A child left in our group has no group of its own to signal, and
 * signalling ours would signal us: then the child alone. */
static void signal_group(pid_t pid, int sig)
{
	if (kill(-pid, sig) && errno == ESRCH)
		kill(pid, sig);
}

static int stop(pid_t pid, unsigned int grace_ms, int *wstatus)
{
	int64_t deadline = now_ms() + grace_ms;
	pid_t r;

	signal_group(pid, SIGTERM);
	for (;;) {
		r = waitpid(pid, wstatus, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (now_ms() >= deadline)
			break;
		sleep_ms(20);
	}
	signal_group(pid, SIGKILL);
	while (waitpid(pid, wstatus, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 1;
}

int sp_proc_kill_pid(pid_t pid, unsigned int grace_ms)
{
	int st;

	if (pid <= 0)
		return -EINVAL;
	return stop(pid, grace_ms, &st);
}

int sp_proc_kill_group(struct sp_proc *p, unsigned int grace_ms)
{
	int st = 0, ret;

	if (p->pid <= 0)
		return -ECHILD;
	ret = stop(p->pid, grace_ms, &st);
	if (ret >= 0)
		set_status(p, st, NULL);
	p->pid = -1;
	return ret;
}

static int run_to_end(struct sp_proc *p, unsigned int timeout_ms)
{
	int64_t deadline = timeout_ms ? now_ms() + timeout_ms : 0;
	int ret, left = -1;

	for (;;) {
		if (deadline) {
			left = (int)(deadline - now_ms());
			if (left <= 0)
				goto timeout;
		}
		ret = sp_proc_pump(p, left);
		if (ret == 1)
			break;
		if (ret < 0 && ret != -EINTR) {
			sp_proc_kill_group(p, SP_PROC_KILL_GRACE_MS);
			return ret;
		}
	}
	/* the streams are closed; the child may still be on its way out */
	if (!deadline)
		return sp_proc_wait(p, NULL);
	while (!(ret = sp_proc_try_wait(p, NULL))) {
		if (now_ms() >= deadline)
			goto timeout;
		sleep_ms(10);
	}
	return ret < 0 ? ret : 0;
timeout:
	sp_proc_kill_group(p, SP_PROC_KILL_GRACE_MS);
	return -ETIMEDOUT;
}

int sp_proc_run(struct sp_proc *p, const char *const *argv,
		const struct sp_proc_opts *o)
{
	sigset_t block, old;
	int blocked = o && (o->flags & SP_PROC_BLOCK_SIGNALS), ret;

	if (blocked) {
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigprocmask(SIG_BLOCK, &block, &old);
	}
	ret = sp_proc_spawn(p, argv, o);
	if (!ret)
		ret = run_to_end(p, o ? o->timeout_ms : 0);
	if (blocked)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

void sp_proc_release(struct sp_proc *p)
{
	if (p->pid > 0)
		sp_proc_kill_group(p, SP_PROC_KILL_GRACE_MS);
	close_fd(&p->out_fd);
	close_fd(&p->err_fd);
	buf_reset(&p->out, 0);
	buf_reset(&p->err, 0);
}

char *sp_proc_take(struct sp_proc_buf *b)
{
	char *s = b->p ? b->p : strdup("");
	size_t max = b->max;

	memset(b, 0, sizeof(*b));
	b->max = max;
	return s;
}

void sp_catch_stop_signals(void (*on_stop)(int sig))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
