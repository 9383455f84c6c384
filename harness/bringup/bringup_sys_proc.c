/* The /proc and /sys side of struct sp_sys_ops: which process a PID is
 * now (stat, ns/net), every PID, the regular files of a directory
 * without following links, and who holds a block device open. */
#include "harness/bringup/bringup.h"

#include "common/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

int sp_sys_pid_info(void *ctx, pid_t pid, struct sp_pid_info *pi)
{
	char path[64], buf[1024];
	struct stat sb;

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (sp_file_read_prefix(path, buf, sizeof(buf)))
		return -ENOENT;
	if (sp_pid_stat_parse(buf, pi))
		return -EINVAL;
	/* reap our own children so they do not linger as zombies */
	if (pi->state == 'Z')
		waitpid(pid, NULL, WNOHANG);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	pi->netns = stat(path, &sb) ? 0 : (unsigned long long)sb.st_ino;
	return 0;
}

int sp_sys_file_ino(void *ctx, const char *path, unsigned long long *ino)
{
	struct stat sb;

	(void)ctx;
	if (stat(path, &sb))
		return -errno;
	*ino = (unsigned long long)sb.st_ino;
	return 0;
}

static int is_pid(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int sp_sys_list_pids(void *ctx, pid_t *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	(void)ctx;
	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max)
		if (is_pid(e->d_name))
			pids[n++] = (pid_t)atoi(e->d_name);
	closedir(d);
	return (int)n;
}

static void add_line(char *buf, size_t len, const char *fmt, const char *a,
		     const char *b)
{
	size_t n = strlen(buf);

	if (n < len)
		snprintf(buf + n, len - n, fmt, a, b);
}

int sp_sys_list_files(void *ctx, const char *dir, char *buf, size_t len)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	struct stat sb;
	DIR *d;

	(void)ctx;
	if (len)
		buf[0] = '\0';
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((e = readdir(d)))
		if (!fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(sb.st_mode))
			add_line(buf, len, "%s%s\n", e->d_name, "");
	closedir(d);
	return 0;
}

/* The fds of one process that are the device. */
static void fd_users(pid_t pid, dev_t dev, char *buf, size_t len)
{
	char path[64], comm[64] = "", pidtxt[16];
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		/* the link's target, as the process opened it */
		if (e->d_name[0] == '.' || fstatat(fd, e->d_name, &sb, 0) ||
		    !S_ISBLK(sb.st_mode) || sb.st_rdev != dev)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (sp_file_read_prefix(path, comm, sizeof(comm)))
			snprintf(comm, sizeof(comm), "?");
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(pidtxt, sizeof(pidtxt), "%d", (int)pid);
		add_line(buf, len, "%s %s\n", pidtxt, comm);
		break;
	}
	closedir(d);
}

int sp_sys_dev_users(void *ctx, unsigned int major, unsigned int minor,
		     char *buf, size_t len)
{
	char path[96];
	pid_t pids[8192];
	struct dirent *e;
	DIR *d;
	int i, n;

	if (len)
		buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders", major,
		 minor);
	d = opendir(path);
	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				add_line(buf, len, "holder %s%s\n", e->d_name,
					 "");
		closedir(d);
	}
	n = sp_sys_list_pids(ctx, pids, sizeof(pids) / sizeof(pids[0]));
	for (i = 0; i < n; i++)
		if (pids[i] != getpid())
			fd_users(pids[i], makedev(major, minor), buf, len);
	return n < 0 ? n : 0;
}
