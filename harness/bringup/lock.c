/* The topology lock (lock.h): flock on STATE/lock, opened O_NOFOLLOW. */
#include "harness/bringup/lock.h"
#include "harness/bringup/state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void lock_path(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir ? dir : sp_state_dir(), SP_LOCK_FILE);
}

/* The holder's "PID what", for the message. */
static void holder(int fd, char *buf, size_t len)
{
	char text[96];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	int pid;
	char what[32];

	if (n > 0) {
		text[n] = '\0';
		if (sscanf(text, "%d %31s", &pid, what) == 2) {
			snprintf(buf, len, "pid %d: %s", pid, what);
			return;
		}
	}
	snprintf(buf, len, "pid unknown");
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* 1 when fd is still the file at path: a releaser may have unlinked
 * it between our open and our flock. */
static int still_there(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !lstat(path, &b) && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

int sp_lock_take(const char *dir, const char *what, unsigned int wait_ms,
		 int *fd, char *err, size_t errlen)
{
	const char *d = dir ? dir : sp_state_dir();
	char path[512], who[96], line[96];
	unsigned int waited = 0;
	int f, ret;

	*fd = -1;
	if (mkdir(d, 0755) && errno != EEXIST)
		return -errno;
	lock_path(dir, path, sizeof(path));
	for (;;) {
		f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (f < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot open %s: %s", path,
				 strerror(errno));
			return ret;
		}
		if (!flock(f, LOCK_EX | LOCK_NB)) {
			if (still_there(f, path))
				break;
			close(f);
			continue;
		}
		if (errno != EWOULDBLOCK) {
			ret = -errno;
			close(f);
			snprintf(err, errlen, "cannot lock %s: %s", path,
				 strerror(-ret));
			return ret;
		}
		if (waited >= wait_ms) {
			holder(f, who, sizeof(who));
			close(f);
			snprintf(err, errlen, "another slowpath (%s) is working "
				 "on the topology", who);
			return -EWOULDBLOCK;
		}
		close(f);
		sleep_ms(100);
		waited += 100;
	}
	snprintf(line, sizeof(line), "%d %s\n", (int)getpid(), what);
	if (ftruncate(f, 0) || pwrite(f, line, strlen(line), 0) < 0) {
		/* the lock holds without its note; only the message suffers */
	}
	*fd = f;
	return 0;
}

void sp_lock_release(const char *dir, int fd)
{
	char path[512], journal[512];

	if (fd < 0)
		return;
	lock_path(dir, path, sizeof(path));
	snprintf(journal, sizeof(journal), "%s/%s", dir ? dir : sp_state_dir(),
		 SP_STATE_FILE);
	/* still holding it: nobody can take the file we unlink */
	if (access(journal, F_OK) && still_there(fd, path))
		unlink(path);
	close(fd);
}
