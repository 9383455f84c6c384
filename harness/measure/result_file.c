/* Result files read as regular files of their own (see result_file.h). */
#include "harness/measure/result_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder path's file is in, opened without following it: a
 * symlinked cases/ would let a file of its target be read. */
static int open_parent(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t n;
	int fd;

	if (!slash) {
		*base = path;
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	*base = slash + 1;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, n);
	dir[n] = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOTDIR) {
		struct stat st;

		/* a symlinked folder says ENOTDIR under O_DIRECTORY */
		if (!lstat(dir, &st) && S_ISLNK(st.st_mode))
			errno = ELOOP;
		else
			errno = ENOTDIR;
		return -1;
	}
	/* "/" or "a/": no name inside it left to open */
	if (fd >= 0 && !**base) {
		close(fd);
		errno = EISDIR;
		return -1;
	}
	return fd;
}

/* The open file checked before a byte of it is read. */
static int check_fd(int fd, size_t max)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* a hard link to a file elsewhere is as good as a symlink */
	if (st.st_nlink != 1)
		return -EMLINK;
	if ((uintmax_t)st.st_size > max)
		return -EFBIG;
	return 0;
}

static int read_fd(int fd, size_t max, char **text, size_t *len)
{
	size_t cap = max + 2, used = 0;
	char *p;
	ssize_t got;

	/* up to max + 1 bytes: a file that grew past max after fstat is
	 * told from one of exactly max */
	p = malloc(cap);
	if (!p)
		return -ENOMEM;
	for (;;) {
		got = read(fd, p + used, cap - 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(p);
			return -errno;
		}
		if (!got)
			break;
		used += (size_t)got;
		if (used > max) {
			free(p);
			return -EFBIG;
		}
	}
	p[used] = '\0';
	*text = p;
	if (len)
		*len = used;
	return 0;
}

int sp_result_file_read(const char *path, size_t max, char **text,
			size_t *len)
{
	const char *base;
	int dir_fd, fd, ret;

	*text = NULL;
	if (len)
		*len = 0;
	if (max >= SIZE_MAX - 2)
		return -EINVAL;
	dir_fd = open_parent(path, &base);
	if (dir_fd < 0)
		return -errno;
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused after */
	fd = openat(dir_fd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC | O_NOCTTY);
	ret = fd < 0 ? -errno : 0;
	close(dir_fd);
	if (ret)
		return ret;
	ret = check_fd(fd, max);
	if (!ret)
		ret = read_fd(fd, max, text, len);
	close(fd);
	return ret;
}

const char *sp_result_file_why(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link (or in a symlinked folder): not read; "
		       "a result file must be a regular file of its own";
	case -EINVAL:
		return "not a regular file (a FIFO, a device or a folder): not read";
	case -EMLINK:
		return "has other hard links: not read; a result file must be "
		       "a file of its own";
	case -EFBIG:
		return "too large for a result file: not read";
	default:
		return strerror(-err);
	}
}
