/* A case file read back (sp_case_from_json, see case_result.h): every
 * key is required and a wrong one is named; case_result.c writes them. */
#include "harness/measure/case_result.h"

#include "common/log.h"
#include "common/name.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Reading back: every key is required, and a wrong one is named. */
struct rd {
	const char *origin;
	char where[64];
	int failed;
};

static json_object *get(struct rd *r, json_object *o, const char *key,
			json_type type)
{
	json_object *v = NULL;

	if (r->failed)
		return NULL;
	if (!json_object_object_get_ex(o, key, &v) ||
	    (!json_object_is_type(v, type) &&
	     !(type == json_type_double && json_object_is_type(v, json_type_int)))) {
		sp_err("%s: %s\"%s\" is missing or not a %s", r->origin,
		       r->where, key, json_type_to_name(type));
		r->failed = 1;
		return NULL;
	}
	return v;
}

static void get_str(struct rd *r, json_object *o, const char *key, char *dst,
		    size_t len)
{
	json_object *v = get(r, o, key, json_type_string);

	if (v && (size_t)json_object_get_string_len(v) >= len) {
		sp_err("%s: %s\"%s\" is too long", r->origin, r->where, key);
		r->failed = 1;
	} else if (v) {
		strcpy(dst, json_object_get_string(v));
	}
}

/* Names end up in file names and in gnuplot scripts that root runs: a
 * case file is only as trusted as whoever could write it. */
static void get_name(struct rd *r, json_object *o, const char *key, char *dst,
		     size_t len)
{
	get_str(r, o, key, dst, len);
	if (!r->failed && !sp_name_ok(dst)) {
		sp_err("%s: %s\"%s\" '%s' is not a name slowpath uses (%s)",
		       r->origin, r->where, key, dst, SP_NAME_RULE);
		r->failed = 1;
	}
}

/* "selector_family", dm or nvme; a case of before it says so by its map */
static void family_from_json(struct rd *r, json_object *o,
			     struct sp_case_result *c)
{
	if (r->failed)
		return;
	if (!json_object_object_get_ex(o, "selector_family", NULL)) {
		sp_case_family_from_map(c);
		return;
	}
	get_str(r, o, "selector_family", c->family, sizeof(c->family));
	if (!r->failed && strcmp(c->family, "dm") && strcmp(c->family, "nvme")) {
		sp_err("%s: \"selector_family\" '%s' is neither dm nor nvme",
		       r->origin, c->family);
		r->failed = 1;
	}
}

static int64_t get_int(struct rd *r, json_object *o, const char *key,
		       int64_t min, int64_t max)
{
	json_object *v = get(r, o, key, json_type_int);
	int64_t x;

	if (!v)
		return 0;
	x = json_object_get_int64(v);
	if (x < min || x > max) {
		sp_err("%s: %s\"%s\" is %lld, outside %lld..%lld", r->origin,
		       r->where, key, (long long)x, (long long)min, (long long)max);
		r->failed = 1;
	}
	return x;
}

static double get_double(struct rd *r, json_object *o, const char *key)
{
	json_object *v = get(r, o, key, json_type_double);

	return v ? json_object_get_double(v) : 0;
}

static void stat_from_json(struct rd *r, json_object *o,
			   struct sp_diskstat *d, int *slow)
{
	json_object *s, *v;
	unsigned int f;

	memset(d, 0, sizeof(*d));
	get_name(r, o, "name", d->name, sizeof(d->name));
	if (slow) {
		v = get(r, o, "slow", json_type_boolean);
		*slow = v ? json_object_get_boolean(v) : 0;
	}
	d->major = (unsigned int)get_int(r, o, "major", 0, 0xffffffffLL);
	d->minor = (unsigned int)get_int(r, o, "minor", 0, 0xffffffffLL);
	d->n_fields = (unsigned int)get_int(r, o, "n_fields", 1, SP_DS_NFIELDS);
	s = get(r, o, "delta", json_type_object);
	for (f = 0; s && f < d->n_fields; f++)
		d->v[f] = (uint64_t)get_int(r, s, sp_ds_field_name(f), 0, INT64_MAX);
}

static void dir_from_json(struct rd *r, json_object *o, struct sp_fio_dir *d)
{
	if (!o)
		return;
	d->ios = (uint64_t)get_int(r, o, "ios", 0, INT64_MAX);
	d->bytes = (uint64_t)get_int(r, o, "bytes", 0, INT64_MAX);
	d->iops = get_double(r, o, "iops");
	d->bw_kib = get_double(r, o, "bw_kib");
	d->runtime_ms = (uint64_t)get_int(r, o, "runtime_ms", 0, INT64_MAX);
	d->clat_mean_us = get_double(r, o, "clat_mean_us");
	d->clat_p50_us = get_double(r, o, "clat_p50_us");
	d->clat_p99_us = get_double(r, o, "clat_p99_us");
	d->clat_p999_us = get_double(r, o, "clat_p999_us");
	d->lat_mean_us = get_double(r, o, "lat_mean_us");
}

