#include "tgt-backend/delay_opts.h"

#include "common/opttab.h"
#include "common/units.h"
#include "tgt-backend/delay_servers.h"
#include "tgt-backend/delay_fault.h"
#include "tgt-backend/jitter.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const when_names[] = {
	[DELAY_WHEN_AFTER] = "after", [DELAY_WHEN_BEFORE] = "before", NULL,
};

static const char *const io_names[] = {
	[DELAY_IO_POOL] = "pool", [DELAY_IO_INLINE] = "inline", NULL,
};

#define OFF(f) offsetof(struct delay_opts, f)

static const struct sp_opt delay_table[] = {
	{ .name = "delay", .type = SP_OPT_DELAY, .offset = OFF(read_delay_ns),
	  .also_offset = OFF(write_delay_ns),
	  .help = "delay of every command, reads and writes" },
	{ .name = "read_delay", .type = SP_OPT_DELAY, .def = "0",
	  .offset = OFF(read_delay_ns),
	  .help = "delay of reads and other non-write commands" },
	{ .name = "write_delay", .type = SP_OPT_DELAY, .def = "0",
	  .offset = OFF(write_delay_ns),
	  .help = "delay of writes and cache flushes" },
	{ .name = "jitter", .type = SP_OPT_DELAY, .def = "0",
	  .offset = OFF(jitter_ns),
	  .help = "random extra delay: uniform half-width, normal sd, pareto mean" },
	{ .name = "dist", .type = SP_OPT_ENUM, .def = "uniform",
	  .choices = sp_dist_store_names, .offset = OFF(dist),
	  .help = "jitter distribution: uniform|normal|pareto" },
	{ .name = "seed", .type = SP_OPT_INT, .def = "-1", .min = -1,
	  .max = 9007199254740992.0, .offset = OFF(seed),
	  .help = "jitter seed for reproducible runs; -1 picks one" },
	{ .name = "when", .type = SP_OPT_ENUM, .def = "after",
	  .choices = when_names, .offset = OFF(when),
	  .help = "hold the completion after the I/O, or the I/O before it" },
	{ .name = "service", .type = SP_OPT_DELAY, .def = "0",
	  .offset = OFF(service_ns),
	  .help = "time each command holds one of the LUN's servers; "
		  "commands beyond 'servers' wait their turn (a serial path)" },
	{ .name = "servers", .type = SP_OPT_INT, .def = "1", .min = 1,
	  .max = DELAY_SERVERS_MAX, .offset = OFF(servers),
	  .help = "commands in service at once, 1-64 (with 'service')" },
	{ .name = "poll_max", .type = SP_OPT_DURATION, .def = "200us",
	  .offset = OFF(poll_max_ns),
	  .help = "longest busy-wait of tgtd's main loop before a deadline; 0: timer only" },
	{ .name = "stats_interval", .type = SP_OPT_DURATION, .def = "100ms",
	  .offset = OFF(stats_interval_ns),
	  .help = "least time between rewrites of the stats file" },
	{ .name = "error_rate", .type = SP_OPT_DOUBLE, .def = "0",
	  .min = 0, .max = 1, .offset = OFF(error_rate),
	  .help = "share of commands failed with error_sense, 0..1 (a fault)" },
	{ .name = "error_sense", .type = SP_OPT_ENUM, .def = "medium",
	  .choices = delay_sense_names, .offset = OFF(error_sense),
	  .help = "sense of a failed command: medium (03/11/00), not-ready "
	  "(02/04/00), aborted (0b/00/00), hardware (04/44/00)" },
	{ .name = "hold", .type = SP_OPT_BOOL, .def = "0", .offset = OFF(hold),
	  .help = "1: hold every new command until hold=0 (a hung target)" },
	{ .name = "io", .type = SP_OPT_ENUM, .def = "pool",
	  .choices = io_names, .offset = OFF(io),
	  .help = "where the file I/O runs: pool (worker threads) or inline "
		  "(tgtd's main loop: for the exact-time lab; creation only)" },
	{ .name = "ctl", .type = SP_OPT_STR, .offset = OFF(ctl),
	  .help = "control directory (absolute; creation only)" },
	SP_OPT_END,
};

