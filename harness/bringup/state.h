/* The record of what `slowpath up` set up, kept under /run/slowpath as
 * an append-only journal: every step is written BEFORE it is done, so
 * `down` can undo a crashed or SIGKILLed `up` exactly. Replaying the
 * journal (sp_state_parse) gives the current picture; later lines win,
 * which is how `delay set` and `selector set` record their changes.
 *
 *   slowpath-state 1
 *   topology NAME FILE
 *   tag TAG
 *   iqn IQN
 *   map NAME UUID
 *   backing PATH created|existing BYTES
 *   selector st|hst|ql|rr BASE_WEIGHT THRESHOLD_MULTIPLIER
 *   path N k=v ...          (the plan for path N, see sp_state_path)
 *   begin STEP [N]          (STEP is about to be done, for path N)
 *   pid tgtd N PID [START] | pid iscsid 0 PID [START]
 *                           (START: field 22 of /proc/PID/stat, so a
 *                           reused PID is never taken for ours; older
 *                           journals have none)
 *   run fio PID START       (`run` started fio, leading its own process
 *   run idle                 group; idle: that fio is over)
 *   disk N sdX MAJ:MIN
 *   delay N READ_NS WRITE_NS JITTER_NS NETEM_NS NETEM_JITTER_NS
 *   store delay|rdwr        (the tgt backing store type)
 *   sectors N
 *   complete
 *   chap USER               (the targets want CHAP as USER; the secret
 *                            is in SP_CHAP_SECRET_FILE, never here)
 *   scale K                 (every delay x K, a power of two; absent: 1)
 *   hst SHIFT               (the bucket_shift HST was loaded with)
 *   calib N TARGET_NS MEASURED_NS  (closed-loop calibration of path N:
 *                           the p50 it aimed at and the last it saw)
 *   initiator k=v ...       (the topology's failover keys as
 *                           sp_initiator_format says them)
 *   qtimeout WAS            (up set dm_multipath's
 *                           queue_if_no_path_timeout_secs; down puts WAS
 *                           back)
 *   fault N HOW [id=ID] SPEC  (a fault on path N, SPEC as sp_fault_format
 *                           writes it, ID who set it; "fault N none"
 *                           once undone)
 *   transport nvme-tcp NQN  (nvmet and native NVMe multipath instead of
 *                           tgtd and dm-multipath; absent: iscsi)
 *   loop /dev/loopN         (the loop device over the backing file that
 *                           the nvmet namespace serves)
 *   head SUBSYS DISK MAJ:MIN  (the namespace's multipath disk, e.g.
 *                           nvme-subsys0 nvme0n1 259:2)
 *   solo N HEAD MAJ:MIN DISK  (path N's own subsystem, which dm-multipath
 *                           maps over: its disk HEAD, e.g. nvme3n1
 *                           259:7, and the hidden DISK, nvme3c5n1, that
 *                           counts its I/O)
 */
#ifndef SP_STATE_H
#define SP_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dm/dm_table.h"
#include "topologies/topo.h"

#define SP_STATE_DIR "/run/slowpath"
#define SP_STATE_FILE "state"
#define SP_STATE_ERRLEN 512
#define SP_STATE_VERSION 1
#define SP_STATE_FAULT_IDLEN 40

/* Everything `up` makes carries one of these, so `down` can find it by
 * name even when the journal is gone. */
#define SP_UP_NETNS_PREFIX "slowpath-up-"
#define SP_UP_IF_PREFIX "spu"
#define SP_UP_IQN_PREFIX "iqn.2026-11.org.slowpath:up-"
#define SP_UP_UUID_PREFIX "slowpath-"
#define SP_UP_NQN_PREFIX "nqn.2026-12.io.slowpath:up-"

enum sp_step {
	SP_STEP_BACKING,	/* global */
	SP_STEP_ISCSID,		/* global: we started iscsid */
	SP_STEP_NETNS,
	SP_STEP_VETH,
	SP_STEP_TGTD,
	SP_STEP_TARGET,
	SP_STEP_NETEM,
	SP_STEP_DISCOVERY,
	SP_STEP_LOGIN,
	SP_STEP_MAP,		/* global */
	SP_STEP_LOOP,		/* global: nvme-tcp's loop device */
	SP_STEP_NVMET,		/* global: subsystem and namespace */
	SP_STEP_PORT,		/* nvmet-tcp port of the path */
	SP_STEP_CONNECT,	/* nvme connect of the path */
	SP_STEP_COUNT,
};

