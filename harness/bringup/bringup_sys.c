/* The real struct sp_sys_ops: fork/exec with a time limit, daemons in
 * their own session, /proc for "is that pid still our tgtd". */
#include "harness/bringup/bringup.h"

#include "common/log.h"
#include "common/units.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* No tool we run needs longer; a hung iscsiadm must not hang `up`. */
#define RUN_TIMEOUT_MS 120000

static char last_stderr[2048];

static const char *real_last_error(void *ctx)
{
	(void)ctx;
	return last_stderr;
}

static void child_exec(const char *const *argv, int out_fd, int err_fd)
{
	int null = open("/dev/null", O_RDWR);

	if (null >= 0)
		dup2(null, 0);
	if (out_fd >= 0)
		dup2(out_fd, 1);
	else if (null >= 0)
		dup2(null, 1);
	dup2(err_fd, 2);
	/* dmsetup must not wait for a udev that is not there (the lab) */
	setenv("DM_DISABLE_UDEV", "1", 1);
	execvp(argv[0], (char *const *)argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void drain(int fd, char *buf, size_t len, size_t *used, int *open_)
{
	char scratch[4096];
	ssize_t n = read(fd, scratch, sizeof(scratch));

	if (n <= 0) {
		*open_ = 0;
		return;
	}
	if (buf && len > *used + 1) {
		size_t room = len - 1 - *used;
		size_t take = (size_t)n < room ? (size_t)n : room;

		memcpy(buf + *used, scratch, take);
		*used += take;
		buf[*used] = '\0';
	}
}

static int real_run(void *ctx, const char *const *argv, char *out,
		    size_t outlen)
{
	int po[2], pe[2], status, open_o = 1, open_e = 1;
	char errbuf[2048] = "";
	size_t used_o = 0, used_e = 0;
	int64_t deadline = sp_now_ns() + RUN_TIMEOUT_MS * SP_NSEC_PER_MSEC;
	pid_t pid;

	(void)ctx;
	if (out && outlen)
		out[0] = '\0';
	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		return e;
	}
	if (!pid)
		child_exec(argv, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);
	while (open_o || open_e) {
		struct pollfd fds[2] = { { po[0], POLLIN, 0 },
					 { pe[0], POLLIN, 0 } };
		int64_t left = (deadline - sp_now_ns()) / SP_NSEC_PER_MSEC;

		if (left <= 0) {
			sp_err("%s: no answer in %d s, killed", argv[0],
			       RUN_TIMEOUT_MS / 1000);
			kill(pid, SIGKILL);
			break;
		}
		fds[0].fd = open_o ? po[0] : -1;
		fds[1].fd = open_e ? pe[0] : -1;
		if (poll(fds, 2, (int)left) < 0 && errno != EINTR)
			break;
		if (fds[0].revents)
			drain(po[0], out, outlen, &used_o, &open_o);
		if (fds[1].revents)
			drain(pe[0], errbuf, sizeof(errbuf), &used_e, &open_e);
	}
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 &&
	    strstr(errbuf, "cannot run"))
		return -ENOENT;
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	{
		size_t n = strlen(errbuf);

		while (n && errbuf[n - 1] == '\n')
			errbuf[--n] = '\0';
	}
	snprintf(last_stderr, sizeof(last_stderr), "%s", errbuf);
	if (status && errbuf[0])
		sp_debug("%s: exit %d: %s", argv[0], status, errbuf);
	return status;
}

static int real_spawn(void *ctx, const char *const *argv,
		      const char *logfile, pid_t *out)
{
	pid_t pid;
	int fd;

	(void)ctx;
	fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd);
		return -errno;
	}
	if (!pid) {
		/* our own session: a Ctrl-C meant for `up` must not reach
		 * the daemon before `up` has logged out of it */
		setsid();
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		child_exec(argv, fd, fd);
	}
	close(fd);
	*out = pid;
	return 0;
}

static int real_kill(void *ctx, pid_t pid, int sig)
{
	(void)ctx;
	return kill(pid, sig) ? -errno : 0;
}

static int real_pid_is(void *ctx, pid_t pid, const char *comm)
{
	char path[64], buf[64] = "";
	FILE *f;
	int ret = 0;

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* "PID (comm) STATE": a zombie is as good as gone */
	if (fgets(buf, sizeof(buf), f)) {
		char *open_ = strchr(buf, '('), *close_ = strrchr(buf, ')');

		if (open_ && close_ && close_ > open_ &&
		    (size_t)(close_ - open_ - 1) == strlen(comm) &&
		    !strncmp(open_ + 1, comm, strlen(comm)) &&
		    close_[1] == ' ' && close_[2] != 'Z')
			ret = 1;
	}
	fclose(f);
	/* reap our own children so they do not linger as zombies */
	if (!ret)
		waitpid(pid, NULL, WNOHANG);
	return ret;
}

static int real_read_file(void *ctx, const char *path, char *buf,
			  size_t len)
{
	ssize_t n;
	size_t used = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	(void)ctx;
	if (fd < 0)
		return -errno;
	/* proc files come a page per read */
	while (used + 1 < len) {
		n = read(fd, buf + used, len - 1 - used);
		if (n < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (!n)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	return 0;
}

static int real_exists(void *ctx, const char *path)
{
	struct stat st;

	(void)ctx;
	return !lstat(path, &st);
}

static int real_readlink_base(void *ctx, const char *path, char *buf,
			      size_t len)
{
	char target[512];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *base;

	(void)ctx;
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
	return 0;
}

static int real_make_file(void *ctx, const char *path, uint64_t size,
			  int *created)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	(void)ctx;
	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (*created && ftruncate(fd, (off_t)size)) {
		int e = -errno;

		close(fd);
		unlink(path);
		*created = 0;
		return e;
	}
	close(fd);
	return 0;
}

static int real_unlink(void *ctx, const char *path)
{
	(void)ctx;
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

static int real_write_file(void *ctx, const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	(void)ctx;
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (close(fd))
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static void real_sleep_ms(void *ctx, unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	(void)ctx;
	nanosleep(&ts, NULL);
}

#define MAX_ARGS 40

int sp_sys_runv(const struct sp_sys_ops *ops, char *out, size_t outlen,
		const char *arg0, ...)
{
	const char *argv[MAX_ARGS];
	va_list ap;
	size_t n = 0;

	argv[n++] = arg0;
	va_start(ap, arg0);
	while (n < MAX_ARGS - 1 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return ops->run(ops->ctx, argv, out, outlen);
}

const struct sp_sys_ops sp_sys_real = {
	.run = real_run,
	.spawn = real_spawn,
	.kill = real_kill,
	.pid_is = real_pid_is,
	.read_file = real_read_file,
	.exists = real_exists,
	.readlink_base = real_readlink_base,
	.make_file = real_make_file,
	.unlink = real_unlink,
	.write_file = real_write_file,
	.sleep_ms = real_sleep_ms,
	.last_error = real_last_error,
	.dm_table_get = sp_sys_dm_table_get,
	.dm_reload = sp_sys_dm_reload,
	.netem = &sp_netem_nl_ops,
};
