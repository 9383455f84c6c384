/* The host's side of the uml engine's confinement. A UML guest reads the
 * host's files through hostfs as the UML process's own host user, and a
 * hostfs "ro" is the guest kernel's word only: guest root can remount it
 * read-write. So the UML process runs as an unprivileged user (nobody)
 * in a mount namespace of its own where every mount is read-only,
 * nosuid and nodev, but for the exchange folder (writable, its owner
 * that user) and a private tmpfs for UML's memory file. It needs no
 * capability of the host's and keeps none. */
#ifndef SP_LAB_SANDBOX_H
#define SP_LAB_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

struct sp_lab_sandbox {
	const char *rw_dir;	/* the one host folder it may write */
	const char *mem_dir;	/* a private tmpfs goes here (/dev/shm) */
	uid_t uid;
	gid_t gid;
	char tmpfs_opts[96];	/* mem_dir's mount options */
};

/* Fills sb for the user the guest runs as, nobody: 0, -ENOENT if the
 * host has no such user (or it is root). */
int sp_lab_sandbox_init(struct sp_lab_sandbox *sb, const char *rw_dir,
			const char *mem_dir, unsigned long long mem_bytes);

/* Can the guest's user read path through hostfs? Every folder on the
 * way searchable by others, and path itself readable (a folder: also
 * searchable) by others: 1 or 0. bad, when not NULL, gets the first
 * component that is not (e.g. /root). */
int sp_lab_path_public(const char *path, char *bad, size_t len);

/* sp_proc_opts.child_setup for the UML child: arg is a struct
 * sp_lab_sandbox. 0, or -1 with errno. */
int sp_lab_sandbox_enter(void *arg);

#endif
