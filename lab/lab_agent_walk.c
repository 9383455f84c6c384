/* The agent's copy-back walk (lab_agent.h, sp_lab_agent_walk): what a
 * command wrote in its sync folders, sent to the host file by file. */
#include "lab/lab_agent.h"

#include "lab/lab_ctl.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYNC_MAX_DEPTH 15

static int send_file(int port, unsigned int root, const char *path,
		     const char *rel, mode_t mode)
{
	unsigned char *enc;
	char buf[65536];
	size_t len;
	ssize_t r;
	int fd, ret;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ret = sp_lab_file_encode(root, mode, rel, &enc, &len);
	if (!ret) {
		ret = sp_lab_agent_send(port, SP_LAB_F_FILE, enc, len);
		free(enc);
	}
	while (!ret && (r = read(fd, buf, sizeof(buf))) > 0)
		ret = sp_lab_agent_send(port, SP_LAB_F_DATA, buf, (size_t)r);
	close(fd);
	return ret;
}

static int before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Sends what under base/rel changed in the window; folders that did not
 * change are not entered (the host's old results stay where they are). */
static int sync_walk(int port, unsigned int root, const char *base,
		     const char *rel, int depth, const struct sp_lab_walk *w)
{
	char path[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", base, *rel ? "/" : "",
			     rel) >= sizeof(path))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
				     *rel ? "/" : "", de->d_name) >= sizeof(sub))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    before(&st.st_mtim, &w->since))
			continue;
		if (!sp_lab_relpath_ok(sub)) {
			if (!w->count)
				sp_lab_agent_say(port, "lab: not copied back (name): %s/%s\n",
				    base, sub);
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth < SYNC_MAX_DEPTH)
			ret = sync_walk(port, root, base, sub, depth + 1, w);
		else if (S_ISREG(st.st_mode) && w->until.tv_sec &&
			 before(&w->until, &st.st_mtim))
			continue;
		else if (S_ISREG(st.st_mode) && w->count)
			(*w->count)++;
		else if (S_ISREG(st.st_mode)) {
			char full[PATH_MAX * 2 + 2];

			snprintf(full, sizeof(full), "%s/%s", base, sub);
			ret = send_file(port, root, full, sub, st.st_mode);
		}
	}
	closedir(d);
	return ret;
}

int sp_lab_agent_walk(int port, unsigned int root, const char *base,
		      const struct sp_lab_walk *w)
{
	return sync_walk(port, root, base, "", 0, w);
}