/* a case of before 2026-12-03, or of a store without hist, has none */
static void lat_from_json(struct rd *r, json_object *o, struct sp_case_lat *l)
{
	if (!o)
		return;
	/* count 0: a path the case sent nothing to, as the run of
	 * 2026-12-03 (57a3c16 and before) wrote it with quantiles of -1 */
	l->count = (uint64_t)get_int(r, o, "count", 0, INT64_MAX);
	if (!l->count)
		return;
	l->p50_ns = get_int(r, o, "p50_ns", 0, SP_CASE_MAX_DELAY_NS);
	l->p99_ns = get_int(r, o, "p99_ns", l->p50_ns, SP_CASE_MAX_DELAY_NS);
	l->p999_ns = get_int(r, o, "p999_ns", l->p99_ns, SP_CASE_MAX_DELAY_NS);
	l->has = !r->failed;
}

static void paths_from_json(struct rd *r, json_object *root,
			    struct sp_case_result *c)
{
	json_object *paths = get(r, root, "paths", json_type_array);
	size_t i;

	if (!paths)
		return;
	c->n_paths = json_object_array_length(paths);
	if (!c->n_paths || c->n_paths > SP_CASE_MAX_PATHS) {
		sp_err("%s: %zu paths (1..%d)", r->origin, c->n_paths,
		       SP_CASE_MAX_PATHS);
		r->failed = 1;
	}
	for (i = 0; !r->failed && i < c->n_paths; i++) {
		json_object *po = json_object_array_get_idx(paths, i);

		snprintf(r->where, sizeof(r->where), "paths[%zu]: ", i);
		stat_from_json(r, po, &c->path[i], &c->slow[i]);
		/* a case of before 2026-12-03 has neither: the plots name
		 * its paths by disk */
		if (json_object_object_get_ex(po, "label", NULL)) {
			get_name(r, po, "label", c->label[i], sizeof(c->label[i]));
			c->delay_ns[i] = get_int(r, po, "delay_ns", 0,
						 SP_CASE_MAX_DELAY_NS);
		}
		if (json_object_object_get_ex(po, "store_lat", NULL))
			lat_from_json(r, get(r, po, "store_lat", json_type_object),
				      &c->lat[i]);
	}
}

/* "map" is optional: has_map says whether the case had one. */
static void map_from_json(struct rd *r, json_object *root,
			  struct sp_case_result *c)
{
	json_object *map;

	r->where[0] = '\0';
	if (!r->failed && json_object_object_get_ex(root, "map", &map) && map) {
		snprintf(r->where, sizeof(r->where), "map: ");
		c->has_map = 1;
		stat_from_json(r, map, &c->map, NULL);
	}
	r->where[0] = '\0';
}

static void fio_from_json(struct rd *r, json_object *root,
			  struct sp_case_result *c)
{
	json_object *fio = get(r, root, "fio", json_type_object), *v;

	if (!fio)
		return;
	snprintf(r->where, sizeof(r->where), "fio: ");
	c->fio_jobs = (size_t)get_int(r, fio, "jobs", 0, 65536);
	v = get(r, fio, "percentiles", json_type_string);
	c->fio_pct = v && !strcmp(json_object_get_string(v), "exact") ?
		     SP_FIO_PCT_EXACT : SP_FIO_PCT_MAX;
	c->fio.error = (int)get_int(r, fio, "error", INT32_MIN, INT32_MAX);
	snprintf(c->fio.name, sizeof(c->fio.name), "total");
	snprintf(r->where, sizeof(r->where), "fio.read: ");
	dir_from_json(r, get(r, fio, "read", json_type_object),
		      &c->fio.dir[SP_FIO_READ]);
	snprintf(r->where, sizeof(r->where), "fio.write: ");
	dir_from_json(r, get(r, fio, "write", json_type_object),
		      &c->fio.dir[SP_FIO_WRITE]);
}

int sp_case_from_json(const char *text, const char *origin,
		      struct sp_case_result *c)
{
	struct rd r = { .origin = origin };
	enum json_tokener_error jerr;
	json_object *root;

	memset(c, 0, sizeof(*c));
	root = json_tokener_parse_verbose(text, &jerr);
	if (!root || !json_object_is_type(root, json_type_object)) {
		sp_err("%s: not a JSON object: %s", origin,
		       root ? "wrong type" : json_tokener_error_desc(jerr));
		json_object_put(root);
		return -EINVAL;
	}
	if (get_int(&r, root, "slowpath_case", SP_CASE_FORMAT, SP_CASE_FORMAT) !=
	    SP_CASE_FORMAT && !r.failed)
		r.failed = 1;
	get_name(&r, root, "topology", c->topology, sizeof(c->topology));
	get_name(&r, root, "selector", c->selector, sizeof(c->selector));
	get_name(&r, root, "rw", c->rw, sizeof(c->rw));
	c->bs = (uint64_t)get_int(&r, root, "bs", 1, INT64_MAX);
	c->iodepth = (int)get_int(&r, root, "iodepth", 1, 65536);
	c->numjobs = (int)get_int(&r, root, "numjobs", 1, 65536);
	paths_from_json(&r, root, c);
	map_from_json(&r, root, c);
	family_from_json(&r, root, c);
	fio_from_json(&r, root, c);
	if (!r.failed && sp_case_env_from_json(root, c->n_paths, &c->env)) {
		sp_err("%s: environment: not an object", origin);
		r.failed = 1;
	}
	if (!r.failed && sp_case_faults_from_json(root, origin, &c->faults))
		r.failed = 1;
	json_object_put(root);
	return r.failed ? -EINVAL : 0;
}
