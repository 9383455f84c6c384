/* fio argv and --job files for `slowpath run`. The job file check is
 * a line scanner over fio's ini grammar ([section], key=value, key,
 * ';' and '#' comments): enough to see every option name, which is all
 * the safety rule needs. */
#include "harness/run/run_fio.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct argv_builder {
	struct sp_run_argv *a;
	size_t used;
	int overflow;
};

static void add(struct argv_builder *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct argv_builder *b, const char *fmt, ...)
{
	struct sp_run_argv *a = b->a;
	size_t room = sizeof(a->buf) - b->used;
	va_list ap;
	int n;

	if (b->overflow || a->argc + 1 >= SP_RUN_ARGV_MAX) {
		b->overflow = 1;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(a->buf + b->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		b->overflow = 1;
		return;
	}
	a->argv[a->argc++] = a->buf + b->used;
	a->argv[a->argc] = NULL;
	b->used += (size_t)n + 1;
}

int sp_run_fio_argv(const struct sp_run_plan *plan,
		    const struct sp_run_case *c, const char *device,
		    const char *job_path, struct sp_run_argv *out)
{
	struct argv_builder b = { .a = out };

	memset(out, 0, sizeof(*out));
	add(&b, "fio");
	add(&b, "--output-format=json");
	if (plan->clock_gettime)
		add(&b, "--clocksource=clock_gettime");
	if (job_path) {
		add(&b, "%s", job_path);
		return b.overflow ? -ENOSPC : 0;
	}
	/* the reference: --ioengine=libaio --size=500M --bs=4k --direct=1
	 * --numjobs 1 --filename=/dev/mapper/... --name=... --rw --iodepth */
	add(&b, "--name=slowpath");
	add(&b, "--filename=%s", device);
	add(&b, "--ioengine=libaio");
	add(&b, "--direct=1");
	add(&b, "--rw=%s", c->rw);
	add(&b, "--bs=%llu", (unsigned long long)c->bs);
	add(&b, "--iodepth=%d", c->iodepth);
	add(&b, "--numjobs=%d", plan->numjobs);
	add(&b, "--size=%llu", (unsigned long long)plan->size_bytes);
	if (plan->stop == SP_RUN_STOP_IOS)
		add(&b, "--number_ios=%llu", (unsigned long long)plan->ios);
	if (plan->stop == SP_RUN_STOP_RUNTIME) {
		add(&b, "--runtime=%u", plan->runtime_s);
		add(&b, "--time_based");
	}
	/* one entry, exact percentiles, whatever numjobs is */
	add(&b, "--group_reporting");
	if (plan->verify) {
		/* every block checked soon after it is written (backlog)
		 * and all of them at the end; no state file in our cwd */
		add(&b, "--verify=crc32c");
		add(&b, "--do_verify=1");
		add(&b, "--verify_backlog=%u", SP_RUN_VERIFY_BACKLOG);
		add(&b, "--verify_fatal=0");
		add(&b, "--verify_state_save=0");
	}
	/* through faults: count every error and go on, not stop at one */
	if (sp_run_counts_errors(plan)) {
		add(&b, "--continue_on_error=all");
		add(&b, "--ignore_error=%s", sp_run_ignore_errors());
	}
	return b.overflow ? -ENOSPC : 0;
}

/* Options refused with a reason of their own: the matrix's (a mistake,
 * so say which flag to use) and the best-known ways out of the map. The
 * allowlist below refuses everything else. */
static const struct {
	const char *key, *why;
} refused[] = {
	{ "directory", "would put files outside the map" },
	{ "filename_format", "would put files outside the map" },
	{ "opendir", "would put files outside the map" },
	{ "create_on_open", "would create files" },
	{ "unlink", "would remove files" },
	{ "exec_prerun", "runs a command" },
	{ "exec_postrun", "runs a command" },
	{ "trigger", "runs a command" },
	{ "trigger_cmd", "runs a command" },
	{ "trigger_remote_cmd", "runs a command" },
	{ "read_iolog", "replays I/O from another file" },
	{ "write_iolog", "writes a file outside the run" },
	{ "ioscheduler", "changes the kernel's settings" },
	{ "rw", "is the matrix's: use --rw" },
	{ "readwrite", "is the matrix's: use --rw" },
	{ "bs", "is the matrix's: use --bs" },
	{ "blocksize", "is the matrix's: use --bs" },
	{ "iodepth", "is the matrix's: use --iodepth" },
	{ "numjobs", "is the matrix's: use --numjobs" },
};

/* What a job file may set: an allowlist, because fio has hundreds of
 * options and new ones that write files (write_iolog, verify_state_save,
 * ioscheduler), run commands (exec_*, trigger*, ioengine=exec) or read
 * other files (include, read_iolog) keep appearing. Everything here
 * shapes the I/O on the one file fio is given, or how it is reported. */
static const char *const allowed[] = {
	"name", "description", "ioengine", "direct", "buffered", "size",
	"io_size", "io_limit", "offset", "offset_increment", "offset_align",
	"runtime", "time_based", "ramp_time", "startdelay", "number_ios",
	"loops", "rwmixread", "rwmixwrite", "percentage_random",
	"random_distribution", "randrepeat", "randseed", "norandommap",
	"random_generator", "bssplit", "bsrange", "blockalign", "ba",
	"bs_unaligned", "bs_is_seq_rand", "rate", "rate_iops", "rate_min",
	"rate_iops_min", "rate_process", "rate_cycle", "thinktime",
	"thinktime_blocks", "thinktime_spin", "iodepth_batch",
	"iodepth_batch_submit", "iodepth_batch_complete",
	"iodepth_batch_complete_min", "iodepth_batch_complete_max",
	"iodepth_low", "io_submit_mode", "group_reporting", "stonewall",
	"wait_for_previous", "new_group", "wait_for", "verify", "do_verify",
	"verify_backlog", "verify_backlog_batch", "verify_pattern",
	"verify_interval", "verify_offset", "verify_fatal", "verify_async",
	"verify_only", "verifysort", "verify_header_seed", "fsync",
	"fdatasync", "end_fsync", "fsync_on_close", "sync", "hipri",
	"fixedbufs", "registerfiles", "sqthread_poll", "cpus_allowed",
	"cpus_allowed_policy", "cpumask", "nice", "prio", "prioclass",
	"zero_buffers", "refill_buffers", "scramble_buffers",
	"buffer_compress_percentage", "buffer_compress_chunk",
	"dedupe_percentage", "buffer_pattern", "unified_rw_reporting",
	"lat_percentiles", "clat_percentiles", "slat_percentiles",
	"percentile_list", "disable_lat", "disable_clat", "disable_slat",
	"disable_bw_measurement", "gtod_reduce", "clocksource",
	"continue_on_error", "ignore_error", "error_dump", "exitall",
	"exitall_on_error", "kb_base", "unit_base", "invalidate",
	"allow_mounted_write", "max_latency", "latency_target",
	"latency_window", "latency_percentile", "userspace_reap",
	"serialize_overlap", NULL,
};

/* The engines the harness knows how to read: no exec, external or
 * network engine, which would run or reach something else. */
/* fio goes on after only a few errnos (EIO, EILSEQ, ...); a path fault
 * fails I/O with whatever the block layer maps its status to: medium
 * ENODATA, transport ENOLINK, target EREMOTEIO, nexus EBADE, timeout
 * ETIMEDOUT, offline ENODEV ... (blk_status_to_errno). All of them are
 * what the run counts, for reads and writes; verify adds EILSEQ. */
const char *sp_run_ignore_errors(void)
{
	static char list[256];
	static const int io[] = {
		EIO, ENODATA, ENOLINK, EREMOTEIO, EBADE, ETIMEDOUT, ENOSPC,
		EILSEQ, ENODEV, EAGAIN, EBUSY, ENOMEM, ETIME, EOPNOTSUPP,
	};
	size_t i, k, n = 0;

	if (list[0])
		return list;
	/* READ,WRITE,VERIFY lists, each errno:errno:... */
	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(io) / sizeof(io[0]); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d",
					      i ? ":" : k ? "," : "", io[i]);
	return list;
}