extern const char *const sp_step_names[];	/* NULL-terminated */

struct sp_state_path {
	unsigned int index;		/* 1-based */
	char label[32];
	char netns[48], host_if[16], target_if[16];
	char initiator_ip[16], target_ip[16];
	int prefix_len;
	unsigned int portal_port, ctl_port;
	enum sp_mech mech;
	enum sp_dist dist;
	int64_t read_ns, write_ns, jitter_ns;		/* store's share */
	int64_t netem_ns, netem_jitter_ns;		/* wire's share */
	int64_t service_ns;		/* store's serial stage (servers > 0) */
	unsigned int servers;		/* 0: none */
	unsigned int relative_throughput;
	uint64_t cpumask;	/* io-affinity's cpus = ; 0 spread */
	unsigned int steps;		/* 1 << enum sp_step, begun */
	pid_t tgtd_pid;
	unsigned long long tgtd_start;	/* 0: not journaled (old) */
	char disk[32];
	unsigned int major, minor;
	int has_disk;
	/* nvme-tcp: the path's own one-path subsystem over the same port
	 * and wire (docs/nvme.md, "dm-multipath over the same paths") */
	int has_solo;
	char solo_head[32], solo_disk[32];
	unsigned int solo_major, solo_minor;
	/* the last closed-loop calibration (`up --calibrate`) */
	int has_calib;
	int64_t calib_target_ns, calib_measured_ns;
	/* the fault in force (harness/fault): "" when none */
	char fault_how[16];
	char fault_spec[192];
	/* which setting of it: a `fault --for` undoes only its own */
	char fault_id[SP_STATE_FAULT_IDLEN];
};

struct sp_state {
	int version;
	char topology[64], topo_file[256], tag[16], iqn[160];
	char map_name[128], map_uuid[128];
	char backing[256];
	int backing_created;
	char bstype[16];
	uint64_t size_bytes, sectors;
	struct sp_dm_selector sel;
	unsigned int steps;		/* global steps begun */
	pid_t iscsid_pid;
	unsigned long long iscsid_start;
	pid_t fio_pid;			/* a `run`'s fio, 0 when none */
	unsigned long long fio_start;
	int complete;
	char chap_user[64];		/* "" in journals from before CHAP */
	uint64_t scale;			/* k; 1 when the journal has none */
	int has_hst;
	unsigned int hst_shift;		/* HST's bucket_shift at `up` */
	struct sp_initiator init;	/* the topology's failover keys */
	int has_qtimeout;		/* up changed the module's timeout */
	unsigned int qtimeout_was;	/* what it was before */
	/* nvme-tcp (docs/nvme.md); the rest is unused for iscsi */
	enum sp_transport transport;
	char nqn[224];
	char loop_dev[32];		/* "" until losetup said */
	uint64_t inline_data;		/* the ports' (0: nvmet-tcp's own) */
	int has_head;
	char subsys[32], head[32];	/* nvme-subsys0, nvme0n1 */
	unsigned int head_major, head_minor;
	size_t npaths;
	struct sp_state_path paths[SP_TOPO_MAX_PATHS];
};

void sp_state_init(struct sp_state *st);

/* Replays a journal. A last line without its newline (a crash while
 * writing it) is ignored. 0, or -EINVAL with err "LINE: message". */
int sp_state_parse(const char *text, struct sp_state *st, char *err,
		   size_t errlen);

/* One journal line each; buf gets the text with its newline.
 * -ENOSPC when it does not fit, -EINVAL for a value with whitespace. */
int sp_state_fmt_header(const struct sp_state *st, char *buf, size_t len);
int sp_state_fmt_path(const struct sp_state_path *p, char *buf, size_t len);
int sp_state_fmt_delay(const struct sp_state_path *p, char *buf, size_t len);
int sp_state_fmt_selector(const struct sp_dm_selector *sel, char *buf,
			  size_t len);
/* "scale K\nhst SHIFT\n", each only when there is one (k > 1, HST
 * loaded by `up`), so unscaled journals read as before. */
