#include "common/units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const struct {
	const char *suffix;
	int64_t ns;
} duration_units[] = {
	{ "ns", 1 }, { "us", SP_NSEC_PER_USEC }, { "ms", SP_NSEC_PER_MSEC },
	{ "s", SP_NSEC_PER_SEC },
};

int sp_parse_double(const char *text, double *out)
{
	char *end;
	double value;

	if (!text || !*text)
		return -EINVAL;
	errno = 0;
	value = strtod(text, &end);
	if (*end || end == text || errno || !isfinite(value))
		return -EINVAL;
	*out = value;
	return 0;
}

int sp_parse_int64(const char *text, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long value;

	if (!text || !*text)
		return -EINVAL;
	errno = 0;
	value = strtoll(text, &end, 10);
	if (*end || end == text)
		return -EINVAL;
	if (errno == ERANGE || value < min || value > max)
		return -ERANGE;
	*out = value;
	return 0;
}

int sp_parse_duration_ns(const char *text, int64_t *out_ns)
{
	char *end;
	double value;
	size_t i;

	/* strtod would also take hex and "inf", which no one means here */
	if (!text || !*text || strspn(text, "0123456789.") == 0 ||
	    strpbrk(text, "xX"))
		return -EINVAL;
	errno = 0;
	value = strtod(text, &end);
	if (end == text || errno || !isfinite(value) || value < 0)
		return -EINVAL;
	if (!*end) {
		if (value != 0)
			return -EINVAL;
		*out_ns = 0;
		return 0;
	}
	for (i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++) {
		if (strcmp(end, duration_units[i].suffix))
			continue;
		value *= (double)duration_units[i].ns;
		if (value > (double)INT64_MAX / 2)
			return -ERANGE;
		*out_ns = (int64_t)llround(value);
		return 0;
	}
	return -EINVAL;
}

int sp_parse_size_bytes(const char *text, uint64_t *out_bytes)
{
	static const char multipliers[] = "kmgt";
	char *end;
	unsigned long long value;
	const char *unit;
	int shift = 0;

	/* strtoull skips blanks and takes a sign: " -1" would be 2^64-1 */
	if (!text || !isdigit((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (end == text || errno)
		return -EINVAL;
	if (*end) {
		unit = strchr(multipliers, end[0] | 0x20);
		if (!unit || (end[1] && strcasecmp(end + 1, "b") &&
			      strcasecmp(end + 1, "ib")))
			return -EINVAL;
		shift = 10 * (int)(unit - multipliers + 1);
	}
	if (shift && value > (UINT64_MAX >> shift))
		return -ERANGE;
	*out_bytes = (uint64_t)value << shift;
	return 0;
}

const char *sp_format_duration(int64_t ns, char *buf, size_t len)
{
	int i;

	for (i = 3; i > 0; i--) {
		if (ns != 0 && ns % duration_units[i].ns == 0)
			break;
	}
	snprintf(buf, len, "%" PRId64 "%s", ns / duration_units[i].ns,
		 duration_units[i].suffix);
	return buf;
}

int64_t sp_now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * SP_NSEC_PER_SEC + now.tv_nsec;
}

double sp_gib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024 * 1024);
}
