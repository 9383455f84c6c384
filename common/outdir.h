/* Output folders root writes into (run --out, reproduce --out, report's
 * plots, lab --keep) and the files in them. A folder is trusted only
 * when nobody else could have planted anything in it: not a symlink,
 * owned by us (the euid), writable by neither group nor others. Files
 * are created fresh (O_EXCL|O_NOFOLLOW): a planted symlink is refused,
 * never written through, and a file fio later reads is ours alone. */
#ifndef SP_OUTDIR_H
#define SP_OUTDIR_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum {
	SP_OUTDIR_CREATE = 1 << 0,	/* make it (and its parents) if missing */
	SP_OUTDIR_EMPTY  = 1 << 1,	/* -EEXIST when anything is in it */
};

#define SP_OUTDIR_ERRLEN 512

/* Every folder above the last part too, links resolved: each owned by
 * root or us and writable by nobody else unless sticky (/tmp), and a
 * link on the way only when root or we own it; else whoever controls
 * it could swap what follows for a link between our check and our
 * writes by path.
 * 0, or -errno with err = "PATH: why" (one line): -ELOOP a symlink,
 * -ENOTDIR not a folder, -EPERM owned by someone else or writable by
 * group/others, -EEXIST not empty. */
int sp_outdir_check(const char *path, unsigned int flags, char *err,
		    size_t errlen);

/* 1 when the folder open at fd holds nothing; fd stays open. */
int sp_outdir_fd_empty(int fd);

/* DIR/SUB made if missing and checked as above; the path into buf. */
int sp_outdir_sub(const char *dir, const char *sub, char *buf, size_t len,
		  char *err, size_t errlen);

/* A fresh file at path (an old regular file there is replaced; a
 * symlink or anything else is -ELOOP/-EISDIR), exactly mode. An fd, or
 * -errno. Never prints. */
int sp_outdir_create(const char *path, mode_t mode);

/* sp_outdir_create 0644 as a FILE; NULL with errno set. */
FILE *sp_outdir_fopen(const char *path);

#endif
