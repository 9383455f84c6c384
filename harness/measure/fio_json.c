#include "harness/measure/fio_json.h"

#include "common/log.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_keys[SP_FIO_NDIR] = { "read", "write" };

/* Where a required key was missing, for the one error message. */
struct ctx {
	const char *origin;
	int job;
};

static int need(const struct ctx *c, json_object *obj, const char *key,
		json_type type, json_object **out)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) ||
	    (!json_object_is_type(v, type) &&
	     !(type == json_type_double && json_object_is_type(v, json_type_int)))) {
		if (c->job >= 0)
			sp_err("%s: job %d: missing or mistyped \"%s\" (not fio JSON?)",
			       c->origin, c->job, key);
		else
			sp_err("%s: missing or mistyped \"%s\" (not fio JSON?)",
			       c->origin, key);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int need_u64(const struct ctx *c, json_object *obj, const char *key,
		    uint64_t *out)
{
	json_object *v;
	int ret = need(c, obj, key, json_type_int, &v);

	if (!ret)
		*out = (uint64_t)json_object_get_int64(v);
	return ret;
}

static int need_double(const struct ctx *c, json_object *obj,
		       const char *key, double *out)
{
	json_object *v;
	int ret = need(c, obj, key, json_type_double, &v);

	if (!ret)
		*out = json_object_get_double(v);
	return ret;
}

static double pct_us(json_object *lat, const char *key)
{
	json_object *pct, *v;

	if (!json_object_object_get_ex(lat, "percentile", &pct) ||
	    !json_object_object_get_ex(pct, key, &v))
		return -1.0;
	return json_object_get_double(v) / 1000.0;
}

static int parse_dir(const struct ctx *c, json_object *job, int d,
		     struct sp_fio_dir *out)
{
	json_object *dir, *clat, *lat;
	double mean;
	int ret;

	ret = need(c, job, dir_keys[d], json_type_object, &dir);
	if (!ret)
		ret = need_u64(c, dir, "total_ios", &out->ios);
	if (!ret)
		ret = need_u64(c, dir, "io_bytes", &out->bytes);
	if (!ret)
		ret = need_double(c, dir, "iops", &out->iops);
	if (!ret)
		ret = need_double(c, dir, "bw", &out->bw_kib);
	if (!ret)
		ret = need_u64(c, dir, "runtime", &out->runtime_ms);
	if (!ret)
		ret = need(c, dir, "clat_ns", json_type_object, &clat);
	if (!ret)
		ret = need_double(c, clat, "mean", &mean);
	if (ret)
		return ret;
	out->clat_mean_us = mean / 1000.0;
	/* fio leaves percentiles out when a direction did no I/O */
	out->clat_p50_us = pct_us(clat, "50.000000");
	out->clat_p99_us = pct_us(clat, "99.000000");
	out->clat_p999_us = pct_us(clat, "99.900000");
	out->lat_mean_us = -1.0;
	if (json_object_object_get_ex(dir, "lat_ns", &lat) &&
	    !need_double(c, lat, "mean", &mean))
		out->lat_mean_us = mean / 1000.0;
	return 0;
}

static int option_says_group(json_object *job)
{
	json_object *opts, *v;
	const char *s;

	if (!json_object_object_get_ex(job, "job options", &opts))
		return 0;
	if (json_object_object_get_ex(opts, "group_reporting", &v))
		return 2;
	/* --group_reporting on the command line is not echoed; one entry
	 * standing for numjobs > 1 is how it shows. */
	if (json_object_object_get_ex(opts, "numjobs", &v) &&
	    (s = json_object_get_string(v)) && atoi(s) > 1)
		return 1;
	return 0;
}

static void copy_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static int parse_disk(const struct ctx *c, json_object *o,
		      struct sp_fio_disk *d)
{
	json_object *v;
	int ret;

	ret = need(c, o, "name", json_type_string, &v);
	if (ret)
		return ret;
	copy_name(d->name, sizeof(d->name), json_object_get_string(v));
	if ((ret = need_u64(c, o, "read_ios", &d->read_ios)) ||
	    (ret = need_u64(c, o, "write_ios", &d->write_ios)) ||
	    (ret = need_u64(c, o, "read_merges", &d->read_merges)) ||
	    (ret = need_u64(c, o, "write_merges", &d->write_merges)) ||
	    (ret = need_u64(c, o, "read_ticks", &d->read_ticks)) ||
	    (ret = need_u64(c, o, "write_ticks", &d->write_ticks)) ||
	    (ret = need_u64(c, o, "in_queue", &d->in_queue)) ||
	    (ret = need_double(c, o, "util", &d->util)))
		return ret;
	if (!json_object_object_get_ex(o, "aggr_read_ios", &v))
		return 0;
	d->has_aggr = 1;
	if ((ret = need_u64(c, o, "aggr_read_ios", &d->aggr_read_ios)) ||
	    (ret = need_u64(c, o, "aggr_write_ios", &d->aggr_write_ios)) ||
	    (ret = need_u64(c, o, "aggr_read_ticks", &d->aggr_read_ticks)) ||
	    (ret = need_u64(c, o, "aggr_write_ticks", &d->aggr_write_ticks)) ||
	    (ret = need_u64(c, o, "aggr_in_queue", &d->aggr_in_queue)) ||
	    (ret = need_double(c, o, "aggr_util", &d->aggr_util)))
		return ret;
	return 0;
}

/* fio writes "fio: ..." warnings to stdout ahead of the object; the
 * object is the first line that starts with '{'. */
static const char *json_start(const char *text)
{
	const char *p = text;

	while (p && *p) {
		if (*p == '{')
			return p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static json_object *tokenise(const char *text, const char *origin)
{
	const char *start = json_start(text);
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *root;

	if (!start) {
		sp_err("%s: no JSON object in fio output (did fio run with --output-format=json?)",
		       origin);
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok)
		return NULL;
	root = json_tokener_parse_ex(tok, start, (int)strlen(start));
	jerr = json_tokener_get_error(tok);
	if (!root) {
		if (jerr == json_tokener_continue)
			sp_err("%s: fio JSON ends early (truncated after %zu bytes)",
			       origin, strlen(start));
		else
			sp_err("%s: fio JSON is malformed at byte %zu: %s", origin,
			       (size_t)(start - text) + json_tokener_get_parse_end(tok),
			       json_tokener_error_desc(jerr));
	}
	json_tokener_free(tok);
	return root;
}

/* One entry of "jobs": its name, error counts and both directions. */
static int parse_job(const struct ctx *c, json_object *job,
		     struct sp_fio_job *j)
{
	json_object *v;
	int ret, d;

	ret = need(c, job, "jobname", json_type_string, &v);
	if (ret)
		return ret;
	copy_name(j->name, sizeof(j->name), json_object_get_string(v));
	ret = need(c, job, "error", json_type_int, &v);
	if (ret)
		return ret;
	j->error = json_object_get_int(v);
	/* present only when the job had continue_on_error */
	if (json_object_object_get_ex(job, "total_err", &v) &&
	    json_object_is_type(v, json_type_int)) {
		j->has_total_err = 1;
		j->total_err = (uint64_t)json_object_get_int64(v);
		if (json_object_object_get_ex(job, "first_error", &v))
			j->first_error = json_object_get_int(v);
	}
	for (d = 0; d < SP_FIO_NDIR; d++) {
		ret = parse_dir(c, job, d, &j->dir[d]);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_jobs(struct ctx *c, json_object *jobs,
		      struct sp_fio_result *out)
{
	size_t i;
	int ret, group = 0;

	out->n_jobs = json_object_array_length(jobs);
	if (!out->n_jobs) {
		sp_err("%s: fio reported no jobs", c->origin);
		return -EINVAL;
	}
	out->jobs = calloc(out->n_jobs, sizeof(*out->jobs));
	if (!out->jobs)
		return -ENOMEM;
	for (i = 0; i < out->n_jobs; i++) {
		json_object *job = json_object_array_get_idx(jobs, i);

		c->job = (int)i;
		ret = parse_job(c, job, &out->jobs[i]);
		if (ret)
			return ret;
		/* 2: said so; 1: numjobs > 1, which only means grouping
		 * when fio printed a single entry for them */
		group = group > option_says_group(job) ? group :
			option_says_group(job);
	}
	c->job = -1;
	out->group_reporting = group == 2 || (group == 1 && out->n_jobs == 1);
	return 0;
}

/* "disk_util" is optional. */
static int parse_disks(const struct ctx *c, json_object *root,
		       struct sp_fio_result *out)
{
	json_object *disks;
	size_t i;
	int ret;

	if (!json_object_object_get_ex(root, "disk_util", &disks) ||
	    !json_object_is_type(disks, json_type_array))
		return 0;
	out->n_disks = json_object_array_length(disks);
	out->disks = calloc(out->n_disks ? out->n_disks : 1,
			    sizeof(*out->disks));
	if (!out->disks)
		return -ENOMEM;
	for (i = 0; i < out->n_disks; i++) {
		ret = parse_disk(c, json_object_array_get_idx(disks, i),
				 &out->disks[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int sp_fio_parse(const char *text, const char *origin,
		 struct sp_fio_result *out)
{
	struct ctx c = { .origin = origin, .job = -1 };
	json_object *root, *jobs, *v;
	int ret;

	memset(out, 0, sizeof(*out));
	root = tokenise(text, origin);
	if (!root)
		return -EINVAL;
	if (!json_object_is_type(root, json_type_object)) {
		sp_err("%s: fio JSON is not an object", origin);
		json_object_put(root);
		return -EINVAL;
	}
	ret = need(&c, root, "jobs", json_type_array, &jobs);
	if (!ret && json_object_object_get_ex(root, "fio version", &v))
		copy_name(out->version, sizeof(out->version),
			  json_object_get_string(v));
	if (!ret)
		ret = parse_jobs(&c, jobs, out);
	if (!ret)
		ret = parse_disks(&c, root, out);
	if (ret) {
		json_object_put(root);
		sp_fio_result_free(out);
		return ret;
	}
	sp_fio_total(out->jobs, out->n_jobs, &out->total, &out->pct_kind);
	json_object_put(root);
	return 0;
}

void sp_fio_result_free(struct sp_fio_result *r)
{
	free(r->jobs);
	free(r->disks);
	r->jobs = NULL;
	r->disks = NULL;
	r->n_jobs = r->n_disks = 0;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

void sp_fio_total(const struct sp_fio_job *jobs, size_t n,
		  struct sp_fio_job *total, enum sp_fio_pct *kind)
{
	size_t i;
	int d;

	memset(total, 0, sizeof(*total));
	copy_name(total->name, sizeof(total->name), n ? jobs[0].name : "");
	*kind = n > 1 ? SP_FIO_PCT_MAX : SP_FIO_PCT_EXACT;
	for (d = 0; d < SP_FIO_NDIR; d++) {
		struct sp_fio_dir *t = &total->dir[d];
		double clat_sum = 0, lat_sum = 0;
		int have_lat = n > 0;

		t->clat_p50_us = t->clat_p99_us = t->clat_p999_us = -1.0;
		for (i = 0; i < n; i++) {
			const struct sp_fio_dir *j = &jobs[i].dir[d];

			t->ios += j->ios;
			t->bytes += j->bytes;
			t->iops += j->iops;
			t->bw_kib += j->bw_kib;
			if (j->runtime_ms > t->runtime_ms)
				t->runtime_ms = j->runtime_ms;
			clat_sum += j->clat_mean_us * (double)j->ios;
			if (j->lat_mean_us < 0)
				have_lat = 0;
			lat_sum += j->lat_mean_us * (double)j->ios;
			/* Percentiles of different jobs do not add up; the
			 * worst job's is an upper bound of the merged one. */
			t->clat_p50_us = max_d(t->clat_p50_us, j->clat_p50_us);
			t->clat_p99_us = max_d(t->clat_p99_us, j->clat_p99_us);
			t->clat_p999_us = max_d(t->clat_p999_us, j->clat_p999_us);
		}
		t->clat_mean_us = t->ios ? clat_sum / (double)t->ios : 0;
		t->lat_mean_us = !have_lat ? -1.0 :
				 t->ios ? lat_sum / (double)t->ios : 0;
	}
	for (i = 0; i < n; i++) {
		if (jobs[i].error && !total->error)
			total->error = jobs[i].error;
		if (!jobs[i].has_total_err)
			continue;
		total->has_total_err = 1;
		total->total_err += jobs[i].total_err;
		if (jobs[i].first_error && !total->first_error)
			total->first_error = jobs[i].first_error;
	}
}

uint64_t sp_fio_verify_errors(const char *text)
{
	const char *p = text, *nl;
	uint64_t n = 0;
	size_t len;

	/* verify.c's messages: "<type>: verify failed at file ..." for a
	 * checksum, "verify: bad magic header ...", "verify: bad header
	 * ..." for a block that is not what fio wrote there */
	while (p && *p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if ((memmem(p, len, "verify failed at file", 21)) ||
		    (len > 12 && !strncmp(p, "verify: bad ", 12)))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

const struct sp_fio_disk *sp_fio_disk_find(const struct sp_fio_result *r,
					   const char *name)
{
	size_t i;

	for (i = 0; i < r->n_disks; i++)
		if (!strcmp(r->disks[i].name, name))
			return &r->disks[i];
	return NULL;
}

static int differs(uint64_t a, uint64_t b, double tolerance)
{
	uint64_t hi = a > b ? a : b, diff = a > b ? a - b : b - a;

	return (double)diff > tolerance * (double)hi + 2.0;
}

/* -EDOM, with a warning naming both counts, when fio's and ours differ
 * beyond tolerance. */
static int check_counts(const char *name, const char *fio_did,
			uint64_t fio_reads, uint64_t fio_writes,
			uint64_t our_reads, uint64_t our_writes, double tolerance)
{
	if (!differs(fio_reads, our_reads, tolerance) &&
	    !differs(fio_writes, our_writes, tolerance))
		return 0;
	sp_warn("%s: fio %s %llu reads/%llu writes, diskstats %llu/%llu (beyond %.1f%%)",
		name, fio_did, (unsigned long long)fio_reads,
		(unsigned long long)fio_writes, (unsigned long long)our_reads,
		(unsigned long long)our_writes, tolerance * 100.0);
	return -EDOM;
}

int sp_fio_crosscheck_total(const struct sp_fio_result *r, const char *name,
			    uint64_t our_reads, uint64_t our_writes,
			    double tolerance)
{
	return check_counts(name, "completed", r->total.dir[SP_FIO_READ].ios,
			    r->total.dir[SP_FIO_WRITE].ios, our_reads,
			    our_writes, tolerance);
}

int sp_fio_crosscheck(const struct sp_fio_result *r, const char *name,
		      uint64_t our_reads, uint64_t our_writes,
		      double tolerance)
{
	const struct sp_fio_disk *d = sp_fio_disk_find(r, name);

	if (!d) {
		sp_warn("fio reported no disk_util for %s", name);
		return -ENOENT;
	}
	return check_counts(name, "counted", d->read_ios, d->write_ios,
			    our_reads, our_writes, tolerance);
}

double sp_fio_disk_util_tolerance(uint64_t runtime_ms)
{
	double t = runtime_ms ? 2 * 250.0 / (double)runtime_ms : 1.0;

	return t < 0.02 ? 0.02 : t > 1.0 ? 1.0 : t;
}
