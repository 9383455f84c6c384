/* The host's end of what a lab session copies back: the guest's output
 * streams, its files written under the roots the command named (by the
 * outdir rules, never over an earlier result) and the signals passed
 * on. See lab_ctl.h; lab_ctl.c holds the session that feeds them. */
#include "lab/lab_ctl.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sp_lab_files_init(struct sp_lab_files *f, char *const *roots,
		       volatile sig_atomic_t *signal)
{
	memset(f, 0, sizeof(*f));
	f->roots = roots;
	/* folders past the last we keep rules for get nothing */
	while (roots && roots[f->n_roots] && f->n_roots < SP_LAB_MAX_ROOTS)
		f->n_roots++;
	f->fd = -1;
	f->signal = signal;
}

void sp_lab_files_close(struct sp_lab_files *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

static int sink_stream(void *ctx, int which, const void *p, size_t n)
{
	(void)ctx;
	/* a reader that went away (| head) must not stop the command */
	sp_write_all(which, p, n);
	return 0;
}

/* The root's rules, settled at its first file: a root this session
 * made, or found empty, is all the command's; in one with earlier
 * results (results/ without --out) only the one new folder the command
 * made is, and nothing directly in the root. */
static int root_open(struct sp_lab_files *f, unsigned int i)
{
	char err[SP_OUTDIR_ERRLEN];
	const char *root = f->roots[i];
	struct stat st;
	int missing = lstat(root, &st) && errno == ENOENT, fd, ret;

	ret = sp_outdir_check(root, SP_OUTDIR_CREATE, err, sizeof(err));
	if (ret) {
		sp_warn("lab: not copied back: %s", err);
		return ret;
	}
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (f->state[i] == SP_LAB_ROOT_UNSEEN)
		f->state[i] = !f->one_new_folder || missing ||
			      sp_outdir_fd_empty(fd) ? SP_LAB_ROOT_ALL :
			      SP_LAB_ROOT_ONE_NEW;
	return fd;
}

/* dir's folder name, made if missing; in is closed. An fd or -errno. */
static int sub_open(int in, const char *name, int must_be_new)
{
	struct stat st;
	int fd, ret = 0;

	if (mkdirat(in, name, 0755) && (errno != EEXIST || must_be_new))
		ret = -errno;
	fd = ret ? ret : openat(in, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				O_CLOEXEC);
	if (!ret && fd < 0)
		ret = -errno;
	/* one we made, or one made in a folder of ours this session */
	if (!ret && (fstat(fd, &st) || st.st_uid != geteuid() ||
		     (st.st_mode & (S_IWGRP | S_IWOTH))))
		ret = -EPERM;
	close(in);
	if (ret && fd >= 0)
		close(fd);
	return ret ? ret : fd;
}

static int refuse(const char *root, const char *rel, int ret, const char *why)
{
	sp_warn("lab: not copied back: %s/%s: %s", root, rel, why ? why :
		ret == -ELOOP ? "a symbolic link is on the way" : strerror(-ret));
	return ret;
}

/* root/a/b/c: the root checked by the outdir rules, a and b folders of
 * ours (made if missing; a link is never followed), c created fresh and
 * never over anything. */
static int open_under(struct sp_lab_files *f, unsigned int i, uint32_t mode,
		      const char *rel)
{
	const char *root = f->roots[i], *p = rel, *slash;
	char part[NAME_MAX + 1];
	int dir, fd, top;

	if (!sp_lab_relpath_ok(rel))
		return refuse(root, rel, -EINVAL, "not a plain relative name");
	dir = root_open(f, i);
	if (dir < 0)
		return dir;
	for (top = 1; (slash = strchr(p, '/')); p = slash + 1, top = 0) {
		snprintf(part, sizeof(part), "%.*s", (int)(slash - p), p);
		if (top && f->state[i] == SP_LAB_ROOT_ONE_NEW &&
		    f->claimed[i][0] && strcmp(part, f->claimed[i])) {
			close(dir);
			return refuse(root, rel, -EPERM, "not in the folder this "
				      "command made (an earlier result stays as it is)");
		}
		dir = sub_open(dir, part, top && f->state[i] == SP_LAB_ROOT_ONE_NEW &&
			       !f->claimed[i][0]);
		if (dir == -EEXIST)
			return refuse(root, rel, dir, "an earlier result's folder; "
				      "nothing is copied into it");
		if (dir < 0)
			return refuse(root, rel, dir, NULL);
		if (top && f->state[i] == SP_LAB_ROOT_ONE_NEW && !f->claimed[i][0])
			snprintf(f->claimed[i], sizeof(f->claimed[i]), "%s", part);
	}
	if (top && f->state[i] == SP_LAB_ROOT_ONE_NEW) {
		close(dir);
		return refuse(root, rel, -EPERM, "beside earlier results, not in "
			      "the folder this command made");
	}
	fd = openat(dir, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    (mode & 0755) | 0600);
	if (fd < 0)
		fd = -errno;
	close(dir);
	if (fd == -EEXIST)
		return refuse(root, rel, fd, "exists already; an earlier result "
			      "is never replaced");
	if (fd < 0)
		return refuse(root, rel, fd, NULL);
	if (fchmod(fd, (mode & 0755) | 0600)) {
		close(fd);
		return refuse(root, rel, -errno, NULL);
	}
	return fd;
}

static int sink_file_open(void *ctx, unsigned int root, uint32_t mode,
			  const char *relpath)
{
	struct sp_lab_files *f = ctx;
	int fd;

	sp_lab_files_close(f);
	if (root >= f->n_roots) {
		f->failed++;
		return -EINVAL;
	}
	fd = open_under(f, root, mode, relpath);
	if (fd < 0) {
		f->failed++;
		return fd;
	}
	f->fd = fd;
	f->written++;
	return 0;
}

static int sink_file_data(void *ctx, const void *p, size_t n)
{
	struct sp_lab_files *f = ctx;
	int ret;

	if (f->fd < 0)
		return 0;	/* a file we refused: drop its bytes */
	ret = sp_write_all(f->fd, p, n);
	if (ret) {
		sp_warn("lab: writing a copied-back file: %s", strerror(-ret));
		sp_lab_files_close(f);
		f->failed++;
	}
	return ret;
}

/* A guest that does not answer its signals must not hold the terminal
 * forever: the third one gives up on it here. */
#define SP_LAB_GIVE_UP_SIGNALS 3
static int sink_take_signal(void *ctx)
{
	struct sp_lab_files *f = ctx;
	int s = f->signal ? *f->signal : 0;

	if (s) {
		*f->signal = 0;
		if (++f->signals >= SP_LAB_GIVE_UP_SIGNALS)
			return -1;
	}
	return s;
}

int sp_lab_files_verdict(const struct sp_lab_files *f, int code)
{
	/* they die with the guest's RAM: a result lost is a failure */
	if (!f->failed)
		return code;
	sp_err("lab: %u file%s could not be copied back to this host (said "
	       "above why)", f->failed, f->failed == 1 ? "" : "s");
	return SP_EXIT_RUNTIME;
}

void sp_lab_host_sink(struct sp_lab_sink_ops *ops, struct sp_lab_files *f)
{
	ops->stream = sink_stream;
	ops->file_open = sink_file_open;
	ops->file_data = sink_file_data;
	ops->take_signal = sink_take_signal;
	ops->ctx = f;
}
