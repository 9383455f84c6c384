/* Which historical-service-time selector is loaded, told from the text
 * /sys shows, and the bucket shift the lab's HST needs when every delay
 * is scaled by k (docs/lab.md, "HST's bucket shift"). Pure: the caller
 * reads /sys, so results can record it and tests can feed it text. */
#ifndef SP_HST_INFO_H
#define SP_HST_INFO_H

#include <stddef.h>
#include <stdint.h>

/* The kernel's HST_BUCKET_SHIFT: buckets of 2^24 ns, about 16.8 ms. */
#define SP_HST_STOCK_BUCKET_SHIFT 24
/* The lab's module refuses more: it shifts a u64 service time. */
#define SP_HST_MAX_BUCKET_SHIFT 63

/* Present while the module is loaded; the parameter file only in the
 * lab's build (lab/hst-build.sh), a stock build has no parameters. */
#define SP_HST_SYS_MODULE "/sys/module/dm_historical_service_time"
#define SP_HST_SYS_BUCKET_SHIFT SP_HST_SYS_MODULE "/parameters/bucket_shift"

struct sp_hst_info {
	unsigned int bucket_shift;
	int has_param;		/* the lab's build; 0: a stock build (shift 24) */
	/* The delay scale this shift matches, 2^(bucket_shift - 24); 0 when
	 * the shift is below 24 (a scale under 1, not one the lab uses). */
	uint64_t k;
};

/* module_loaded: SP_HST_SYS_MODULE exists. bucket_shift_text: the
 * contents of SP_HST_SYS_BUCKET_SHIFT ("27\n"), NULL when that file does
 * not exist. 0, -ENOENT (not loaded) or -EINVAL (text that is no shift
 * the module would take). */
int sp_hst_info_parse(int module_loaded, const char *bucket_shift_text,
		      struct sp_hst_info *info);

/* "stock" for a shift of 24 (either build), else "bucket_shift N".
 * 0 or -ENOSPC. */
int sp_hst_info_label(const struct sp_hst_info *info, char *buf, size_t len);

/* The bucket_shift that makes HST under delays scaled by k average as
 * the stock one does unscaled: 24 + log2(k). -EINVAL unless k is a power
 * of two >= 1; -ERANGE when the shift would pass 63. */
int sp_hst_bucket_shift_for_k(uint64_t k, unsigned int *shift);

#endif
