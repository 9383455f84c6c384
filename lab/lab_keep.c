#include "lab/lab_keep.h"

#include "common/log.h"
#include "lab/lab_ctl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct walk {
	struct sp_lab_sink_ops ops;
	struct sp_lab_files files;
	struct sp_lab_keep_count *count;
};

static void copy_file(struct walk *w, int dirfd, const char *name,
		      const char *rel, mode_t mode)
{
	char buf[65536];
	unsigned int failed = w->files.failed;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	/* what was a file at the walk may be anything by now */
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		w->count->skipped++;
		return;
	}
	if (w->ops.file_open(w->ops.ctx, 0, (uint32_t)mode, rel)) {
		close(fd);
		w->count->failed++;
		return;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (w->ops.file_data(w->ops.ctx, buf, (size_t)n))
			break;
	if (n < 0)
		w->files.failed++;
	sp_lab_files_close(&w->files);
	close(fd);
	if (w->files.failed != failed)
		w->count->failed++;
	else
		w->count->copied++;
}

static void walk_dir(struct walk *w, int dirfd, const char *base, int depth)
{
	char rel[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = fdopendir(dirfd);
	int sub;

	if (!d) {
		close(dirfd);
		w->count->failed++;
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(rel, sizeof(rel), "%s%s%s", base,
				     *base ? "/" : "", de->d_name) >= sizeof(rel) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			w->count->failed++;
			continue;
		}
		if (S_ISREG(st.st_mode)) {
			copy_file(w, dirfd, de->d_name, rel, st.st_mode);
		} else if (S_ISDIR(st.st_mode) && depth < SP_LAB_KEEP_DEPTH) {
			sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				w->count->failed++;
			else
				walk_dir(w, sub, rel, depth + 1);
		} else {
			sp_warn("lab: not copied back (not a file or folder, or too deep): %s", rel);
			w->count->skipped++;
		}
	}
	closedir(d);
}

int sp_lab_keep_copy(const char *src, const char *dest,
		     struct sp_lab_keep_count *count)
{
	char *roots[] = { (char *)dest, NULL };
	struct walk w = { .count = count };
	int fd;

	memset(count, 0, sizeof(*count));
	fd = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	sp_lab_files_init(&w.files, roots, NULL);
	sp_lab_host_sink(&w.ops, &w.files);
	walk_dir(&w, fd, "", 0);
	sp_lab_files_close(&w.files);
	return 0;
}
