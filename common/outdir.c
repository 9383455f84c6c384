/* Output folders and the files in them: see outdir.h. */
#include "common/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static int make_parents(const char *path)
{
	char tmp[4096], *p;

	if (strlen(path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	strcpy(tmp, path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int is_empty(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int empty = 1;

	if (!d) {
		close(fd);
		return 0;
	}
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

int sp_outdir_check(const char *path, unsigned int flags, char *err,
		    size_t errlen)
{
	struct stat st;
	int fd, ret;

	if ((flags & SP_OUTDIR_CREATE) && lstat(path, &st) && errno == ENOENT &&
	    (ret = make_parents(path)))
		return fail(err, errlen, ret, "%s: cannot make it: %s", path,
			    strerror(-ret));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOTDIR && !lstat(path, &st) &&
	    S_ISLNK(st.st_mode))
		errno = ELOOP;
	if (fd < 0)
		return fail(err, errlen, -errno, "%s: %s", path,
			    errno == ELOOP ? "is a symbolic link; give the "
			    "folder itself" : errno == ENOTDIR ? "not a folder"
			    : strerror(errno));
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return fail(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		return fail(err, errlen, -EPERM, "%s: owned by uid %u, not by "
			    "us (uid %u): someone else could plant files in it",
			    path, (unsigned int)st.st_uid,
			    (unsigned int)geteuid());
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		close(fd);
		return fail(err, errlen, -EPERM, "%s: writable by group or "
			    "others (mode %04o): someone else could plant "
			    "files in it", path, (unsigned int)(st.st_mode & 07777));
	}
	if ((flags & SP_OUTDIR_EMPTY) && !is_empty(fd))
		return fail(err, errlen, -EEXIST, "%s is not empty; runs are "
			    "not mixed, choose another directory", path);
	if (!(flags & SP_OUTDIR_EMPTY))
		close(fd);
	return 0;
}

int sp_outdir_sub(const char *dir, const char *sub, char *buf, size_t len,
		  char *err, size_t errlen)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, sub) >= len)
		return fail(err, errlen, -ENAMETOOLONG, "%s/%s: too long",
			    dir, sub);
	if (mkdir(buf, 0755) && errno != EEXIST)
		return fail(err, errlen, -errno, "%s: %s", buf,
			    strerror(errno));
	return sp_outdir_check(buf, 0, err, errlen);
}

int sp_outdir_create(const char *path, mode_t mode)
{
	struct stat st;
	int fd;

	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return -EISDIR;
		/* a new inode, not the old one's links or mode */
		if (unlink(path) && errno != ENOENT)
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  mode);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

FILE *sp_outdir_fopen(const char *path)
{
	int fd = sp_outdir_create(path, 0644);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}
