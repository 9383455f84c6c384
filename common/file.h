/* Whole files in and out: the one reader (the whole file or an error,
 * never a silent prefix) and the one atomic writer (readers see the old
 * file or the new one, never half of either). */
#ifndef SP_FILE_H
#define SP_FILE_H

#include <stddef.h>
#include <sys/types.h>

enum {
	SP_FILE_NOFOLLOW = 1 << 0,	/* a symlink as the last part: -ELOOP */
	SP_FILE_REGULAR  = 1 << 1,	/* not a regular file: -EINVAL */
	SP_FILE_NOSYNC   = 1 << 2,	/* see sp_file_write_atomic_opt */
	SP_FILE_NOREPLACE = 1 << 3,	/* see sp_file_write_atomic_opt */
};

/* A bound for the text files we read whole (journals, job files, JSON,
 * /proc tables): far above any real one, low enough to stop a runaway. */
#define SP_FILE_TEXT_MAX (16u << 20)

/* Reads all of path into a malloc'd, NUL-terminated *buf (*len bytes,
 * not counting the NUL; len may be NULL). Reads to EOF rather than
 * trusting st_size, so /proc files work. A file over max_bytes is
 * -EFBIG. 0 or -errno; *buf is NULL on error. Never prints. */
int sp_file_read(const char *path, size_t max_bytes, char **buf,
		 size_t *len);
int sp_file_read_opt(const char *path, size_t max_bytes, unsigned int flags,
		     char **buf, size_t *len);

/* The first len - 1 bytes of path into buf, NUL-terminated: for the
 * callers that want only the head of a file (a /proc line, the start
 * of a log) and say so. 0 or -errno. Never prints. */
int sp_file_read_prefix(const char *path, char *buf, size_t len);

/* All n bytes to fd, through short writes and EINTR: 0, or -errno
 * (-EIO when write(2) makes no progress). */
int sp_write_all(int fd, const void *buf, size_t n);

/* Replaces path with data: a temp file in the same directory (created
 * O_EXCL|O_NOFOLLOW, so nobody's planted file or link is written
 * through), given exactly mode (not masked by umask), fsync'd, then
 * renamed over path. On error the temp file is gone and path is as it
 * was. 0 or -errno. Never prints. */
int sp_file_write_atomic(const char *path, const void *data, size_t len,
			 mode_t mode);
/* flags SP_FILE_NOSYNC: no fsync; readers still see the old file or the
 * new one, but a crash may lose both. For files that matter only while
 * we run, written from a loop that must not wait on a disk.
 * SP_FILE_NOREPLACE: an existing path (a result written earlier) is
 * kept and -EEXIST returned, in the same step as the rename. */
int sp_file_write_atomic_opt(const char *path, const void *data, size_t len,
			     mode_t mode, unsigned int flags);

#endif
