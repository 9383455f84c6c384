/* A topology: how many iSCSI paths lead to the one disk, how slow each
 * is and by which mechanism, which selector the multipath map uses and
 * which addresses the paths live on. Files are commented INI, see
 * docs/topologies.md; parsing and resolution are pure so `up` and the
 * tests share them. */
#ifndef SP_TOPO_H
#define SP_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "common/dist.h"
#include "dm/dm_table.h"

#define SP_TOPO_MAX_PATHS 16
#define SP_TOPO_ERRLEN 512
#define SP_TOPO_MAP_PREFIX "slowpath-"
/* The benchmarking range (RFC 2544): no address plan may leave it. */
#define SP_TOPO_RANGE_ADDR 0xC6120000u	/* 198.18.0.0 */
#define SP_TOPO_RANGE_LEN 15

enum sp_mech { SP_MECH_BACKEND, SP_MECH_NETEM, SP_MECH_BOTH };
/* How the paths reach the disk: one tgtd per path and dm-multipath over
 * the iSCSI disks, or one nvmet subsystem with a port per path and the
 * kernel's native NVMe multipath (docs/nvme.md). */
enum sp_transport { SP_TRANSPORT_ISCSI, SP_TRANSPORT_NVME_TCP };
enum sp_jitter_kind { SP_JITTER_NONE, SP_JITTER_ABS, SP_JITTER_PCT };

extern const char *const sp_mech_names[];	/* NULL-terminated */
extern const char *const sp_transport_names[];	/* NULL-terminated */
/* "iscsi" or "nvme-tcp" into *t; -EINVAL. */
int sp_transport_parse(const char *text, enum sp_transport *t);

struct sp_jitter {
	enum sp_jitter_kind kind;
	int64_t ns;		/* SP_JITTER_ABS */
	double pct;		/* SP_JITTER_PCT: of the path's larger delay */
};

struct sp_topo_path {
	char label[32];
	int line;		/* of its [path] header, for messages */
	int has_multiplier, has_delay;
	double multiplier;	/* of the unit */
	int64_t read_delay_ns, write_delay_ns;
	struct sp_jitter jitter;
	enum sp_dist dist;
	enum sp_mech mech;
	unsigned int relative_throughput;	/* service-time only */
	uint64_t cpumask;	/* io-affinity only: cpus = ; 0 default */
	int has_subnet;
	uint32_t subnet;	/* host order */
	int subnet_len;
};

/* The initiator's side of failover: what the map does with I/O when no
 * path is left, and how fast iSCSI gives up on a silent connection.
 * no_path_retry as multipath-tools says it: queue (for ever), fail (at
 * once) or N (queue for N checker intervals of SP_NPR_INTERVAL_S, the
 * multipathd default, then fail); there is no multipathd here, so N is
 * dm-multipath's queue_if_no_path_timeout_secs = N x 5 s. -1 in an
 * iSCSI timeout leaves iscsid's default. */
#define SP_NPR_UNSET (-3)
#define SP_NPR_QUEUE (-2)
#define SP_NPR_FAIL (-1)
#define SP_NPR_INTERVAL_S 5
#define SP_NPR_MAX 100000
#define SP_ISCSI_TIMEOUT_MAX 86400

struct sp_initiator {
	int has_queue_if_no_path, queue_if_no_path;
	int no_path_retry;		/* SP_NPR_* or N >= 0 */
	int replacement_timeout;	/* s; -1: iscsid's (120) */
	int noop_out_interval;		/* s; 0 off; -1: iscsid's (5) */
	int noop_out_timeout;		/* s; -1: iscsid's (5) */
	/* queue_mode = bio: the map bio-based (dm_table.h's
	 * SP_DM_QUEUE_BIO); 0 request-based, the kernel's default */
	int queue_bio;
};

void sp_initiator_init(struct sp_initiator *in);
/* Whether the map queues when no path is left. */
int sp_initiator_queues(const struct sp_initiator *in);
/* Seconds dm-multipath queues with no path before it fails I/O: 0 when
 * it does not time out (queue for ever, or no queueing at all). */
unsigned int sp_initiator_queue_timeout_s(const struct sp_initiator *in);
/* The same keys as `nvme connect` options, for an nvme-tcp path:
 * --keep-alive-tmo= the NOP-Out
 * interval plus its timeout (iscsid's 5 s each for the one not given;
 * 0 with interval 0); --ctrl-loss-tmo= -1 (queue), 0 (fail, or
 * queue_if_no_path no) or N x SP_NPR_INTERVAL_S. A key not given gives
 * no option (nvme-cli's default); replacement_timeout has none (nvme-cli
 * 2.3 has no --fast_io_fail_tmo, and native multipath sends a failed
 * path's I/O to the others at once). At most SP_NVME_OPTS into opts. */
