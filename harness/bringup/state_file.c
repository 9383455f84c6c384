/* The /run/slowpath journal's file: where it is, create, append, load,
 * remove. See state.h. */
#include "harness/bringup/state.h"
#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_JOURNAL SP_FILE_TEXT_MAX

const char *sp_state_dir(void)
{
	const char *env = getenv("SLOWPATH_STATE_DIR");

	return env && *env ? env : SP_STATE_DIR;
}

static void journal_path(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir ? dir : sp_state_dir(),
		 SP_STATE_FILE);
}

int sp_state_create(const char *dir, int *fd)
{
	char path[512];
	const char *d = dir ? dir : sp_state_dir();

	if (mkdir(d, 0755) && errno != EEXIST)
		return -errno;
	journal_path(dir, path, sizeof(path));
	*fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
		   0644);
	return *fd < 0 ? -errno : 0;
}

int sp_state_open_append(const char *dir, int *fd)
{
	char path[512];

	journal_path(dir, path, sizeof(path));
	*fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

int sp_state_append(int fd, const char *line)
{
	size_t len = strlen(line);
	ssize_t n = write(fd, line, len);

	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	return fdatasync(fd) && errno != EINVAL ? -errno : 0;
}

int sp_state_load(const char *dir, struct sp_state *st, char *err,
		  size_t errlen)
{
	char path[512];
	char *text;
	int ret;

	journal_path(dir, path, sizeof(path));
	/* a journal cut short would forget what `down` must undo */
	ret = sp_file_read(path, MAX_JOURNAL, &text, NULL);
	if (ret)
		return ret;
	ret = sp_state_parse(text, st, err, errlen);
	if (ret && err && errlen) {
		char tmp[SP_STATE_ERRLEN + 600];

		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		snprintf(err, errlen, "%.*s", (int)(errlen - 1), tmp);
	}
	free(text);
	return ret;
}

int sp_state_remove(const char *dir)
{
	char path[512];

	journal_path(dir, path, sizeof(path));
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}
