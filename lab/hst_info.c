/* Which HST is loaded and which bucket shift a delay scale needs (see
 * hst_info.h). HST weights its moving average by the service time's
 * bucket, time >> shift: scaling every time by k = 2^n moves each into
 * bucket << n, so the shift must grow by n for the same weights. */
#include "lab/hst_info.h"

#include <errno.h>
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
