/* nvmet through configfs (no nvmetcli in Debian 12): the subsystem with
 * its one namespace and one nvmet-tcp port per path, as a plan of
 * mkdir/write/symlink steps (pure, so unit tests build it without root)
 * that sp_nvmet_apply carries out through struct sp_cfs_ops and
 * sp_nvmet_undo takes back in reverse. docs/nvme.md. */
#ifndef SP_NVMET_H
#define SP_NVMET_H

#include <stddef.h>

#include "harness/bringup/state.h"

#define SP_NVMET_CFS "/sys/kernel/config/nvmet"
#define SP_NVME_TCP_PORT 4420	/* IANA's NVMe/TCP port */
#define SP_NVMET_NSID 1
#define SP_NVMET_MAX_STEPS 16
#define SP_NVMET_NQN_MAX 224	/* the spec's 223 bytes and the NUL */

enum sp_cfs_op { SP_CFS_MKDIR, SP_CFS_WRITE, SP_CFS_SYMLINK };

struct sp_cfs_step {
	enum sp_cfs_op op;
	char path[320];
	/* WRITE: the text; SYMLINK: the link's target */
	char value[320];
	/* SYMLINK: made from inside this network namespace ("": ours).
	 * Linking a subsystem into a port enables the port, and nvmet-tcp
	 * creates its listening socket in the namespace of the process that
	 * does it, where the path's target address lives. */
	char netns[48];
	/* WRITE: written back before the teardown ("": nothing), e.g. a
	 * namespace's enable 0 so its directory can go */
	char undo[8];
};

struct sp_cfs_plan {
	size_t n;
	struct sp_cfs_step steps[SP_NVMET_MAX_STEPS];
};

/* The effects: configfs and sysfs. 0 or -errno each. */
struct sp_cfs_ops {
	int (*mkdir)(void *ctx, const char *path);
	int (*rmdir)(void *ctx, const char *path);
	/* the text to an existing attribute, never through a symlink */
	int (*write)(void *ctx, const char *path, const char *text);
	/* linkpath -> target, from inside netns (NULL or "": ours) */
	int (*symlink)(void *ctx, const char *netns, const char *target,
		       const char *linkpath);
	int (*unlink)(void *ctx, const char *path);
	/* every entry of dir but . and .., one name a line (symlinks too,
	 * never followed) */
	int (*list_dir)(void *ctx, const char *dir, char *buf, size_t len);
	void *ctx;
};

extern const struct sp_cfs_ops sp_cfs_real;

/* The subsystem st->nqn, any host allowed, namespace 1 on
 * st->loop_dev, enabled. -EINVAL for an NQN or device of the wrong
 * shape, -ENOSPC when a path does not fit. */
int sp_nvmet_plan_subsys(const struct sp_state *st, struct sp_cfs_plan *plan);
/* Path p's own subsystem, "<st->nqn>.p<index>": namespace 1 on the same
 * loop device, served only through p's port. Each is a one-path disk
 * on the host, so dm-multipath maps over the very ports, wires and
 * delays the shared subsystem's native multipath runs on. -EINVAL,
 * -ENOSPC as above. */
int sp_nvmet_solo_nqn(const struct sp_state *st, const struct sp_state_path *p,
		      char *buf, size_t len);
int sp_nvmet_plan_solo(const struct sp_state *st,
		       const struct sp_state_path *p, struct sp_cfs_plan *plan);
/* Path p's port: id p->ctl_port, tcp, ipv4, p->target_ip, 4420,
 * st->inline_data as its in-capsule data when set, the subsystem and
 * p's own linked in from p->netns. */
int sp_nvmet_plan_port(const struct sp_state *st,
		       const struct sp_state_path *p, struct sp_cfs_plan *plan);

/* Every port's default ANA group, which nvmet makes with the port and
 * puts the namespace in (its ana_grpid): so one port's group 1 is one
 * path's ANA state. */
#define SP_NVMET_ANA_GRPID 1
/* 1 when state is one a path may be set to: optimized, non-optimized,
 * inaccessible (nvmet also takes persistent-loss and change). */
int sp_nvmet_ana_state_ok(const char *state);
/* Path p's ANA state: ports/ID/ana_groups/1/ana_state = state. nvmet
 * sends every controller on that port an ANA change event; the host
 * reads the ANA log and stops (inaccessible) or prefers others
 * (non-optimized) for that path. -EINVAL for another state or a path
 * with no port. */
int sp_nvmet_plan_ana(const struct sp_state_path *p, const char *state,
		      struct sp_cfs_plan *plan);

/* The plan in order; stops at the first failure, err naming the step's
 * path. What was done stays: sp_nvmet_undo takes it back. */
int sp_nvmet_apply(const struct sp_cfs_ops *ops,
		   const struct sp_cfs_plan *plan, char *err, size_t errlen);
/* In reverse: symlinks unlinked, directories removed, undo texts
 * written; what is not there is fine. 0, or the first other error with
 * err naming what stayed (the rest is still tried). */
int sp_nvmet_undo(const struct sp_cfs_ops *ops,
		  const struct sp_cfs_plan *plan, char *err, size_t errlen);

#endif
