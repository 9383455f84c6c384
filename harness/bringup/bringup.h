/* `slowpath up|down|status`, `selector set`, `delay set`: a topology
 * made real as network namespaces, tgtds, iSCSI sessions and one
 * dm-multipath map. The order of steps and what to undo are decided
 * here; every effect goes through struct sp_sys_ops so unit tests run
 * the whole sequence against a mock without root. */
#ifndef SP_BRINGUP_H
#define SP_BRINGUP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dm/dm_dev.h"
#include "harness/bringup/state.h"
#include "netem/net.h"
#include "netem/netem.h"
#include "topologies/topo.h"

#define SP_BRINGUP_ERRLEN 1024
#define SP_PORTAL_PORT 3260
#define SP_TGT_BSDIR "/usr/lib/tgt/backing-store"
#define SP_TGT_SOCKDIR "/var/run/tgtd"
/* Where backing files go unless the topology names one: on disk, not
 * the RAM-backed /run, so a large write run cannot fill memory. */
#define SP_BACKING_DIR "/var/lib/slowpath"
/* dm-multipath's queueing limit with no path left (no_path_retry N) */
#define SP_DM_QTIMEOUT_PARAM \
	"/sys/module/dm_multipath/parameters/queue_if_no_path_timeout_secs"

/* The parts of /proc/PID that tell one process from a later one under
 * the same PID. */
struct sp_pid_info {
	char comm[32];
	char state;			/* 'Z': a zombie, as good as gone */
	pid_t ppid, pgid;
	unsigned long long start;	/* field 22 of stat: clock ticks */
	unsigned long long netns;	/* inode of ns/net; 0 unknown */
};

/* "PID (comm) S ..." of /proc/PID/stat into pi (netns untouched).
 * 0 or -EINVAL. */
int sp_pid_stat_parse(const char *text, struct sp_pid_info *pi);

struct sp_cfs_ops;

struct sp_sys_ops {
	/* Runs argv (argv[0] looked up in PATH) to completion. Returns its
	 * exit status (>= 0), or -errno when it could not run. out, when
	 * not NULL, gets its stdout, NUL-terminated and truncated. */
	int (*run)(void *ctx, const char *const *argv, char *out,
		   size_t outlen);
	/* Starts a daemon in its own session, stdout+stderr to logfile,
	 * inside the named network namespace netns (NULL: ours). */
	int (*spawn)(void *ctx, const char *netns, const char *const *argv,
		     const char *logfile, pid_t *pid);
	int (*kill)(void *ctx, pid_t pid, int sig);
	/* 1 when pid runs a program whose comm is comm, else 0. */
	int (*pid_is)(void *ctx, pid_t pid, const char *comm);
	/* 0 and buf NUL-terminated, or -errno. */
	int (*read_file)(void *ctx, const char *path, char *buf, size_t len);
	int (*exists)(void *ctx, const char *path);
	/* The last component of a symlink's target ("2:0:0:1"). */
	int (*readlink_base)(void *ctx, const char *path, char *buf,
			     size_t len);
	/* Sparse file of size bytes, 0600, its folder made 0700 if
	 * missing; *created says whether it was new. An existing one must
	 * be a regular file (-ELOOP a symlink, -EINVAL anything else, e.g.
	 * a block device) of at least size bytes (-EFBIG). */
	int (*make_file)(void *ctx, const char *path, uint64_t size,
			 int *created);
	/* Bytes free to us on the filesystem path would be created on
	 * (its nearest existing folder). 0 or -errno. */
	int (*free_bytes)(void *ctx, const char *path, uint64_t *avail);
	int (*unlink)(void *ctx, const char *path);
	/* Writes text to an existing file, closing it (the delay store
	 * applies its ctl file on close). */
	int (*write_file)(void *ctx, const char *path, const char *text);
	void (*sleep_ms)(void *ctx, unsigned int ms);
	/* The last run's stderr, for messages. */
	const char *(*last_error)(void *ctx);
	/* Every device-mapper operation (dm/dm_dev.h). */
	const struct sp_dm_ops *dm;
	/* netem on the paths' target interfaces, inside their netns. */
	const struct sp_netem_ops *netem;
	/* Links, addresses, named namespaces (netem/net.h). */
	const struct sp_net_ops *net;
	/* configfs and sysfs of nvme-tcp topologies (nvmet.h); NULL in
	 * tests that bring up only iSCSI */
	const struct sp_cfs_ops *cfs;
	/* What /proc says of pid (a zombie of ours is reaped): 0, or
	 * -ENOENT when there is no such process. */
	int (*pid_info)(void *ctx, pid_t pid, struct sp_pid_info *pi);
	/* The inode of path (a /run/netns/NAME mount): 0 or -errno. */
	int (*file_ino)(void *ctx, const char *path, unsigned long long *ino);
	/* Every PID in /proc, up to max: the count, or -errno. */
	int (*list_pids)(void *ctx, pid_t *pids, size_t max);
	/* The regular files in dir, one name a line; a symlink, in dir or
	 * as dir itself, is never followed nor listed. 0 or -errno. */
	int (*list_files)(void *ctx, const char *dir, char *buf, size_t len);
	/* Who has block device MAJ:MIN open: "PID COMM" lines for every
	 * process with an fd on it, "holder NAME" lines for the devices
	 * stacked on it. 0 or -errno. */
	int (*dev_users)(void *ctx, unsigned int major, unsigned int minor,
			 char *buf, size_t len);
	void *ctx;
};

