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

/* hst-5.8 (lab/hst-build.sh, hst_patch_5_8): HST as merged for 5.8,
 * its time_now sched_clock() plus the module parameter clock_skew_ns,
 * a module of its own beside the stock one. The skew is writable at
 * run time and bounded as the module bounds it. */
#define SP_HST58_SYS_MODULE "/sys/module/dm_historical_service_time_58"
#define SP_HST58_SYS_SKEW SP_HST58_SYS_MODULE "/parameters/clock_skew_ns"
#define SP_HST58_SKEW_MAX_NS (3600LL * 1000000000LL)

/* hst-prebio (lab/hst-build.sh, hst_patch_prebio): HST before
 * c06dfd124d46, without DM_PS_USE_HR_TIMER (bio-based multipath gives it
 * the dm I/O's jiffies start time), a module of its own. */
#define SP_HSTPB_SYS_MODULE "/sys/module/dm_historical_service_time_prebio"

/* A build's name as --hst, the journal and the cases say it: "stock",
 * "5.8", "prebio"; NULL for no build. */
const char *sp_hst_build_name(int build);
/* The reverse: the enum value or -EINVAL. */
int sp_hst_build_by_name(const char *name);

/* What `--hst` asks for: "stock", "5.8" (skew 0), "5.8:SKEW", SKEW a
 * duration with its unit ("200ms", "-20ms", "0"), or "prebio". */
struct sp_hst_choice {
	int build;		/* enum sp_hst_build (dm/dm_table.h) */
	int64_t skew_ns;	/* 5.8 only */
};

/* 0, or -EINVAL with err naming the value and what is wanted. */
int sp_hst_choice_parse(const char *text, struct sp_hst_choice *c,
			char *err, size_t errlen);

/* The decimal clock_skew_ns /sys shows ("-20000000\n") -> ns. 0 or
 * -EINVAL (not a number, or outside what the module takes). */
int sp_hst_skew_parse(const char *text, int64_t *skew_ns);

/* What a case's env says of the HST it ran: base (sp_hst_info_label's
 * "stock" or "bucket_shift N") for the stock build; for 5.8, "5.8 skew
 * 200ms" (a bucket_shift other than 24 after "5.8"). skew_known 0:
 * "5.8 skew ?" (/sys did not say). For prebio, "prebio" (and a
 * bucket_shift other than 24 after it). 0 or -ENOSPC. */
int sp_hst_build_label(const char *base, int build, int skew_known,
		       int64_t skew_ns, char *buf, size_t len);

#endif
