#ifndef SP_UNITS_H
#define SP_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define SP_NSEC_PER_USEC 1000LL
#define SP_NSEC_PER_MSEC 1000000LL
#define SP_NSEC_PER_SEC  1000000000LL

/* The most any one command may be held, by the store, by netem or by
 * both: one bound for every parser, the CLI and the store's sampler,
 * so no topology, jitter draw or `delay set` can park I/O for hours. */
#define SP_DELAY_MAX_NS (60 * SP_NSEC_PER_SEC)

/* "500us", "1.5ms", "2s", "750ns"; a bare "0" is allowed, other bare
 * numbers are not, because their unit would be a guess. 0 or -EINVAL/-ERANGE. */
int sp_parse_duration_ns(const char *text, int64_t *out_ns);

/* "4k", "500M", "2G", "512" (bytes); binary multiples, as fio reads them. */
int sp_parse_size_bytes(const char *text, uint64_t *out_bytes);

/* "512", "-3"; the whole string must be a number in [min, max]. */
int sp_parse_int64(const char *text, int64_t min, int64_t max, int64_t *out);

/* "0.25", "1e-3"; the whole string must be a finite number. */
int sp_parse_double(const char *text, double *out);

/* Shortest exact rendering: 500000 -> "500us", 1500000 -> "1500us". */
const char *sp_format_duration(int64_t ns, char *buf, size_t len);

/* Monotonic clock in ns. */
int64_t sp_now_ns(void);

/* Bytes as GiB, for messages. */
double sp_gib(uint64_t bytes);

#endif