int delay_opts_defaults(struct delay_opts *o)
{
	memset(o, 0, sizeof(*o));
	return sp_opt_set_defaults(delay_table, o);
}

static int check_range(const char *name, int64_t ns, int64_t min_ns,
		       char *err, size_t errlen)
{
	char buf[32], lo[32], hi[32];

	if (ns >= min_ns && ns <= DELAY_OPTS_MAX_NS)
		return 0;
	snprintf(err, errlen, "bad value '%s' for option '%s': must be from %s to %s",
		 sp_format_duration(ns, buf, sizeof(buf)), name,
		 sp_format_duration(min_ns, lo, sizeof(lo)),
		 sp_format_duration(DELAY_OPTS_MAX_NS, hi, sizeof(hi)));
	return -ERANGE;
}

int delay_opts_validate(const struct delay_opts *o, char *err, size_t errlen)
{
	int ret;

	if ((ret = check_range("read_delay", o->read_delay_ns, 0, err, errlen)) ||
	    (ret = check_range("write_delay", o->write_delay_ns, 0, err, errlen)) ||
	    (ret = check_range("jitter", o->jitter_ns, 0, err, errlen)) ||
	    (ret = check_range("service", o->service_ns, 0, err, errlen)) ||
	    (ret = check_range("stats_interval", o->stats_interval_ns,
			       10 * SP_NSEC_PER_MSEC, err, errlen)))
		return ret;
	if (o->poll_max_ns < 0 || o->poll_max_ns > DELAY_POLL_MAX_NS) {
		char buf[32];

		snprintf(err, errlen, "bad value '%s' for option 'poll_max': "
			 "must be from 0 to 10ms",
			 sp_format_duration(o->poll_max_ns, buf, sizeof(buf)));
		return -ERANGE;
	}
	if (o->ctl && o->ctl[0] != '/') {
		snprintf(err, errlen,
			 "bad value '%s' for option 'ctl': want an absolute directory path",
			 o->ctl);
		return -EINVAL;
	}
	if (o->ctl && strlen(o->ctl) > DELAY_CTL_DIR_MAX) {
		snprintf(err, errlen,
			 "bad value for option 'ctl': longer than %d characters",
			 DELAY_CTL_DIR_MAX);
		return -ENAMETOOLONG;
	}
	return 0;
}

int delay_opts_parse(struct delay_opts *o, char *text,
		     enum delay_opts_scope scope, char *err, size_t errlen)
{
	struct delay_opts next = *o;
	int ret;

	if (scope == DELAY_OPTS_RUNTIME)
		next.ctl = NULL;
	ret = sp_opt_parse_kv(delay_table, &next, text, DELAY_OPTS_SEP, err, errlen);
	if (ret)
		return ret;
	if (scope == DELAY_OPTS_RUNTIME) {
		const char *late = next.ctl ? "ctl" : next.io != o->io ? "io" : NULL;

		if (late) {
			snprintf(err, errlen,
				 "option '%s' can only be given when the LUN is created",
				 late);
			return -EINVAL;
		}
		next.ctl = o->ctl;
	}
	ret = delay_opts_validate(&next, err, errlen);
	if (ret)
		return ret;
	*o = next;
	return 0;
}

const char *delay_dist_name(int dist)
{
	return dist >= 0 && dist <= SP_DIST_PARETO ? sp_dist_store_names[dist]
						   : "?";
}

const char *delay_sense_name(int sense)
{
	return sense >= 0 && sense < DELAY_SENSE_COUNT ?
		delay_sense_names[sense] : "?";
}

const char *delay_when_name(int when)
{
	return when >= 0 && when <= DELAY_WHEN_BEFORE ? when_names[when] : "?";
}

const char *delay_io_name(int io)
{
	return io >= 0 && io <= DELAY_IO_INLINE ? io_names[io] : "?";
}

