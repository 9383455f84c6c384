/* The timeline of one case: /proc/diskstats of every path disk and of
 * the map, and the paths' states in the map's status, sampled while
 * fio runs; the fault events of the case; and what a storage engineer
 * reads off them: per-path IOPS and in-flight I/Os per interval, the
 * longest stretch without completions on the map (the stall), and per
 * fault the time until the map failed the path and, after the restore,
 * until it took the path back. Pure: the run loop feeds it samples, the
 * report reads them back from <case>.timeline.tsv. */
#ifndef SP_TIMELINE_H
#define SP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/measure/diskstats.h"

#define SP_TL_MAX_DEVS 17	/* the paths (SP_CASE_MAX_PATHS) and the map */
#define SP_TL_MAX_EVENTS 64	/* SP_FAULT_MAX faults, applied and restored */
#define SP_TL_MAX_SAMPLES (4u << 20)	/* ~5 h of 17 devices at 10 Hz */
/* The latest time (ms since fio started) a timeline row or a fault
 * event may carry, and the longest an event may take: about 34 years,
 * far past any run, and small enough that t_ms + took_ms of two such
 * times cannot overflow an int64_t. Files past it are refused. */
#define SP_TL_MS_MAX ((int64_t)1 << 40)
/* The selector's numeric args per path kept from the map's status:
 * HST "estimate outstanding stale_after", ST "in_flight_size
 * relative_throughput", QL "qlen" (dm-ps-*.c, STATUSTYPE_INFO). */
#define SP_TL_MAX_SEL 3

/* A path's state as the map's status last said it. */
enum sp_tl_state {
	SP_TL_UNKNOWN = '-',	/* the map itself, or status not read */
	SP_TL_ACTIVE = 'A',
	SP_TL_FAILED = 'F',
};

struct sp_tl_sample {
	int64_t t_ms;		/* since fio started */
	uint32_t dev;		/* index into sp_timeline.dev */
	uint32_t in_flight;
	uint64_t ios;		/* reads + writes completed, since boot */
	uint64_t sectors;	/* read + written, since boot */
	uint64_t ticks_ms;	/* read + write ticks (diskstats 4 + 8) */
	uint64_t sel[SP_TL_MAX_SEL];	/* the selector's args, as read */
	uint8_t n_sel;		/* 0: none read (the map, RR, old files) */
	uint8_t has_ticks;	/* 0: a row of before ticks_ms was kept */
	char state;		/* enum sp_tl_state */
};

/* What the map's status last said of one path: its state and its
 * selector's args. */
struct sp_tl_path_view {
	char state;		/* enum sp_tl_state */
	uint8_t n_sel;
	uint64_t sel[SP_TL_MAX_SEL];
};

struct sp_timeline {
	size_t n_devs;		/* paths first, the map last */
	char dev[SP_TL_MAX_DEVS][SP_DS_NAMELEN];
	struct sp_tl_sample *s;
	size_t n, cap;
	int full;		/* SP_TL_MAX_SAMPLES reached: later ones dropped */
	/* CLOCK_MONOTONIC (ns) of the host running the map at t_ms = 0,
	 * so HST's stale_after (ktime_get_ns) reads as "stale in X ms";
	 * -1: unknown (old files, or not given) */
	int64_t mono_ns_t0;
	/* the map's row is the sum of the paths' (ios, sectors, in flight,
	 * ticks): nvme-tcp's head disk, which fio writes to, keeps no I/O
	 * statistics on 6.1; the TSV says so in a comment */
	int map_sums_paths;
};

enum sp_tl_event_kind {
	SP_TL_EV_APPLIED,
	SP_TL_EV_RESTORED,
	SP_TL_EV_FAILED,	/* applying or restoring did not work */
	SP_TL_EV_KINDS
};

