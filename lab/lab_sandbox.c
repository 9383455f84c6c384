#include "lab/lab_sandbox.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

int sp_lab_sandbox_init(struct sp_lab_sandbox *sb, const char *rw_dir,
			const char *mem_dir, unsigned long long mem_bytes)
{
	struct passwd *pw = getpwnam("nobody");

	if (!pw || pw->pw_uid == 0 || pw->pw_gid == 0)
		return -ENOENT;
	sb->rw_dir = rw_dir;
	sb->mem_dir = mem_dir;
	sb->uid = pw->pw_uid;
	sb->gid = pw->pw_gid;
	/* the memory file plus UML's own few files */
	snprintf(sb->tmpfs_opts, sizeof(sb->tmpfs_opts),
		 "size=%llu,mode=0700,uid=%u,gid=%u", mem_bytes + (64ULL << 20),
		 (unsigned int)sb->uid, (unsigned int)sb->gid);
	return 0;
}

static int set_attr(const char *path, unsigned int flags,
		    unsigned long long set, unsigned long long clr)
{
	struct mount_attr attr = { .attr_set = set, .attr_clr = clr };

	return mount_setattr(AT_FDCWD, path, flags, &attr, sizeof(attr));
}

int sp_lab_path_public(const char *path, char *bad, size_t len)
{
	char walk[PATH_MAX];
	struct stat st;
	size_t i, n = strlen(path);

	if (path[0] != '/' || n >= sizeof(walk))
		return 0;
	memcpy(walk, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (walk[i] != '/' && walk[i] != '\0')
			continue;
		walk[i] = '\0';
		if (stat(walk, &st) ||
		    (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) ||
		    (i == n && !(st.st_mode & S_IROTH))) {
			if (bad)
				snprintf(bad, len, "%s", walk);
			return 0;
		}
		walk[i] = path[i];
	}
	return 1;
}

/* Runs in the forked child, before the exec: only system calls. */
int sp_lab_sandbox_enter(void *arg)
{
	const struct sp_lab_sandbox *sb = arg;
	/* devices stay usable: UML opens /dev/null and a pty of its own;
	 * nobody can make a node anywhere */
	const unsigned long long locked = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID;
	if (unshare(CLONE_NEWNS))
		return -1;
	/* nothing of ours propagates back to the host's namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	/* its own mount, so that it can stay writable below */
	if (mount(sb->rw_dir, sb->rw_dir, NULL, MS_BIND, NULL))
		return -1;
	if (set_attr("/", AT_RECURSIVE, locked, 0))
		return -1;
	if (set_attr(sb->rw_dir, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
		     MOUNT_ATTR_RDONLY))
		return -1;
	/* UML maps its memory from a file in a tmpfs: one of its own, so
	 * the host's /dev/shm stays out of reach too */
	if (mount("tmpfs", sb->mem_dir, "tmpfs", MS_NOSUID | MS_NODEV,
		  sb->tmpfs_opts))
		return -1;
	if (setgroups(0, NULL) || setresgid(sb->gid, sb->gid, sb->gid) ||
	    setresuid(sb->uid, sb->uid, sb->uid))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	/* the change of user cleared the runner's PR_SET_PDEATHSIG */
	return prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
}