int sp_state_fmt_scale(const struct sp_state *st, char *buf, size_t len);
int sp_state_fmt_calib(const struct sp_state_path *p, char *buf, size_t len);
/* An "initiator", "qtimeout" or "fault" line's tokens into st
 * (state_failover.c); -EINVAL with why. */
int sp_state_parse_failover(struct sp_state *st, char **t, int n, char *why,
			    size_t whylen);
/* "initiator k=v ...\n" ("" when the topology set none) and
 * "qtimeout WAS\n" ("" when up left the module alone). */
int sp_state_fmt_initiator(const struct sp_state *st, char *buf, size_t len);
/* "fault N HOW SPEC\n", or "fault N none\n" when how is "" or NULL.
 * -EINVAL for a how or spec the journal cannot hold (blanks in how, a
 * newline). */
int sp_state_fmt_fault(unsigned int index, const char *how, const char *spec,
		       char *buf, size_t len);
/* The same with "id=ID " before SPEC (id NULL or "": none); -EINVAL
 * for an id that is not [0-9a-z.-]. */
int sp_state_fmt_fault_id(unsigned int index, const char *how,
			  const char *id, const char *spec, char *buf,
			  size_t len);

/* A calibration's residual, measured / target - 1 (0.02 is 2 % slow). */
double sp_state_calib_residual(const struct sp_state_path *p);
/* The path whose calibration residual is furthest beyond +-bound, its
 * index, or -1 when every calibrated path is within it. */
int sp_state_calib_worst(const struct sp_state *st, double bound);

/* "transport nvme-tcp NQN\n", "loop DEV\n", "head SUBSYS DISK MAJ:MIN\n"
 * as far as st has them ("" for an iscsi journal). */
int sp_state_fmt_nvme(const struct sp_state *st, char *buf, size_t len);
/* A "transport", "loop" or "head" line's tokens into st (state_nvme.c);
 * -EINVAL with why. */
int sp_state_parse_nvme(struct sp_state *st, char **t, int n, char *why,
			size_t whylen);
/* The shapes those values must have: our NQN prefix and [A-Za-z0-9._-];
 * /dev/loopN; nvmeSnH or nvmeScCnH (1 ok, 0 not). */
int sp_state_nqn_ok(const char *nqn);
int sp_state_loop_ok(const char *dev);
int sp_state_nvme_disk_ok(const char *disk);

/* "pid tgtd N PID START\n" (what "tgtd" or "iscsid"; start 0: none);
 * "run fio PID START\n", or "run idle\n" when pid is 0. */
int sp_state_fmt_pid(const char *what, unsigned int index, pid_t pid,
		     unsigned long long start, char *buf, size_t len);
int sp_state_fmt_run(pid_t pid, unsigned long long start, char *buf,
		     size_t len);

/* The whole picture as a journal that replays to the same struct
 * (state_compact.c). -ENOSPC when it does not fit. */
int sp_state_fmt_all(const struct sp_state *st, char *buf, size_t len);
/* Rewrites the journal in dir as sp_state_fmt_all of its replay,
 * atomically, when it is over limit bytes: `run` appends a line per
 * case. 0 (also when nothing was to do) or -errno; err on -EINVAL. */
#define SP_STATE_COMPACT_AT (64u << 10)
int sp_state_compact(const char *dir, size_t limit, char *err,
		     size_t errlen);

/* The path numbered tok (digits only), or NULL. */
struct sp_state_path *sp_state_path_by_number(struct sp_state *st,
					      const char *tok);
struct sp_state_path *sp_state_find_path(struct sp_state *st,
					 const char *index_or_label);

/* Files. dir NULL means SP_STATE_DIR ($SLOWPATH_STATE_DIR overrides it,
 * for tests). */
const char *sp_state_dir(void);
/* Creates the journal; -EEXIST when one is there (a topology is up). */
int sp_state_create(const char *dir, int *fd);
int sp_state_open_append(const char *dir, int *fd);
/* One line in one write(2), synced, so it survives a crash of `up`. */
int sp_state_append(int fd, const char *line);
int sp_state_load(const char *dir, struct sp_state *st, char *err,
		  size_t errlen);
int sp_state_remove(const char *dir);

#endif
