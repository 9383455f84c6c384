/* The real struct sp_cfs_ops: configfs and sysfs as root sees them. A
 * symlink that enables an nvmet port is made from inside the path's
 * network namespace (nvmet.h says why); the process goes back to its
 * own namespace at once, as netem/netem_nl.c does. */
#include "harness/bringup/nvmet.h"

#include "netem/netns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cfs_mkdir(void *ctx, const char *path)
{
	(void)ctx;
	return mkdir(path, 0755) ? -errno : 0;
}

static int cfs_rmdir(void *ctx, const char *path)
{
	(void)ctx;
	return rmdir(path) ? -errno : 0;
}

static int cfs_write(void *ctx, const char *path, const char *text)
{
	size_t n = strlen(text);
	ssize_t w;
	int fd, ret = 0;

	(void)ctx;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* configfs takes an attribute in one write */
	w = write(fd, text, n);
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != n)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int cfs_symlink(void *ctx, const char *netns, const char *target,
		       const char *linkpath)
{
	int saved, inner, ret = 0;

	(void)ctx;
	if (!netns || !netns[0])
		return symlink(target, linkpath) ? -errno : 0;
	inner = sp_netns_open(netns);
	if (inner < 0)
		return inner;
	saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (saved < 0 || setns(inner, CLONE_NEWNET)) {
		ret = -errno;
		if (saved >= 0)
			close(saved);
		close(inner);
		return ret;
	}
	if (symlink(target, linkpath))
		ret = -errno;
	/* back home; staying in the path's namespace would put every
	 * later step of up in the wrong one */
	if (setns(saved, CLONE_NEWNET) && !ret)
		ret = -errno;
	close(saved);
	close(inner);
	return ret;
}

static int cfs_unlink(void *ctx, const char *path)
{
	(void)ctx;
	return unlink(path) ? -errno : 0;
}

static int cfs_list_dir(void *ctx, const char *dir, char *buf, size_t len)
{
	struct dirent *e;
	size_t used = 0;
	DIR *d;
	int ret = 0;

	(void)ctx;
	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (used + n + 2 > len) {
			ret = -ENOSPC;
			break;
		}
		memcpy(buf + used, e->d_name, n);
		used += n;
		buf[used++] = '\n';
		buf[used] = '\0';
	}
	closedir(d);
	return ret;
}

const struct sp_cfs_ops sp_cfs_real = {
	.mkdir = cfs_mkdir,
	.rmdir = cfs_rmdir,
	.write = cfs_write,
	.symlink = cfs_symlink,
	.unlink = cfs_unlink,
	.list_dir = cfs_list_dir,
};
