#include "harness/probe/probe_report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

struct outbuf {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void put(struct outbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->used < b->len ? b->buf + b->used : NULL,
		      b->used < b->len ? b->len - b->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->used += (size_t)n;
}

static double us(int64_t ns)
{
	return (double)ns / 1000.0;
}

static int is_write(const struct probe_opts *o)
{
	return o->rw == PROBE_WRITE || o->rw == PROBE_RANDWRITE;
}

size_t probe_report_text(const struct probe_opts *o,
			 const struct probe_result *r, char *buf, size_t len)
{
	struct outbuf b = { buf, len, 0 };
	const struct probe_lat_summary *l = &r->lat;

	if (len)
		buf[0] = '\0';
	put(&b, "%s: %s bs=%" PRIu64 " qd=%" PRId64 ", LUN %" PRIu64
	    " bytes in %u-byte blocks\n", o->url, probe_rw_names[o->rw],
	    o->bs, o->qd, r->capacity_bytes, r->block_size);
	put(&b, "  %" PRIu64 " I/Os in %.3f s: %.0f IOPS, %.1f MiB/s, %"
	    PRIu64 " errors%s\n", r->ios, (double)r->elapsed_ns / 1e9,
	    r->iops, r->mib_s, r->errors,
	    r->interrupted ? " (interrupted)" : "");
	put(&b, "  lat (us): min %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f "
	    "max %.1f mean %.1f\n", us(l->min), us(l->p50), us(l->p90),
	    us(l->p99), us(l->p999), us(l->max), l->mean / 1000.0);
	if (is_write(o))
		put(&b, "  data: wrote pattern %" PRId64 "\n", o->pattern);
	else if (o->verify)
		put(&b, "  data: checksum 0x%016" PRIx64 ", %" PRIu64 " of %"
		    PRIu64 " I/Os differ from pattern %" PRId64 "\n",
		    r->checksum, r->verify_mismatches, r->ios, o->pattern);
	else
		put(&b, "  data: checksum 0x%016" PRIx64 "\n", r->checksum);
	return b.used;
}

static void add_int(struct json_object *obj, const char *key, int64_t v)
{
	json_object_object_add(obj, key, json_object_new_int64(v));
}

struct json_object *probe_report_json(const struct probe_opts *o,
				      const struct probe_result *r)
{
	struct json_object *root = json_object_new_object(), *lat;
	char sum[24];

	if (!root)
		return NULL;
	lat = json_object_new_object();
	if (!lat) {
		json_object_put(root);
		return NULL;
	}
	json_object_object_add(root, "url", json_object_new_string(o->url));
	json_object_object_add(root, "rw",
			       json_object_new_string(probe_rw_names[o->rw]));
	add_int(root, "bs", (int64_t)o->bs);
	add_int(root, "qd", o->qd);
	add_int(root, "block_size", r->block_size);
	add_int(root, "capacity_bytes", (int64_t)r->capacity_bytes);
	add_int(root, "ios", (int64_t)r->ios);
	add_int(root, "bytes", (int64_t)r->bytes);
	add_int(root, "errors", (int64_t)r->errors);
	add_int(root, "elapsed_ns", r->elapsed_ns);
	json_object_object_add(root, "iops", json_object_new_double(r->iops));
	json_object_object_add(root, "mib_s", json_object_new_double(r->mib_s));
	json_object_object_add(root, "interrupted",
			       json_object_new_boolean(r->interrupted));
	add_int(lat, "min", r->lat.min);
	add_int(lat, "p50", r->lat.p50);
	add_int(lat, "p90", r->lat.p90);
	add_int(lat, "p99", r->lat.p99);
	add_int(lat, "p99.9", r->lat.p999);
	add_int(lat, "max", r->lat.max);
	json_object_object_add(lat, "mean", json_object_new_double(r->lat.mean));
	json_object_object_add(root, "lat_ns", lat);
	add_int(root, "pattern", o->pattern);
	/* A hex string: JSON readers round 64-bit integers through doubles. */
	snprintf(sum, sizeof(sum), "0x%016" PRIx64, r->checksum);
	json_object_object_add(root, "checksum", json_object_new_string(sum));
	json_object_object_add(root, "verify", json_object_new_boolean(o->verify));
	add_int(root, "verify_mismatches", (int64_t)r->verify_mismatches);
	return root;
}