/* One fault event: what the case JSON records and the plot marks. */
struct sp_tl_event {
	int64_t t_ms;		/* since fio started, when it was begun */
	int64_t took_ms;	/* how long applying or restoring took */
	char path[64];		/* the topology's path label, e.g. p2 */
	char dev[SP_DS_NAMELEN];	/* its disk, e.g. sdc */
	char how[16];		/* hang, reset, ... as fault.h names them */
	enum sp_tl_event_kind kind;
};

const char *sp_tl_event_kind_name(enum sp_tl_event_kind k);
/* -1 when name is no kind. */
int sp_tl_event_kind_by_name(const char *name);

/* An empty timeline of devs[0..n) (paths, then the map). -EINVAL when
 * n is 0 or above SP_TL_MAX_DEVS or a name is too long. */
int sp_tl_init(struct sp_timeline *tl, const char *const *devs, size_t n);
void sp_tl_free(struct sp_timeline *tl);
/* -1 when dev is not one of the timeline's. */
int sp_tl_dev_index(const struct sp_timeline *tl, const char *dev);

/* One row. -ENOMEM; past SP_TL_MAX_SAMPLES sets full and drops it (0). */
int sp_tl_add(struct sp_timeline *tl, const struct sp_tl_sample *s);

/* One tick: every device of tl out of a whole /proc/diskstats text at
 * t_ms (the map's row the paths' sum when tl->map_sums_paths). views[i]
 * is path i's state and selector args (NULL: all unknown); the map's
 * are always unknown. -EINVAL/-ENOENT as
 * sp_diskstats_select. */
int sp_tl_add_diskstats(struct sp_timeline *tl, int64_t t_ms,
			const char *diskstats,
			const struct sp_tl_path_view *views);

/* One path of a multipath map's status. */
struct sp_mpath_path {
	unsigned int major, minor;
	int active;		/* 'A' in the status, else 'F' */
	unsigned int fail_count;
	/* the selector's first SP_TL_MAX_SEL per-path args, when every one
	 * of them is a decimal number (0: none, or one was not) */
	unsigned int n_sel;
	uint64_t sel[SP_TL_MAX_SEL];
};

/* The map's status line (`dmsetup status`: "START LEN multipath ..." or
 * only what follows "multipath") into its paths, in table order across
 * priority groups. -EINVAL when it is not a multipath status. */
int sp_mpath_status_parse(const char *text, struct sp_mpath_path *paths,
			  size_t max, size_t *n);

/* Each path disk of tl (major:minor from the diskstats text) gets its
 * view out of the parsed status: views[0..n_devs-1), state 'A', 'F' or
 * '-' (and no selector args) when the map does not list it. */
void sp_tl_path_states(const struct sp_timeline *tl, const char *diskstats,
		       const struct sp_mpath_path *paths, size_t n,
		       struct sp_tl_path_view *views);

/* ---- nvme-tcp paths (timeline_nvme.c) ----
 * No map, no map status: a path of native multipath is usable when
 * its controller is live (/sys/class/nvme/nvmeK/state) and its hidden
 * disk's ANA state (/sys/block/nvmeScKnH/ana_state) is optimized or
 * non-optimized, as the kernel's nvme_path_is_disabled and
 * nvme_state_is_live have it. */

/* 'A' usable, 'F' not (controller connecting, resetting, deleting...;
 * ANA inaccessible, persistent-loss, change), '-' when neither text
 * was read (NULL or ""). A trailing newline is fine. */
char sp_tl_nvme_state(const char *ctrl_state, const char *ana_state);
/* The controller of a path's disk: "nvme0c2n1" -> "nvme2". -EINVAL
 * when disk is not nvmeScKnH, -ENOSPC when ctrl is too small. */
int sp_tl_nvme_ctrl_of(const char *disk, char *ctrl, size_t len);

/* The TSV: a header, one row per device and tick (t_ms dev ios_done
 * in_flight sectors path_state ticks_ms selector, the last "v1,v2,v3"
 * or "-"), a "# clock" comment with mono_ns_t0 when known and a
 * "# fault" comment line per event, so gnuplot and awk read it as is.
 * The parser also reads the 6-column rows of before selector state. */
