/* The files slowpath reads back from a result folder: case JSON,
 * timelines, reproduce.info, scale.txt. A result folder is not trusted
 * (a user's, a guest's copy-back, a download), and slowpath runs as
 * root: a planted symlink would make root read, and its error messages
 * print, a file the user could not; a FIFO would hang the read. So a
 * result file is read only when it is a regular file of its own: not a
 * symlink, in a folder that is not one, with no other hard link, and
 * bounded in size. */
#ifndef SP_RESULT_FILE_H
#define SP_RESULT_FILE_H

#include <stddef.h>

/* All of path into a malloc'd, NUL-terminated *text (*len bytes, len
 * may be NULL). 0, or -errno with *text NULL: -ELOOP the file or its
 * folder is a symlink, -EINVAL not a regular file (FIFO, device,
 * folder), -EMLINK it has other hard links, -EFBIG over max bytes,
 * -ENOENT and the rest as open(2). Never prints, never blocks on the
 * open. */
int sp_result_file_read(const char *path, size_t max, char **text,
			size_t *len);

/* Why sp_result_file_read refused a file, for "PATH: why" messages;
 * never any of the file's content. */
const char *sp_result_file_why(int err);

#endif
