/* A topology: how many iSCSI paths lead to the one disk, how slow each
 * is and by which mechanism, which selector the multipath map uses and
 * which addresses the paths live on. Files are commented INI, see
 * docs/topologies.md; parsing and resolution are pure so `up` and the
 * tests share them. */
#ifndef SP_TOPO_H
#define SP_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "dm/dm_table.h"

#define SP_TOPO_MAX_PATHS 16
#define SP_TOPO_ERRLEN 512
#define SP_TOPO_MAP_PREFIX "slowpath-"
/* The benchmarking range (RFC 2544): no address plan may leave it. */
#define SP_TOPO_RANGE_ADDR 0xC6120000u	/* 198.18.0.0 */
#define SP_TOPO_RANGE_LEN 15

enum sp_mech { SP_MECH_BACKEND, SP_MECH_NETEM, SP_MECH_BOTH };
enum sp_dist {
	SP_DIST_UNIFORM, SP_DIST_NORMAL, SP_DIST_PARETO, SP_DIST_PARETONORMAL,
};
enum sp_jitter_kind { SP_JITTER_NONE, SP_JITTER_ABS, SP_JITTER_PCT };

extern const char *const sp_mech_names[];	/* NULL-terminated */
extern const char *const sp_dist_names[];

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

struct sp_topo {
	char name[64];
	char file[256];
	char description[256];
	int64_t unit_ns, lab_unit_ns;
	/* 0: every command waits out its path's delay on its own; N: a
	 * path serves its commands N at a time, its delay being each
	 * one's service (a slow link; tgt-backend/delay_servers.h) */
	unsigned int servers;
	uint64_t size_bytes;
	char backing_file[256];		/* "" lets `up` choose */
	struct sp_dm_selector selector;
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
