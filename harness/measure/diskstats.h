/* /proc/diskstats: parse, snapshot the devices a case cares about, and
 * take per-field deltas between two snapshots of the same devices. */
#ifndef SP_DISKSTATS_H
#define SP_DISKSTATS_H

#include <stddef.h>
#include <stdint.h>

/* Field order of Documentation/admin-guide/iostats.rst after the name. */
enum sp_ds_field {
	SP_DS_READS, SP_DS_RMERGES, SP_DS_RSECTORS, SP_DS_RTICKS,
	SP_DS_WRITES, SP_DS_WMERGES, SP_DS_WSECTORS, SP_DS_WTICKS,
	SP_DS_IN_FLIGHT, SP_DS_IO_TICKS, SP_DS_QUEUE_TICKS,
	SP_DS_DISCARDS, SP_DS_DMERGES, SP_DS_DSECTORS, SP_DS_DTICKS,
	SP_DS_FLUSHES, SP_DS_FTICKS,
	SP_DS_NFIELDS
};

/* Stat counts a kernel may print: before 4.18, 4.18+, 5.5+. */
#define SP_DS_FIELDS_OLD	11
#define SP_DS_FIELDS_DISCARD	15
#define SP_DS_FIELDS_FLUSH	17

#define SP_DS_NAMELEN 32

struct sp_diskstat {
	char name[SP_DS_NAMELEN];
	unsigned int major, minor;
	unsigned int n_fields;	/* how many stats the kernel printed */
	uint64_t v[SP_DS_NFIELDS];
};

/* Short column names, as in the seed's table: "reads", "rmerg", "tRed"... */
const char *sp_ds_field_name(enum sp_ds_field f);
/* -1 when the name is not a field. */
int sp_ds_field_by_name(const char *name);

/* One line of /proc/diskstats. origin and lineno only label errors. */
int sp_diskstats_parse_line(const char *line, const char *origin,
			    unsigned int lineno, struct sp_diskstat *out);

/* Picks names[0..n) out of a whole /proc/diskstats text, in that order.
 * Every line must parse (-EINVAL); a name absent is -ENOENT. */
int sp_diskstats_select(const char *text, const char *origin,
			const char *const *names, size_t n,
			struct sp_diskstat *out);

/* after - before for every counter, field by field, from the same two
 * snapshots; in_flight is a gauge, so it is the value at the end.
 * Device names must match pairwise; a counter going backwards is
 * -ERANGE (device reset or wrong pairing), differing field counts
 * -EINVAL. */
int sp_diskstats_delta(const struct sp_diskstat *before,
		       const struct sp_diskstat *after, size_t n,
		       struct sp_diskstat *delta);

/* What a path did during one case, derived from its delta. */
struct sp_path_summary {
	double share_ios;	/* (reads + writes) / all paths' */
	double share_reads, share_writes;
	double rsvc_ms, wsvc_ms;	/* tRed/reads, tWrit/writes; <0: none */
	double svc_ms;			/* both directions' ticks per I/O */
};

/* Shares are 0 in a direction no path saw I/O in. */
int sp_diskstats_summarise(const struct sp_diskstat *delta, size_t n,
			   struct sp_path_summary *out);

#endif
