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
	return b.overflow ? -ENOSPC : 0;
}

/* Options a job file may not set, and why. */
static const struct {
	const char *key, *why;
} refused[] = {
	{ "directory", "would put files outside the map" },
	{ "filename_format", "would put files outside the map" },
	{ "opendir", "would put files outside the map" },
	{ "create_on_open", "would create files" },
	{ "exec_prerun", "runs a command" },
	{ "exec_postrun", "runs a command" },
	{ "rw", "is the matrix's: use --rw" },
	{ "readwrite", "is the matrix's: use --rw" },
	{ "bs", "is the matrix's: use --bs" },
	{ "blocksize", "is the matrix's: use --bs" },
	{ "iodepth", "is the matrix's: use --iodepth" },
	{ "numjobs", "is the matrix's: use --numjobs" },
};

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
	if (!strcmp(l->key, "include")) {
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
