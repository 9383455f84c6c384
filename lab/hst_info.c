/* Which HST is loaded and which bucket shift a delay scale needs (see
 * hst_info.h). HST weights its moving average by the service time's
 * bucket, time >> shift: scaling every time by k = 2^n moves each into
 * bucket << n, so the shift must grow by n for the same weights. */
#include "lab/hst_info.h"

#include "common/strbuf.h"
#include "common/units.h"
#include "dm/dm_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Decimal, as the kernel's param_get_uint prints it; surrounding
 * whitespace (its newline) allowed, nothing else. */
static int parse_shift(const char *text, unsigned int *shift)
{
	const char *p = text;
	unsigned int v = 0;
	int digits = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		v = v * 10 + (unsigned int)(*p - '0');
		if (v > SP_HST_MAX_BUCKET_SHIFT)
			return -EINVAL;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!digits || *p)
		return -EINVAL;
	*shift = v;
	return 0;
}

int sp_hst_info_parse(int module_loaded, const char *bucket_shift_text,
		      struct sp_hst_info *info)
{
	struct sp_hst_info got = { SP_HST_STOCK_BUCKET_SHIFT, 0, 1 };
	int r;

	if (!module_loaded)
		return -ENOENT;
	if (bucket_shift_text) {
		r = parse_shift(bucket_shift_text, &got.bucket_shift);
		if (r)
			return r;
		got.has_param = 1;
		got.k = got.bucket_shift < SP_HST_STOCK_BUCKET_SHIFT ? 0 :
			(uint64_t)1 << (got.bucket_shift - SP_HST_STOCK_BUCKET_SHIFT);
	}
	*info = got;
	return 0;
}

int sp_hst_info_label(const struct sp_hst_info *info, char *buf, size_t len)
{
	int n;

	if (info->bucket_shift == SP_HST_STOCK_BUCKET_SHIFT)
		n = snprintf(buf, len, "stock");
	else
		n = snprintf(buf, len, "bucket_shift %u", info->bucket_shift);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int sp_hst_bucket_shift_for_k(uint64_t k, unsigned int *shift)
{
	unsigned int log2k = 0;

	if (k == 0 || (k & (k - 1)))
		return -EINVAL;
	while (k >>= 1)
		log2k++;
	if (log2k > SP_HST_MAX_BUCKET_SHIFT - SP_HST_STOCK_BUCKET_SHIFT)
		return -ERANGE;
	*shift = SP_HST_STOCK_BUCKET_SHIFT + log2k;
	return 0;
}

/* A skew is a duration with its unit, or "-" and one: sched_clock()
 * behind CLOCK_MONOTONIC is a skew 2020's machines had as well. */
static int parse_skew(const char *text, int64_t *ns)
{
	int neg = text[0] == '-';
	int64_t v;

	if (sp_parse_duration_ns(text + neg, &v) || v > SP_HST58_SKEW_MAX_NS)
		return -EINVAL;
	*ns = neg ? -v : v;
	return 0;
}

static const char *const build_names[] = {
	[SP_HST_BUILD_STOCK] = "stock",
	[SP_HST_BUILD_5_8] = "5.8",
	[SP_HST_BUILD_PREBIO] = "prebio",
};
#define N_BUILDS (sizeof(build_names) / sizeof(build_names[0]))

const char *sp_hst_build_name(int build)
{
	return build >= 0 && (size_t)build < N_BUILDS ? build_names[build] : NULL;
}

int sp_hst_build_by_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < N_BUILDS; i++)
		if (!strcmp(name, build_names[i]))
			return (int)i;
	return -EINVAL;
}

int sp_hst_choice_parse(const char *text, struct sp_hst_choice *c,
			char *err, size_t errlen)
{
	struct sp_hst_choice got = { SP_HST_BUILD_STOCK, 0 };

	if (!text || !strcmp(text, "stock")) {
		*c = got;
		return 0;
	}
	if (!strcmp(text, "prebio")) {
		got.build = SP_HST_BUILD_PREBIO;
		*c = got;
		return 0;
	}
	if (strncmp(text, "5.8", 3) || (text[3] && text[3] != ':'))
		return sp_errf(err, errlen, -EINVAL, "--hst '%s': want stock, "
			       "5.8, 5.8:SKEW or prebio", text);
	got.build = SP_HST_BUILD_5_8;
	if (text[3] == ':' && parse_skew(text + 4, &got.skew_ns))
		return sp_errf(err, errlen, -EINVAL, "--hst '%s': the skew "
			       "'%s' is not a duration with its unit within "
			       "+-3600s (e.g. 200ms, -20ms, 0)", text, text + 4);
	*c = got;
	return 0;
}

int sp_hst_skew_parse(const char *text, int64_t *skew_ns)
{
	char *end;
	long long v;

	if (!text)
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end || errno || v > SP_HST58_SKEW_MAX_NS ||
	    v < -SP_HST58_SKEW_MAX_NS)
		return -EINVAL;
	*skew_ns = v;
	return 0;
}

int sp_hst_build_label(const char *base, int build, int skew_known,
		       int64_t skew_ns, char *buf, size_t len)
{
	char skew[32];
	int n;

	if (build == SP_HST_BUILD_PREBIO)
		n = snprintf(buf, len, "prebio%s%s", strcmp(base, "stock") ? " " : "",
			     strcmp(base, "stock") ? base : "");
	else if (build != SP_HST_BUILD_5_8)
		n = snprintf(buf, len, "%s", base);
	else
		n = snprintf(buf, len, "5.8%s%s skew %s",
			     strcmp(base, "stock") ? " " : "",
			     strcmp(base, "stock") ? base : "",
			     skew_known ? sp_format_duration(skew_ns, skew,
							     sizeof(skew)) : "?");
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}