/* The real system: fork/exec, kill(2), /proc, files, libdevmapper,
 * netem over netlink. */
extern const struct sp_sys_ops sp_sys_real;

/* Set by the CLI's SIGINT/SIGTERM handler; `up` checks it between steps
 * and tears down what it made. */
extern volatile sig_atomic_t sp_bringup_interrupted;

struct sp_up_opts {
	int has_selector;
	struct sp_dm_selector sel;
	int has_mech;
	enum sp_mech mech;
	int64_t unit_ns;		/* <= 0: the topology's */
	/* k: every delay (store and wire, jitter too) times k, a power of
	 * two; 0 or 1: none. Each scaled delay must stay within 60 s. */
	uint64_t scale;
	/* serial topologies (servers > 0): added to every path's service
	 * before k; the reproduction's share of the published base that
	 * a path serves in turn (harness/repro: sp_ref_serial_fit) */
	int64_t serial_base_ns;
	/* HST's build the map and run name (dm_table.h), and for 5.8 the
	 * clock_skew_ns written before the map is made */
	enum sp_hst_build hst_build;
	int64_t hst_skew_ns;
	char tag[8];			/* 4 hex digits; names everything */
	int has_transport;		/* --transport over the file's key */
	enum sp_transport transport;
	/* nvme-tcp on a topology with servers > 0: run its delays as
	 * netem latency, the paths then not serial (docs/nvme.md) */
	int not_serial;
	const char *backing_dir;	/* NULL: SP_BACKING_DIR */
	/* seconds to wait for a tgtd / for disks after login */
	unsigned int tgtd_wait_s, disk_wait_s;
};

/* The whole plan, before anything is done: names, addresses, ports,
 * delays per path, the map's name and UUID, the backing file. */
int sp_bringup_plan(const struct sp_topo *topo, const struct sp_up_opts *o,
		    struct sp_state *st, char *err, size_t errlen);

/* `ip -o -4 addr show` text against the plan: -EADDRINUSE and err naming
 * both addresses when a path's subnet overlaps one already there. */
int sp_bringup_addr_clash(const struct sp_state *st, const char *ip_addr,
			  char *err, size_t errlen);

/* `iscsiadm -m session -P3` text: the disk ("sdb") attached through the
 * session of iqn at portal ip:port. 0, or -ENOENT. */
int sp_bringup_session_disk(const char *text, const char *iqn,
			    const char *ip, unsigned int port, char *disk,
			    size_t len);

/* tgt identifiers every path shares so the kernel sees one disk. */
void sp_bringup_scsi_ids(const struct sp_state *st, char *id, size_t idlen,
			 char *sn, size_t snlen);

/* The delay store's control directory of one path (docs/backend.md). */
void sp_bringup_ctl_dir(const char *state_dir, const struct sp_state_path *p,
			char *buf, size_t len);

/* The tgt delay store's settings for one path in its own grammar
 * (tgt-backend/delay_opts.h): the --bsopts at creation, with ctl, and a
 * ctl line at run time, ctl NULL. 0 or -errno. */
int sp_bringup_bsopts(const struct sp_state_path *p, const char *ctl,
		      char *buf, size_t len);

/* The netem a path's journal asks for on its target interface. */
void sp_bringup_netem_spec(const struct sp_state_path *p,
			   struct sp_netem_spec *spec);
/* Applies it through ops->netem: a fresh netem (nothing of an earlier
 * one's rate or distribution table kept), or none when the path's
 * netem is zero. 0, or -errno with err naming path and interface. */
int sp_bringup_netem_apply(const struct sp_sys_ops *ops,
			   const struct sp_state_path *p, char *err,
			   size_t errlen);

/* Sets everything up, journaling each step first; on failure or
 * interruption tears it down again. 0 or -errno; err says why. */
int sp_bringup_up(const struct sp_sys_ops *ops, const struct sp_topo *topo,
		  const struct sp_up_opts *o, const char *state_dir, char *err,
		  size_t errlen);

