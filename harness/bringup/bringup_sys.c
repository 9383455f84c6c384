/* The real struct sp_sys_ops: tools run to completion with a time limit
 * and daemons in their own session (both through common/proc), files,
 * /proc for "is that pid still our tgtd". */
#include "harness/bringup/bringup.h"
#include "harness/bringup/nvmet.h"
#include "harness/bringup/tgt_mgmt.h"

#include "common/file.h"
#include "common/log.h"
#include "common/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

/* a tool on libdevmapper (multipath) must not wait for a udev that is
 * not there (the lab) */
static const char *const tool_env[] = { "DM_DISABLE_UDEV=1", NULL };

static int real_run(void *ctx, const char *const *argv, char *out,
		    size_t outlen)
{
	struct sp_proc_opts o = {
		.flags = SP_PROC_STDIN_NULL | SP_PROC_STDOUT_NULL |
			 SP_PROC_CAPTURE_ERR | (out ? SP_PROC_CAPTURE_OUT : 0),
		.timeout_ms = RUN_TIMEOUT_MS,
		.out_max = outlen ? outlen - 1 : 1,
		.err_max = sizeof(last_stderr) - 1,
		.env = tool_env,
	};
	struct sp_proc p;
	int ret, status;
	size_t n;

	(void)ctx;
	if (out && outlen)
		out[0] = '\0';
	/* tgtd's socket in-process: no process started, no secret on an
	 * argv (tgt_mgmt.h) */
	ret = sp_tgt_mgmt_run(argv, out, outlen, last_stderr,
			      sizeof(last_stderr), RUN_TIMEOUT_MS);
	if (ret != -ENOTSUP) {
		if (ret && last_stderr[0])
			sp_debug("%s: exit %d: %s", argv[0], ret, last_stderr);
		return ret;
	}
	sp_proc_init(&p);
	ret = sp_proc_run(&p, argv, &o);
	if (ret == -ETIMEDOUT)
		sp_err("%s: no answer in %d s, killed", argv[0],
		       RUN_TIMEOUT_MS / 1000);
	else if (ret) {
		sp_proc_release(&p);
		return ret;
	}
	if (out && outlen && p.out.len)
		memcpy(out, p.out.p, p.out.len + 1);
	status = p.signaled || ret ? 128 : p.status;
	n = p.err.len;
	while (n && p.err.p[n - 1] == '\n')
		n--;
	snprintf(last_stderr, sizeof(last_stderr), "%.*s", (int)n,
		 n ? p.err.p : "");
	sp_proc_release(&p);
	if (status && last_stderr[0])
		sp_debug("%s: exit %d: %s", argv[0], status, last_stderr);
	return status;
}

/* In the child, before exec: into the daemon's namespace. */
static int enter_netns(void *path)
{
	return sp_netns_enter(path);
}

static int real_spawn(void *ctx, const char *netns, const char *const *argv,
		      const char *logfile, pid_t *out)
{
	char ns_path[300];
	/* our own session: a Ctrl-C meant for `up` must not reach the
	 * daemon before `up` has logged out of it */
	struct sp_proc_opts o = {
		.flags = SP_PROC_SESSION | SP_PROC_STDIN_NULL |
			 SP_PROC_DEFAULT_SIGNALS,
		.logfile = logfile,
		.env = tool_env,
		.child_setup = netns ? enter_netns : NULL,
		.setup_arg = ns_path,
	};
	struct sp_proc p;
	int ret;

	(void)ctx;
	if (netns && sp_netns_path(netns, ns_path, sizeof(ns_path)))
		return -EINVAL;
	sp_proc_init(&p);
	ret = sp_proc_spawn(&p, argv, &o);
	if (!ret)
		*out = p.pid;
	return ret;
}

static int real_kill(void *ctx, pid_t pid, int sig)
{
	(void)ctx;
	return kill(pid, sig) ? -errno : 0;
}

static int real_pid_is(void *ctx, pid_t pid, const char *comm)
{
	char path[64], buf[64];
	int ret = 0;

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (sp_file_read_prefix(path, buf, sizeof(buf)))
		return 0;
	/* "PID (comm) STATE": a zombie is as good as gone */
	{
		char *open_ = strchr(buf, '('), *close_ = strrchr(buf, ')');

		if (open_ && close_ && close_ > open_ &&
		    (size_t)(close_ - open_ - 1) == strlen(comm) &&
		    !strncmp(open_ + 1, comm, strlen(comm)) &&
		    close_[1] == ' ' && close_[2] != 'Z')
			ret = 1;
	}
	/* reap our own children so they do not linger as zombies */
	if (!ret)
		waitpid(pid, NULL, WNOHANG);
	return ret;
}

static int real_read_file(void *ctx, const char *path, char *buf,
			  size_t len)
{
	(void)ctx;
	return sp_file_read_prefix(path, buf, len);
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

/* The default folder is made here, 0700: backing files hold whatever
 * the tests wrote and nobody else needs to read them. */
static int make_parent(const char *path)
{
	char dir[4096], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* fio writes the backing file as root: never through a symlink, never
 * into a device or anything else that is not a plain file, and never
 * past the end of one too small for the topology. */
static int check_existing(const char *path, uint64_t size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if ((uint64_t)st.st_size < size)
		ret = -EFBIG;
	close(fd);
	return ret;
}

static int real_make_file(void *ctx, const char *path, uint64_t size,
			  int *created)
{
	int fd, ret;

	(void)ctx;
	*created = 0;
	ret = make_parent(path);
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return errno == EEXIST ? check_existing(path, size) : -errno;
	*created = 1;
	if (ftruncate(fd, (off_t)size)) {
		ret = -errno;
		close(fd);
		unlink(path);
		*created = 0;
		return ret;
	}
	close(fd);
	return 0;
}

static int real_free_bytes(void *ctx, const char *path, uint64_t *avail)
{
	char dir[4096], *slash;
	struct statvfs vfs;

	(void)ctx;
	snprintf(dir, sizeof(dir), "%s", path);
	/* the file and maybe its folder are not there yet */
	while (statvfs(dir, &vfs)) {
		if (errno != ENOENT || !(slash = strrchr(dir, '/')))
			return -errno;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	*avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
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

const char *sp_sys_error(const struct sp_sys_ops *ops)
{
	const char *e = ops->last_error ? ops->last_error(ops->ctx) : "";

	return e && *e ? e : "no message";
}

int sp_sys_failed(const struct sp_sys_ops *ops, int r, const char *what,
		  char *err, size_t errlen)
{
	if (r == -ENOENT) {
		snprintf(err, errlen, "%s: program not found", what);
		return -ENOENT;
	}
	snprintf(err, errlen, "%s failed (exit %d): %s", what, r,
		 sp_sys_error(ops));
	return -EIO;
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
	.free_bytes = real_free_bytes,
	.unlink = real_unlink,
	.write_file = real_write_file,
	.sleep_ms = real_sleep_ms,
	.last_error = real_last_error,
	.dm = &sp_dm_lib_ops,
	.netem = &sp_netem_nl_ops,
	.net = &sp_net_real,
	.cfs = &sp_cfs_real,
	.pid_info = sp_sys_pid_info,
	.file_ino = sp_sys_file_ino,
	.list_pids = sp_sys_list_pids,
	.list_files = sp_sys_list_files,
	.dev_users = sp_sys_dev_users,
};