static const char *const allowed_engines[] = {
	"libaio", "io_uring", "psync", "sync", NULL,
};

static int in_list(const char *const *list, const char *s, size_t n)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncmp(*list, s, n))
			return 1;
	return 0;
}

struct job_line {
	int blank;		/* empty or comment */
	int section;		/* [name] */
	int is_global;
	char key[64];
	const char *value;	/* after '=', NULL for a bare key */
	size_t value_len;
};

/* One line (without its newline) of a fio job file. */
static int scan_line(const char *s, size_t len, struct job_line *l)
{
	const char *end = s + len, *eq, *k, *ke;
	size_t n;

	memset(l, 0, sizeof(*l));
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (s == end || *s == ';' || *s == '#') {
		l->blank = 1;
		return 0;
	}
	if (*s == '[') {
		if (end[-1] != ']')
			return -EINVAL;
		l->section = 1;
		l->is_global = end - s == 8 && !strncmp(s, "[global]", 8);
		return 0;
	}
	/* "include FILE" is the one directive with a blank in it */
	if (!strncmp(s, "include", 7) && (size_t)(end - s) > 7 &&
	    isspace((unsigned char)s[7])) {
		strcpy(l->key, "include");
		return 0;
	}
	eq = memchr(s, '=', (size_t)(end - s));
	k = s;
	ke = eq ? eq : end;
	while (ke > k && isspace((unsigned char)ke[-1]))
		ke--;
	n = (size_t)(ke - k);
	if (!n || n >= sizeof(l->key))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		l->key[i] = (char)tolower((unsigned char)k[i]);
	l->key[n] = '\0';
	if (eq) {
		for (eq++; eq < end && isspace((unsigned char)*eq); eq++)
			;
		l->value = eq;
		l->value_len = (size_t)(end - eq);
	}
	return 0;
}