/* Into every node record of st->iqn, after discovery made them and
 * before login reads them, in one iscsiadm: the CHAP credentials (secret
 * NULL: none) and the topology's iSCSI timeouts (replacement_timeout,
 * noop_out_interval, noop_out_timeout; unset ones keep iscsid's).
 * (bringup_failover.c) 0 or -errno with err. */
int sp_bringup_node_settings(const struct sp_sys_ops *ops,
			     const struct sp_state *st, const char *secret,
			     char *err, size_t errlen);

/* Starts path p's tgtd again exactly as up did (control port, portal,
 * target, LUN with the same SCSI id and serial, IQN, address ACL, CHAP,
 * backing file, bsopts; netem again when the path has some), its new
 * PID journaled; the old one must be gone. What `fault PATH restore`
 * does after a reset. 0 or -errno with err. */
int sp_bringup_tgtd_restart(const struct sp_sys_ops *ops, struct sp_state *st,
			    struct sp_state_path *p, const char *state_dir,
			    unsigned int wait_s, char *err, size_t errlen);

/* Undoes a journal (st may be NULL when there is none) and then sweeps
 * for anything still carrying our name prefixes. A dead `run`'s fio
 * goes first; a map someone else holds open stops it before any path
 * is logged out. 0 when everything went; -EBUSY with err listing what
 * stayed (and who holds the map), the journal kept. */
int sp_bringup_down(const struct sp_sys_ops *ops, const struct sp_state *st,
		    const char *state_dir, char *err, size_t errlen);

/* The same paths under another selector; only ST takes per-path
 * weights (the topology's relative_throughput, from the journal). */
/* The machine's possible CPUs (nr_cpu_ids) from /sys, for io-affinity's
 * default masks; 0 when unknown. */
unsigned int sp_bringup_possible_cpus(const struct sp_sys_ops *ops);

/* Loads kind's module unless /sys/module has it: modprobe for the
 * stock selectors, insmod of its .ko for a built one. A built one
 * already loaded is kept only when its srcversion is the stored .ko's;
 * otherwise it is rmmod'ed and the stored one loaded, or, while a map
 * uses it (refcnt > 0), -EBUSY and err says what to do. 0, -EBUSY, or
 * -ENOENT / -EINVAL with err. */
int sp_bringup_load_selector(const struct sp_sys_ops *ops,
			     enum sp_selector kind, char *err, size_t errlen);

void sp_bringup_retarget(struct sp_dm_map *map, const struct sp_state *st,
			 const struct sp_dm_selector *sel);

/* Live changes to a running topology; both record the change. */
/* One journal line appended (synced), then the journal compacted when
 * it has grown past SP_STATE_COMPACT_AT; err says what failed. */
int sp_bringup_record(const char *dir, const char *line, char *err,
		      size_t errlen);

int sp_bringup_selector_set(const struct sp_sys_ops *ops,
			    struct sp_state *st,
			    const struct sp_dm_selector *sel,
			    const char *state_dir, char *err, size_t errlen);
/* delay_ns is split between store and wire as the path's mechanism
 * says; write_ns < 0 means the same as read. */
int sp_bringup_delay_set(const struct sp_sys_ops *ops, struct sp_state *st,
			 struct sp_state_path *p, int64_t read_ns,
			 int64_t write_ns, const char *state_dir, char *err,
			 size_t errlen);

/* Applies p's delays as they stand (store, wire or both, as its
 * mechanism says) without recording them: `delay set` records after,
 * a slow fault never does (restore puts the journal's back). */
int sp_bringup_delay_apply(const struct sp_sys_ops *ops,
			   const struct sp_state *st,
			   const struct sp_state_path *p, const char *state_dir,
			   char *err, size_t errlen);
/* One line to the delay store's ctl file of path p, then waits (5 s)
 * until its stats file holds want: the setting is in force. -ENOTSUP
 * when the topology is not on the delay store. */
int sp_bringup_store_ctl(const struct sp_sys_ops *ops,
			 const struct sp_state *st,
			 const struct sp_state_path *p, const char *state_dir,
			 const char *line, const char *want, char *err,
			 size_t errlen);

/* 1 when pid is still the process journaled with start (field 22;
 * 0 for an old journal: then its comm must be comm) and, with netns,
 * runs in /run/netns/NETNS; else 0. Nothing is signalled otherwise. */
int sp_bringup_pid_ours(const struct sp_sys_ops *ops, pid_t pid,
			unsigned long long start, const char *comm,
			const char *netns);
/* The start time of a process just spawned, 0 when unknown. */
unsigned long long sp_bringup_pid_start(const struct sp_sys_ops *ops,
					pid_t pid);
/* HST for delays scaled by k: dm-historical-service-time loaded with
 * bucket_shift 24 + log2 k (lab/hst_info.h). Loaded with another shift
 * and unused: reloaded; in use: -EBUSY. Not loadable: -ENOENT when
 * k > 1, else 0 with *loaded 0 (nothing asked for it). *shift is what
 * is loaded. err says why on failure. */