#define SP_NVME_OPTS 2
#define SP_NVME_OPT_LEN 32
int sp_initiator_nvme_opts(const struct sp_initiator *in,
			   char opts[][SP_NVME_OPT_LEN], size_t *n);
/* "queue", "fail", "N" into *npr; -EINVAL. */
int sp_initiator_parse_npr(const char *text, int *npr);
/* "queue_if_no_path=yes no_path_retry=12 replacement_timeout=5 ..." for
 * status and the journal: only what was set ("" when nothing). */
int sp_initiator_format(const struct sp_initiator *in, char *buf,
			size_t len);
/* One "key=value" of sp_initiator_format's into *in; -EINVAL. */
int sp_initiator_parse_kv(struct sp_initiator *in, const char *kv);

#define SP_TOPO_INLINE_MAX (1024 * 1024)

struct sp_topo {
	char name[64];
	char file[256];
	char description[256];
	int64_t unit_ns, lab_unit_ns;
	/* 0: every command waits out its path's delay on its own; N: a
	 * path serves its commands N at a time, its delay being each
	 * one's service (a slow link; tgt-backend/delay_servers.h) */
	unsigned int servers;
	enum sp_transport transport;	/* iscsi unless the file says */
	int transport_line;		/* where it said so; 0: default */
	uint64_t size_bytes;
	/* nvme-tcp: nvmet's in-capsule write data, bytes (0: nvmet-tcp's
	 * default). A write past it is sent only after the target's R2T,
	 * one more round trip; on exact time fio resubmits a window of
	 * completions at once and the block layer merges them past 16k. */
	uint64_t inline_data_bytes;
	int inline_data_line;
	char backing_file[256];		/* "" lets `up` choose */
	struct sp_dm_selector selector;
	struct sp_initiator init;
	char map_name[128];
	uint32_t plan_addr;		/* host order */
	int plan_len, path_prefix;
	size_t npaths;
	struct sp_topo_path paths[SP_TOPO_MAX_PATHS];
};

/* One path with the unit applied and the delay split by mechanism. */
struct sp_topo_resolved_path {
	unsigned int index;		/* 1-based */
	const char *label;
	int64_t read_delay_ns, write_delay_ns, jitter_ns;
	enum sp_dist dist;
	enum sp_mech mech;
	int64_t backend_read_ns, backend_write_ns, backend_jitter_ns;
	int64_t backend_service_ns;	/* with servers: the serial stage */
	unsigned int servers;
	int64_t netem_delay_ns, netem_jitter_ns;
	uint32_t subnet, initiator_addr, target_addr;	/* host order */
	int prefix_len;
	char initiator_ip[16], target_ip[16];
	unsigned int relative_throughput;
	uint64_t cpumask;	/* io-affinity; 0: spread (dm_table.h) */
};

/* text is the whole file; file and name are for messages and defaults.
 * 0, or -EINVAL with err = "FILE:LINE: message naming the value". */
int sp_topo_parse(const char *text, const char *file, const char *name,
		  struct sp_topo *topo, char *err, size_t errlen);

/* A path, or a bare name looked up as DIR/NAME.ini where DIR is
 * $SLOWPATH_TOPODIR or the repository's topologies/. */
int sp_topo_locate(const char *name_or_path, char *path, size_t len,
		   char *err, size_t errlen);
int sp_topo_load(const char *name_or_path, struct sp_topo *topo, char *err,
		 size_t errlen);
/* The directory bare names are looked up in. */
const char *sp_topo_dir(char *buf, size_t len);

/* unit_ns <= 0 takes the topology's unit. out has npaths entries. */
int sp_topo_resolve(const struct sp_topo *topo, int64_t unit_ns,
		    struct sp_topo_resolved_path *out, char *err,
		    size_t errlen);

/* The map for this topology given the paths' devices (npaths of them). */
int sp_topo_dm_map(const struct sp_topo *topo, const unsigned int *majors,
		   const unsigned int *minors, struct sp_dm_map *map);

/* Address helpers, host order. */
int sp_topo_parse_cidr(const char *text, uint32_t *addr, int *len);
const char *sp_topo_fmt_addr(uint32_t addr, char *buf, size_t len);
int sp_topo_cidr_overlap(uint32_t a, int alen, uint32_t b, int blen);

#endif