size_t delay_opts_format(const struct delay_opts *o, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len,
		     "read_delay_ns=%lld\nwrite_delay_ns=%lld\njitter_ns=%lld\n"
		     "dist=%s\nseed=%lld\nwhen=%s\npoll_max_ns=%lld\n"
		     "service_ns=%lld\nservers=%lld\n"
		     "error_rate=%g\nerror_sense=%s\nhold=%d\nio=%s\n",
		     (long long)o->read_delay_ns, (long long)o->write_delay_ns,
		     (long long)o->jitter_ns, delay_dist_name(o->dist),
		     (long long)o->seed, delay_when_name(o->when),
		     (long long)o->poll_max_ns, (long long)o->service_ns,
		     (long long)o->servers, o->error_rate,
		     delay_sense_name(o->error_sense), o->hold,
		     delay_io_name(o->io));
	return n < 0 ? 0 : (size_t)n;
}

/* Appends one "key=value" pair, ';' before all but the first. */
static int put_kv(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int put_kv(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used && *used + 1 < len)
		buf[(*used)++] = DELAY_OPTS_SEP;
	else if (*used)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used)
		return -ENOSPC;
	*used += (size_t)n;
	return 0;
}

int delay_opts_format_kv(const struct delay_opts *o, char *buf, size_t len)
{
	struct delay_opts def;
	char rd[32], wr[32], ji[32], pm[32], si[32], sv[32];
	size_t used = 0;
	int ret;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (o->dist < 0 || o->dist > SP_DIST_PARETO || o->when < 0 ||
	    o->when > DELAY_WHEN_BEFORE || o->io < 0 || o->io > DELAY_IO_INLINE ||
	    o->error_sense < 0 ||
	    o->error_sense >= DELAY_SENSE_COUNT || !(o->error_rate >= 0) ||
	    o->error_rate > 1 ||
	    (o->ctl && strchr(o->ctl, DELAY_OPTS_SEP)))
		return -EINVAL;
	delay_opts_defaults(&def);
	ret = put_kv(buf, len, &used, "read_delay=%s;write_delay=%s;"
		     "jitter=%s;dist=%s",
		     sp_format_duration(o->read_delay_ns, rd, sizeof(rd)),
		     sp_format_duration(o->write_delay_ns, wr, sizeof(wr)),
		     sp_format_duration(o->jitter_ns, ji, sizeof(ji)),
		     sp_dist_store_names[o->dist]);
	if (!ret && o->seed != def.seed)
		ret = put_kv(buf, len, &used, "seed=%lld", (long long)o->seed);
	if (!ret && o->when != def.when)
		ret = put_kv(buf, len, &used, "when=%s", when_names[o->when]);
	if (!ret && o->service_ns != def.service_ns)
		ret = put_kv(buf, len, &used, "service=%s",
			     sp_format_duration(o->service_ns, sv, sizeof(sv)));
	if (!ret && o->servers != def.servers)
		ret = put_kv(buf, len, &used, "servers=%lld", (long long)o->servers);
	if (!ret && o->poll_max_ns != def.poll_max_ns)
		ret = put_kv(buf, len, &used, "poll_max=%s",
			     sp_format_duration(o->poll_max_ns, pm, sizeof(pm)));
	if (!ret && o->stats_interval_ns != def.stats_interval_ns)
		ret = put_kv(buf, len, &used, "stats_interval=%s",
			     sp_format_duration(o->stats_interval_ns, si,
						sizeof(si)));
	/* %.17g: the rate parses back to the same double */
	if (!ret && o->error_rate != def.error_rate)
		ret = put_kv(buf, len, &used, "error_rate=%.17g",
			     o->error_rate);
	if (!ret && o->error_sense != def.error_sense)
		ret = put_kv(buf, len, &used, "error_sense=%s",
			     delay_sense_names[o->error_sense]);
	if (!ret && o->hold != def.hold)
		ret = put_kv(buf, len, &used, "hold=%d", o->hold);
	if (!ret && o->io != def.io)
		ret = put_kv(buf, len, &used, "io=%s", io_names[o->io]);
	if (!ret && o->ctl)
		ret = put_kv(buf, len, &used, "ctl=%s", o->ctl);
	if (ret)
		buf[0] = '\0';
	return ret;
}

size_t delay_opts_help(char *buf, size_t len)
{
	return sp_opt_help(delay_table, buf, len);
}