struct sp_hst_info;
/* hst-5.8 (lab/hst_info.h): its module loaded (modprobe when /sys does
 * not show it; built in on uml), and, unless skew_ns is NULL, its
 * clock_skew_ns written and read back. 0, -ENOENT (not in this kernel:
 * err says to rebuild the lab) or -EIO. */
int sp_bringup_hst58_ready(const struct sp_sys_ops *ops,
			   const int64_t *skew_ns, char *err, size_t errlen);
/* HST's build (enum sp_hst_build) ready: nothing for stock, as
 * sp_bringup_hst58_ready for 5.8, and for prebio its module loaded
 * (modprobe unless /sys shows it). 0, -ENOENT (err: rebuild the lab)
 * or -EIO. */
int sp_bringup_hst_build_ready(const struct sp_sys_ops *ops, int build,
			       const int64_t *skew_ns, char *err, size_t errlen);
/* Which HST /sys says is loaded (lab/hst_info.h); -ENOENT when none. */
int sp_bringup_hst_loaded(const struct sp_sys_ops *ops,
			  struct sp_hst_info *info);
int sp_bringup_hst_ensure(const struct sp_sys_ops *ops, uint64_t k,
			  int *loaded, unsigned int *shift, char *err,
			  size_t errlen);

/* nvme-tcp (bringup_nvme.c, docs/nvme.md). Each step is journaled
 * (through fd) before it is done. The loop device over the backing
 * file, the nvmet subsystem with its namespace, one port per path, one
 * nvme connect per path; then the namespace's disk and each path's
 * hidden disk (nvmeScKnH) as the path's disk. 0 or -errno with err. */
int sp_bringup_nvme_up(const struct sp_sys_ops *ops, struct sp_state *st,
		       int fd, unsigned int wait_s, char *err, size_t errlen);
/* The NVMe iopolicy of kind (numa, nvme-rr, qd) on st's subsystem,
 * read back. -ENOTSUP with err naming the kernel when it lacks it
 * (queue-depth on 6.1), -EINVAL for a dm selector. Not recorded. */
int sp_bringup_iopolicy_apply(const struct sp_sys_ops *ops,
			      const struct sp_state *st, enum sp_selector kind,
			      char *err, size_t errlen);
/* The same, then recorded in the journal's selector line, as
 * `selector set` records a dm selector. */
int sp_bringup_iopolicy_set(const struct sp_sys_ops *ops, struct sp_state *st,
			    enum sp_selector kind, const char *state_dir,
			    char *err, size_t errlen);
/* Undoes what st says was begun: controllers (disconnect by NQN),
 * ports, namespace, subsystem, loop device; anything left is named in
 * left. Then, st or not, sweeps nvmet for subsystems of our NQN prefix.
 * Safe when nothing is there. */
void sp_bringup_nvme_down(const struct sp_sys_ops *ops,
			  const struct sp_state *st, char *left, size_t len);

/* 1 when the kernel has module mod: /sys/module shows it, or it is built
 * in (modules.builtin of the running release names it). Else 0: modprobe
 * may still load it. */
int sp_bringup_module_present(const struct sp_sys_ops *ops, const char *mod);

/* Shared helpers of the bring-up files. */
int sp_sys_runv(const struct sp_sys_ops *ops, char *out, size_t outlen,
		const char *arg0, ...) __attribute__((sentinel));
/* The last run's stderr for a message; "no message" when it said none. */
const char *sp_sys_error(const struct sp_sys_ops *ops);
/* err names the step that failed (r from a run) and how, never its argv:
 * -ENOENT when the program is missing, else -EIO. */
int sp_sys_failed(const struct sp_sys_ops *ops, int r, const char *what,
		  char *err, size_t errlen);
/* Everything that can refuse `up` before the system is touched: kernel
 * modules, the store, address clashes, leftovers, room for the backing
 * file. Fills st->bstype. 0 or -errno with err. */
int sp_bringup_preflight(const struct sp_sys_ops *ops, struct sp_state *st,
			 char *err, size_t errlen);
void sp_bringup_portal(const struct sp_state_path *p, char *buf, size_t len);

/* The real /proc and /sys ops of sp_sys_real (bringup_sys_proc.c). */
int sp_sys_pid_info(void *ctx, pid_t pid, struct sp_pid_info *pi);
int sp_sys_file_ino(void *ctx, const char *path, unsigned long long *ino);
int sp_sys_list_pids(void *ctx, pid_t *pids, size_t max);
int sp_sys_list_files(void *ctx, const char *dir, char *buf, size_t len);
int sp_sys_dev_users(void *ctx, unsigned int major, unsigned int minor,
		     char *buf, size_t len);

#endif
