/* The whole-file reader and the atomic writer (see file.h). */
#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int sp_file_read(const char *path, size_t max_bytes, char **buf, size_t *len)
{
	return sp_file_read_opt(path, max_bytes, 0, buf, len);
}

int sp_file_read_opt(const char *path, size_t max_bytes, unsigned int flags,
		     char **buf, size_t *len)
{
	size_t cap = 4096, used = 0;
	char *p = NULL;
	ssize_t got;
	int fd, ret = 0;

	*buf = NULL;
	if (len)
		*len = 0;
	if (max_bytes >= SIZE_MAX - 1)
		return -EINVAL;
	/* a FIFO where a regular file is wanted must not hang the open;
	 * O_NONBLOCK means nothing to a regular file */
	fd = open(path, O_RDONLY | O_CLOEXEC |
		  (flags & SP_FILE_NOFOLLOW ? O_NOFOLLOW : 0) |
		  (flags & SP_FILE_REGULAR ? O_NONBLOCK : 0));
	if (fd < 0)
		return -errno;
	if (flags & SP_FILE_REGULAR) {
		struct stat st;

		if (fstat(fd, &st)) {
			ret = -errno;
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			ret = -EINVAL;
			goto out;
		}
	}
	/* Room for one byte past max tells "exactly max" from "over max";
	 * used never passes max, so cap never needs to pass max + 2. */
	cap = max_bytes + 2 < cap ? max_bytes + 2 : cap;
	p = malloc(cap);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (used + 1 >= cap) {
			size_t want = cap > (max_bytes + 2) / 2 ? max_bytes + 2
							       : cap * 2;
			char *bigger = realloc(p, want);

			if (!bigger) {
				ret = -ENOMEM;
				goto out;
			}
			p = bigger;
			cap = want;
		}
		got = read(fd, p + used, cap - used - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			goto out;
		}
		if (!got)
			break;
		used += (size_t)got;
		if (used > max_bytes) {
			ret = -EFBIG;
			goto out;
		}
	}
	p[used] = '\0';
	*buf = p;
	p = NULL;
	if (len)
		*len = used;
out:
	free(p);
	close(fd);
	return ret;
}

int sp_file_read_prefix(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;
	int fd;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* proc files come a page per read */
	while (used + 1 < len) {
		n = read(fd, buf + used, len - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			close(fd);
			buf[used] = '\0';
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

int sp_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A rename is durable only once the directory entry is on disk too;
 * best effort, since some filesystems refuse fsync on a directory. */
static void sync_dir(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int sp_file_write_atomic(const char *path, const void *data, size_t len,
			 mode_t mode)
{
	return sp_file_write_atomic_opt(path, data, len, mode, 0);
}

int sp_file_write_atomic_opt(const char *path, const void *data, size_t len,
			     mode_t mode, unsigned int flags)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
	char tmp[4096];
	struct timespec ts;
	int fd = -1, ret, tries, n;

	for (tries = 0; tries < 100; tries++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n = snprintf(tmp, sizeof(tmp), "%.*s.%s.%ld.%lx.tmp",
			     (int)dirlen, path, path + dirlen, (long)getpid(),
			     (unsigned long)ts.tv_nsec ^ (unsigned long)tries);
		if (n < 0 || (size_t)n >= sizeof(tmp))
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return -errno;
	ret = fchmod(fd, mode) ? -errno : 0;
	if (!ret)
		ret = sp_write_all(fd, data, len);
	if (!ret && !(flags & SP_FILE_NOSYNC) && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && (flags & SP_FILE_NOREPLACE ?
		     renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) :
		     rename(tmp, path)))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	if (!(flags & SP_FILE_NOSYNC))
		sync_dir(path);
	return 0;
}
