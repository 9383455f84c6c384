/* Options of the delay store: one grammar for --bsopts at LUN creation
 * and for lines written to the LUN's ctl file at run time, driven by one
 * common/opttab table. Pairs are separated by ';' because tgtadm splits
 * its own parameters on ','. */
#ifndef SP_DELAY_OPTS_H
#define SP_DELAY_OPTS_H

/* Longest ctl= directory: room is left for the file names in it. */
#define DELAY_CTL_DIR_MAX 512

#include <stddef.h>
#include <stdint.h>

#include "common/units.h"

#define DELAY_OPTS_SEP ';'
/* Longest delay or jitter accepted: slowpath's one bound (a longer one
 * is surely a typo, and initiators time commands out after 30 s or so
 * anyway). */
#define DELAY_OPTS_MAX_NS SP_DELAY_MAX_NS

/* Longest poll_max: beyond it a timer is always cheaper than the CPU. */
#define DELAY_POLL_MAX_NS (10LL * 1000000LL)

enum delay_when { DELAY_WHEN_AFTER, DELAY_WHEN_BEFORE };
/* Where a command's file I/O runs: a pool of worker threads, or tgtd's
 * main loop itself (for a clock that stands still while the CPU works,
 * where a hand-off to a thread costs system calls and buys nothing). */
enum delay_io { DELAY_IO_POOL, DELAY_IO_INLINE };
enum delay_opts_scope { DELAY_OPTS_CREATE, DELAY_OPTS_RUNTIME };

struct delay_opts {
	int64_t read_delay_ns;
	int64_t write_delay_ns;
	int64_t jitter_ns;
	int dist;			/* enum sp_dist */
	int64_t seed;			/* -1: derive one at LUN creation */
	int when;			/* enum delay_when */
	int64_t service_ns;		/* each command's time in one of the servers */
	int64_t servers;		/* commands in service at once */
	int64_t poll_max_ns;		/* longest main-loop busy-wait per deadline */
	int64_t stats_interval_ns;	/* least time between stats rewrites */
	double error_rate;		/* share of commands failed, 0..1 */
	int error_sense;		/* enum delay_sense (delay_fault.h) */
	int hold;			/* 1: hold every new command */
	int io;				/* enum delay_io; creation only */
	const char *ctl;		/* control directory; NULL: default */
};

int delay_opts_defaults(struct delay_opts *o);

/* Applies "k=v;k=v" from text (modified in place; ctl points into it) on
 * top of *o, then validates. On error *o is left as it was, err names
 * the option and value. DELAY_OPTS_RUNTIME refuses ctl=. */
int delay_opts_parse(struct delay_opts *o, char *text,
		     enum delay_opts_scope scope, char *err, size_t errlen);

int delay_opts_validate(const struct delay_opts *o, char *err, size_t errlen);

/* The other direction of delay_opts_parse: "read_delay=1ms;...", the
 * text a --bsopts or a ctl line carries. The delays, jitter and dist
 * always appear (a ctl line applies on top of what is in force, so a
 * zero must be said); the other options only where they differ from
 * the defaults; ctl when set. Parsing it on top of the defaults gives
 * *o back. 0, -ENOSPC, or -EINVAL for a value the grammar cannot say. */
int delay_opts_format_kv(const struct delay_opts *o, char *buf, size_t len);

/* The settings as key=value lines (read_delay=1ms ...), for the stats
 * file. Returns bytes written, like snprintf. */
size_t delay_opts_format(const struct delay_opts *o, char *buf, size_t len);

const char *delay_dist_name(int dist);
const char *delay_when_name(int when);
const char *delay_io_name(int io);
/* "medium", "not-ready", ... (delay_fault.h); "?" out of range. */
const char *delay_sense_name(int sense);

/* One line per option, for docs and error hints. */
size_t delay_opts_help(char *buf, size_t len);

#endif