int sp_tl_write_tsv(FILE *out, const struct sp_timeline *tl,
		    const struct sp_tl_event *ev, size_t n_ev);
/* Reads the rows back (comment lines skipped); the devices in the order
 * they first appear. -EINVAL with one message naming origin:line. */
int sp_tl_parse_tsv(const char *text, const char *origin,
		    struct sp_timeline *tl);

/* ---- metrics (timeline_metrics.c) ---- */

/* Per device and interval between two ticks: rows of iops[n_devs] and
 * in_flight[n_devs] at the interval's end time. */
struct sp_tl_interval {
	int64_t t_ms;		/* end of the interval */
	double iops[SP_TL_MAX_DEVS];
	uint32_t in_flight[SP_TL_MAX_DEVS];
	char state[SP_TL_MAX_DEVS];
	/* the measured mean latency of the I/Os completed in the interval
	 * (delta ticks / delta ios, ms); -1: none completed, or the
	 * counters went backwards */
	double lat_ms[SP_TL_MAX_DEVS];
	/* the selector's args at the interval's end */
	uint8_t n_sel[SP_TL_MAX_DEVS];
	uint64_t sel[SP_TL_MAX_DEVS][SP_TL_MAX_SEL];
};

/* The intervals of tl, malloc'd (*n of them; 0 for fewer than two
 * ticks). Counters going backwards give 0 IOPS. -ENOMEM. */
int sp_tl_intervals(const struct sp_timeline *tl, struct sp_tl_interval **out,
		    size_t *n);

/* The longest stretch with I/O in flight on dev and no completion:
 * from the last tick before the count stopped moving to the first tick
 * after it moved again (or the last tick, if it never did). Idle time
 * (nothing in flight) is not a stall. */
struct sp_tl_stall {
	int64_t ms;		/* 0: none */
	int64_t from_ms, to_ms;
};
void sp_tl_stall(const struct sp_timeline *tl, size_t dev, int64_t from_ms,
		 int64_t to_ms, struct sp_tl_stall *out);

/* The standard error of each path's share of the completed I/O, by
 * batch means: the run cut into `batches` stretches of equal ticks,
 * var(p_i) = B/(B-1) x sum over b of (c_bi - p_i n_b)^2 / N^2 (c_bi the
 * path's completions in batch b, n_b all paths', N the total). A
 * selector's choices follow each other (round-robin's exactly), so the
 * binomial sqrt(p (1 - p) / N) says little about them. se[0..n_paths)
 * (may be NULL) and *worst, the largest. -ENODATA with fewer ticks than
 * batches + 1 or no completions; -EINVAL for fewer than 2 batches or
 * more paths than devices; -ERANGE when a counter went backwards. */
int sp_tl_share_se(const struct sp_timeline *tl, size_t n_paths,
		   size_t batches, double *se, double *worst);

/* What the map did about one fault: from an APPLIED event to the first
 * tick with the path failed in the map's status before the fault was
 * undone (the end of its RESTORED event; -1: not failed by then), from
 * its RESTORED event to the first tick with it active again (-1: never
 * failed, never restored or never back), and the longest stall on the
 * map from the fault until the next fault is applied (or the end). */
struct sp_tl_fault_metrics {
	const struct sp_tl_event *applied, *restored;	/* restored may be NULL */
	int64_t failover_ms, reinstate_ms;
	struct sp_tl_stall stall;
};

/* One entry per APPLIED event in ev (time order), *n of them, up to
 * max. The map is tl's last device. */
void sp_tl_fault_metrics(const struct sp_timeline *tl,
			 const struct sp_tl_event *ev, size_t n_ev,
			 struct sp_tl_fault_metrics *out, size_t max,
			 size_t *n);

#endif
