/* Output folders and the files in them: see outdir.h. */
#include "common/outdir.h"

#include <dirent.h>
#include <limits.h>
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

int sp_outdir_fd_empty(int fd)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *e;
	int empty = 1;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* dir/name into dir (a canonical absolute path, "/" at least). */
static int path_join(char *dir, size_t len, const char *name, size_t n)
{
	size_t used = strlen(dir);

	if (used + 1 + n >= len)
		return -ENAMETOOLONG;
	if (used > 1)
		dir[used++] = '/';
	memcpy(dir + used, name, n);
	dir[used + n] = '\0';
	return 0;
}

/* One folder on the way: anyone but root or us who could change it could
 * swap what comes after it for a link between our check and our write.
 * A sticky folder (/tmp) is fine: nobody may rename what we own there. */
static int ancestor_ok(const char *dir, const struct stat *st, char *err,
		       size_t errlen)
{
	if (!S_ISDIR(st->st_mode))
		return fail(err, errlen, -ENOTDIR, "%s: not a folder", dir);
	if (st->st_uid && st->st_uid != geteuid())
		return fail(err, errlen, -EPERM, "%s (on the way) is owned by "
			    "uid %u: its owner could send our writes elsewhere",
			    dir, (unsigned int)st->st_uid);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return fail(err, errlen, -EPERM, "%s (on the way) is writable "
			    "by group or others (mode %04o) and not sticky: they "
			    "could send our writes elsewhere", dir,
			    (unsigned int)(st->st_mode & 07777));
	return 0;
}

/* A link on the way is followed only when root or we made it. */
static int follow_link(char *done, size_t donelen, char *todo, size_t todolen,
		       const char *rest, const struct stat *st, char *err,
		       size_t errlen)
{
	char target[PATH_MAX], tail[PATH_MAX];
	ssize_t n;

	if (st->st_uid && st->st_uid != geteuid())
		return fail(err, errlen, -ELOOP, "%s (on the way) is a symbolic "
			    "link owned by uid %u: it could send our writes "
			    "elsewhere; give the real path", done,
			    (unsigned int)st->st_uid);
	n = readlink(done, target, sizeof(target) - 1);
	if (n < 0)
		return fail(err, errlen, -errno, "%s: %s", done, strerror(errno));
	target[n] = '\0';
	snprintf(tail, sizeof(tail), "%s", rest);
	/* a leading / the walk skips, whichever kind the target is */
	if ((size_t)snprintf(todo, todolen, "/%s%s", target, tail) >= todolen)
		return fail(err, errlen, -ENAMETOOLONG, "%s: too long", done);
	/* the link's own folder, or / for an absolute one */
	if (target[0] == '/')
		snprintf(done, donelen, "/");
	else
		*(strrchr(done, '/') == done ? done + 1 : strrchr(done, '/')) = '\0';
	return 0;
}

/* Every folder above path's last part, links resolved, by ancestor_ok.
 * The last part is the caller's (it must be no link at all). A part
 * still missing ends the walk: we make the rest ourselves. */
static int check_ancestors(const char *path, char *err, size_t errlen)
{
	char done[PATH_MAX] = "/", todo[PATH_MAX], cwd[PATH_MAX];
	const char *p, *end, *last = strrchr(path, '/');
	struct stat st;
	int links = 0, ret;

	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if ((size_t)snprintf(todo, sizeof(todo), "%s%s%.*s", path[0] == '/' ?
			     "" : cwd, path[0] == '/' ? "" : "/",
			     last ? (int)(last - path) : 0, path) >= sizeof(todo))
		return fail(err, errlen, -ENAMETOOLONG, "%s: too long", path);
	if (lstat("/", &st))
		return fail(err, errlen, -errno, "/: %s", strerror(errno));
	if ((ret = ancestor_ok("/", &st, err, errlen)))
		return ret;
	for (p = todo; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '/');
		if (end == p || (end - p == 1 && *p == '.'))
			continue;
		if (end - p == 2 && !strncmp(p, "..", 2)) {
			/* done has no links: its parent is the real one */
			*(strrchr(done, '/') == done ? done + 1 : strrchr(done, '/')) = '\0';
			continue;
		}
		if ((ret = path_join(done, sizeof(done), p, (size_t)(end - p))))
			return fail(err, errlen, ret, "%s: too long", path);
		if (lstat(done, &st))
			return errno == ENOENT ? 0 : fail(err, errlen, -errno,
				"%s: %s", done, strerror(errno));
		if (S_ISLNK(st.st_mode)) {
			if (++links > 40)
				return fail(err, errlen, -ELOOP, "%s: too many "
					    "symbolic links", path);
			if ((ret = follow_link(done, sizeof(done), todo,
					       sizeof(todo), end, &st, err,
					       errlen)))
				return ret;
			end = todo;	/* on along the link's target */
			continue;
		}
		if ((ret = ancestor_ok(done, &st, err, errlen)))
			return ret;
	}
	return 0;
}

int sp_outdir_check(const char *path, unsigned int flags, char *err,
		    size_t errlen)
{
	struct stat st;
	int fd, ret, empty;

	if ((ret = check_ancestors(path, err, errlen)))
		return ret;
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
	empty = !(flags & SP_OUTDIR_EMPTY) || sp_outdir_fd_empty(fd);
	close(fd);
	if (!empty)
		return fail(err, errlen, -EEXIST, "%s is not empty; runs are "
			    "not mixed, choose another directory", path);
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
