/* Named network namespaces as iproute2 keeps them: an empty file
 * /run/netns/NAME with a namespace bind-mounted on it, under a shared
 * /run/netns so every mount namespace sees the same names. */
#include "netem/net.h"
#include "netem/netns.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int sp_netns_path(const char *ns, char *path, size_t len)
{
	if (!ns || !*ns || strchr(ns, '/') || !strcmp(ns, ".") ||
	    !strcmp(ns, "..") || strlen(ns) > 200)
		return -EINVAL;
	snprintf(path, len, "%s/%s", SP_NETNS_DIR, ns);
	return 0;
}

int sp_netns_open(const char *ns)
{
	char path[PATH_MAX];
	int fd;

	if (sp_netns_path(ns, path, sizeof(path)))
		return -ESRCH;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

int sp_netns_enter(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	/* only the network namespace: tgtd needs no /sys of its own,
	 * which `ip netns exec` would also remount */
	ret = setns(fd, CLONE_NEWNET);
	close(fd);
	return ret ? -1 : 0;
}

/* SP_NETNS_DIR a shared mount point (bound on itself the first time),
 * so a name made here shows in every mount namespace, as ip does. */
static int shared_dir(void)
{
	int bound = 0;

	if (mkdir(SP_NETNS_DIR, 0755) && errno != EEXIST)
		return -errno;
	while (mount("", SP_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL)) {
		if (errno != EINVAL || bound)
			return -errno;
		if (mount(SP_NETNS_DIR, SP_NETNS_DIR, "none", MS_BIND | MS_REC,
			  NULL))
			return -errno;
		bound = 1;
	}
	return 0;
}

/* In a child, so this process never leaves its own namespace: a new
 * network namespace, bound on path. */
static int bind_new_netns(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		if (unshare(CLONE_NEWNET) ||
		    mount("/proc/self/ns/net", path, "none", MS_BIND, NULL))
			_exit(errno & 0x7f ? errno & 0x7f : 1);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EIO;
	return WEXITSTATUS(status) ? -WEXITSTATUS(status) : 0;
}

int sp_netns_add(void *ctx, const char *ns)
{
	char path[PATH_MAX];
	int fd, ret;

	(void)ctx;
	if ((ret = sp_netns_path(ns, path, sizeof(path))))
		return ret;
	if ((ret = shared_dir()))
		return ret;
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	ret = bind_new_netns(path);
	if (ret)
		unlink(path);
	return ret;
}

int sp_netns_del(void *ctx, const char *ns)
{
	char path[PATH_MAX];
	int ret;

	(void)ctx;
	if ((ret = sp_netns_path(ns, path, sizeof(path))))
		return ret;
	/* lazily: a process still in it keeps the namespace, not the name */
	umount2(path, MNT_DETACH);
	return unlink(path) ? -errno : 0;
}

int sp_netns_list(void *ctx, char *buf, size_t len)
{
	DIR *dir = opendir(SP_NETNS_DIR);
	struct dirent *e;
	size_t at = 0;

	(void)ctx;
	buf[0] = '\0';
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(dir)) && at < len)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			at += (size_t)snprintf(buf + at, len - at, "%s\n",
					       e->d_name);
	closedir(dir);
	return at < len ? 0 : -ENOSPC;
}

static int all_digits(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

int sp_netns_pids(void *ctx, const char *ns, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct stat want, st;
	struct dirent *e;
	size_t at = 0;
	DIR *proc;
	int ret;

	(void)ctx;
	if ((ret = sp_netns_path(ns, path, sizeof(path))))
		return ret;
	if (stat(path, &want))
		return -errno;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	buf[0] = '\0';
	while ((e = readdir(proc)) && at < len) {
		if (!all_digits(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
		if (!stat(path, &st) && st.st_dev == want.st_dev &&
		    st.st_ino == want.st_ino)
			at += (size_t)snprintf(buf + at, len - at, "%s\n",
					       e->d_name);
	}
	closedir(proc);
	return at < len ? 0 : -ENOSPC;
}
