/* Log-linear latency buckets, see lat_hist.h. */
#include "common/lat_hist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sp_lat_bucket(int64_t ns)
{
	uint64_t v = ns > 0 ? (uint64_t)ns : 0;
	int msb;

	if (v < SP_LAT_SUB)
		return (size_t)v;
	msb = 63 - __builtin_clzll(v);
	if (msb > SP_LAT_MAX_MSB)
		return SP_LAT_BUCKETS - 1;
	return (size_t)(msb - SP_LAT_SUB_BITS + 1) * SP_LAT_SUB +
	       (size_t)((v >> (msb - SP_LAT_SUB_BITS)) & (SP_LAT_SUB - 1));
}

int64_t sp_lat_bucket_low(size_t i)
{
	size_t group = i / SP_LAT_SUB;

	if (!group)
		return (int64_t)i;
	return (int64_t)((SP_LAT_SUB + i % SP_LAT_SUB) << (group - 1));
}

int64_t sp_lat_bucket_width(size_t i)
{
	size_t group = i / SP_LAT_SUB;

	return group ? (int64_t)1 << (group - 1) : 1;
}

void sp_lat_add(struct sp_lat_hist *h, int64_t ns)
{
	h->bucket[sp_lat_bucket(ns)]++;
	h->count++;
}

size_t sp_lat_format(const struct sp_lat_hist *h, char *buf, size_t len)
{
	size_t n, i;
	int w;

	w = snprintf(buf, len, "%s\ncount=%" PRIu64 "\n", SP_LAT_MAGIC, h->count);
	n = w > 0 ? (size_t)w : 0;
	for (i = 0; i < SP_LAT_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
			     "%zu %" PRIu64 "\n", i, h->bucket[i]);
		n += w > 0 ? (size_t)w : 0;
	}
	return n;
}

static int bad(char *err, size_t errlen, const char *origin, unsigned line,
	       const char *what, const char *text)
{
	int n = (int)strcspn(text, "\n");

	snprintf(err, errlen, "%s:%u: %s: '%.*s'", origin, line, what,
		 n > 64 ? 64 : n, text);
	return -EINVAL;
}

/* "N" of a decimal number up to the line's end: 0 or -EINVAL. */
static int number(const char **p, uint64_t *out, char stop)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(*p, &end, 10);
	if (errno || *end != stop)
		return -EINVAL;
	*p = end + 1;
	return 0;
}

int sp_lat_parse(const char *text, const char *origin, struct sp_lat_hist *h,
		 char *err, size_t errlen)
{
	const char *p = text, *line;
	uint64_t idx, n, sum = 0;
	unsigned lineno = 2;
	size_t magic = strlen(SP_LAT_MAGIC);

	memset(h, 0, sizeof(*h));
	if (strncmp(p, SP_LAT_MAGIC, magic) || p[magic] != '\n')
		return bad(err, errlen, origin, 1, "not a latency histogram", p);
	p += magic + 1;
	line = p;
	if (strncmp(p, "count=", 6) || (p += 6, number(&p, &h->count, '\n')))
		return bad(err, errlen, origin, lineno, "want count=N", line);
	while (*p) {
		line = p;
		lineno++;
		if (number(&p, &idx, ' ') || number(&p, &n, '\n') || !n)
			return bad(err, errlen, origin, lineno,
				   "want INDEX COUNT (COUNT > 0)", line);
		if (idx >= SP_LAT_BUCKETS || h->bucket[idx])
			return bad(err, errlen, origin, lineno, idx >= SP_LAT_BUCKETS ?
				   "bucket out of range" : "bucket given twice", line);
		if (n > UINT64_MAX - sum)
			return bad(err, errlen, origin, lineno, "count overflows", line);
		h->bucket[idx] = n;
		sum += n;
	}
	if (sum != h->count) {
		snprintf(err, errlen, "%s: buckets hold %" PRIu64 ", count=%" PRIu64,
			 origin, sum, h->count);
		return -EINVAL;
	}
	return 0;
}

int sp_lat_diff(const struct sp_lat_hist *after, const struct sp_lat_hist *before,
		struct sp_lat_hist *out)
{
	size_t i;

	if (after->count < before->count)
		return -EINVAL;
	for (i = 0; i < SP_LAT_BUCKETS; i++) {
		if (after->bucket[i] < before->bucket[i])
			return -EINVAL;
		out->bucket[i] = after->bucket[i] - before->bucket[i];
	}
	out->count = after->count - before->count;
	return 0;
}

int64_t sp_lat_quantile(const struct sp_lat_hist *h, double q)
{
	uint64_t want, seen = 0;
	size_t i;

	if (!h->count || !(q > 0))
		return -1;
	if (q > 1)
		q = 1;
	/* the ceiling of count x q: the smallest sample count holding q */
	want = (uint64_t)((double)h->count * q);
	if ((double)want < (double)h->count * q || !want)
		want++;
	for (i = 0; i < SP_LAT_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want)
			return sp_lat_bucket_low(i) + sp_lat_bucket_width(i) / 2;
	}
	return sp_lat_bucket_low(SP_LAT_BUCKETS - 1);
}
