/* A latency histogram in fio's shape: log-linear buckets, 64 to each
 * power of two, so a bucket is at most 1/64 of its value wide and its
 * middle within 0.8 % of anything in it. The delay store fills one per
 * LUN (every command, submission to completion) and writes it beside
 * its stats; the harness reads it before and after a case and takes
 * per-path percentiles from the difference. Pure: no I/O. */
#ifndef SP_LAT_HIST_H
#define SP_LAT_HIST_H

#include <stddef.h>
#include <stdint.h>

#define SP_LAT_SUB_BITS 6
#define SP_LAT_SUB (1 << SP_LAT_SUB_BITS)
/* values from 2^41 ns (36 min) up share the last bucket */
#define SP_LAT_MAX_MSB 40
#define SP_LAT_BUCKETS ((SP_LAT_MAX_MSB - SP_LAT_SUB_BITS + 2) * SP_LAT_SUB)
/* the file's first line: what it is and its version */
#define SP_LAT_MAGIC "# slowpath latency histogram 1"

struct sp_lat_hist {
	uint64_t count;
	uint64_t bucket[SP_LAT_BUCKETS];
};

/* The bucket of a latency (<= 0 in bucket 0), and what bucket i spans:
 * [low, low + width). */
size_t sp_lat_bucket(int64_t ns);
int64_t sp_lat_bucket_low(size_t i);
int64_t sp_lat_bucket_width(size_t i);

void sp_lat_add(struct sp_lat_hist *h, int64_t ns);

/* The file text (SP_LAT_MAGIC, count=N, then "INDEX COUNT" for every
 * bucket in use) into buf; the length it needs (snprintf's rule). */
size_t sp_lat_format(const struct sp_lat_hist *h, char *buf, size_t len);
/* Reads that text back; anything else, an index out of range, a
 * bucket twice or counts that do not add up to count is -EINVAL with
 * err naming origin, the line and the value. */
int sp_lat_parse(const char *text, const char *origin, struct sp_lat_hist *h,
		 char *err, size_t errlen);

/* after - before, bucket by bucket: -EINVAL when a bucket went down
 * (the LUN was made again between the two). */
int sp_lat_diff(const struct sp_lat_hist *after, const struct sp_lat_hist *before,
		struct sp_lat_hist *out);

/* The q-quantile (0 < q <= 1) as its bucket's middle, ns; -1 when h
 * holds nothing. */
int64_t sp_lat_quantile(const struct sp_lat_hist *h, double q);

#endif