static int check_line(const struct job_line *l, const char *origin,
		      unsigned int lineno, const char *device, char *err,
		      size_t errlen)
{
	size_t i;

	if (l->blank || l->section)
		return 0;
	/* fio takes any line starting with "include" as one */
	if (!strncmp(l->key, "include", 7)) {
		snprintf(err, errlen, "%s:%u: 'include' is refused: slowpath "
			 "checks one job file, give it the whole job", origin,
			 lineno);
		return -EINVAL;
	}
	if (!strcmp(l->key, "filename")) {
		if (l->value && l->value_len == strlen(device) &&
		    !strncmp(l->value, device, l->value_len))
			return 0;
		snprintf(err, errlen, "%s:%u: filename=%.*s is not the map %s; "
			 "slowpath run only ever writes to the map", origin,
			 lineno, l->value ? (int)l->value_len : 0,
			 l->value ? l->value : "", device);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(l->key, refused[i].key)) {
			snprintf(err, errlen, "%s:%u: '%s' %s", origin, lineno,
				 l->key, refused[i].why);
			return -EINVAL;
		}
	if (!in_list(allowed, l->key, strlen(l->key))) {
		snprintf(err, errlen, "%s:%u: '%s' is not an option slowpath "
			 "lets a job file set (docs/run.md lists them)", origin,
			 lineno, l->key);
		return -EINVAL;
	}
	if (!strcmp(l->key, "ioengine") &&
	    !(l->value && in_list(allowed_engines, l->value, l->value_len))) {
		snprintf(err, errlen, "%s:%u: ioengine=%.*s is refused: use "
			 "libaio, io_uring, psync or sync", origin, lineno,
			 l->value ? (int)l->value_len : 0,
			 l->value ? l->value : "");
		return -EINVAL;
	}
	return 0;
}

/* Calls fn for each line; stops at the first error. */
static int each_line(const char *text, const char *origin,
		     const char *device, char *err, size_t errlen,
		     int (*fn)(const struct job_line *, const char *line,
			       size_t len, void *ctx),
		     void *ctx)
{
	const char *p = text, *nl;
	unsigned int lineno = 0;
	struct job_line l;
	size_t len;
	int ret;

	while (*p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (scan_line(p, len, &l)) {
			snprintf(err, errlen, "%s:%u: '%.*s' is not a fio job "
				 "line", origin, lineno, (int)(len > 60 ? 60 : len),
				 p);
			return -EINVAL;
		}
		ret = check_line(&l, origin, lineno, device, err, errlen);
		if (!ret && fn)
			ret = fn(&l, p, len, ctx);
		if (ret)
			return ret;
		p += len + (nl != NULL);
	}
	return 0;
}

int sp_run_job_check(const char *text, const char *origin,
		     const char *device, char *err, size_t errlen)
{
	return each_line(text, origin, device, err, errlen, NULL, NULL);
}

struct compose {
	char *buf;
	size_t len, cap;
	int has_job;
};

static int put(struct compose *c, const char *s, size_t n)
{
	if (c->len + n + 1 > c->cap) {
		size_t cap = (c->len + n + 1) * 2;
		char *nb = realloc(c->buf, cap);

		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, s, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return 0;
}

static int putf(struct compose *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int putf(struct compose *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENOSPC;
	return put(c, line, (size_t)n);
}

static int copy_line(const struct job_line *l, const char *line, size_t len,
		     void *ctx)
{
	struct compose *c = ctx;
	int ret;

	if (l->section && !l->is_global)
		c->has_job = 1;
	/* ours is in [global] already; a job's own would only repeat it */
	if (!l->blank && !l->section && !strcmp(l->key, "filename")) {
		static const char note[] = "; filename set by slowpath\n";

		return put(c, note, sizeof(note) - 1);
	}
	ret = put(c, line, len);
	return ret ? ret : put(c, "\n", 1);
}

int sp_run_job_compose(const char *text, const char *origin,
		       const struct sp_run_plan *plan,
		       const struct sp_run_case *c, const char *device,
		       char **out, char *err, size_t errlen)
{
	struct compose cb = { 0 };
	int ret;

	*out = NULL;
	ret = putf(&cb, "; composed by slowpath run from %s\n[global]\n"
		   "filename=%s\nioengine=libaio\ndirect=1\nrw=%s\nbs=%llu\n"
		   "iodepth=%d\nnumjobs=%d\nsize=%llu\ngroup_reporting=1\n",
		   origin, device, c->rw, (unsigned long long)c->bs,
		   c->iodepth, plan->numjobs,
		   (unsigned long long)plan->size_bytes);
	if (!ret && plan->stop == SP_RUN_STOP_IOS)
		ret = putf(&cb, "number_ios=%llu\n",
			   (unsigned long long)plan->ios);
	if (!ret && plan->stop == SP_RUN_STOP_RUNTIME)
		ret = putf(&cb, "runtime=%u\ntime_based=1\n", plan->runtime_s);
	if (!ret && plan->verify)
		ret = putf(&cb, "verify=crc32c\ndo_verify=1\nverify_backlog=%u\n"
			   "verify_fatal=0\nverify_state_save=0\n",
			   SP_RUN_VERIFY_BACKLOG);
	if (!ret && sp_run_counts_errors(plan))
		ret = putf(&cb, "continue_on_error=all\nignore_error=%s\n",
			   sp_run_ignore_errors());
	if (!ret)
		ret = putf(&cb, "; --- %s ---\n", origin);
	if (!ret)
		ret = each_line(text, origin, device, err, errlen, copy_line,
				&cb);
	if (!ret && !cb.has_job)
		ret = putf(&cb, "\n[slowpath]\n");
	if (ret) {
		free(cb.buf);
		if (ret == -ENOSPC)
			snprintf(err, errlen, "%s: a name is too long", origin);
		return ret;
	}
	*out = cb.buf;
	return 0;
}
