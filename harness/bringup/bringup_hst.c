/* `up --scale K` and HST: the historical-service-time selector averages
 * service times in buckets of 2^bucket_shift ns, so under delays scaled
 * by k it must be loaded with bucket_shift = 24 + log2 k to decide as
 * the stock one does unscaled (docs/lab.md, "HST's bucket shift"). The
 * shift is fixed at load: a module loaded with another one is reloaded
 * when no map uses it, and refused when one does. */
#include "harness/bringup/bringup.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HST_MOD sp_selector_module(SP_SEL_HST)

int sp_bringup_hst_loaded(const struct sp_sys_ops *ops,
			  struct sp_hst_info *info)
{
	char text[32];
	int has_param;

	if (!ops->exists(ops->ctx, SP_HST_SYS_MODULE))
		return -ENOENT;
	has_param = !ops->read_file(ops->ctx, SP_HST_SYS_BUCKET_SHIFT, text,
				    sizeof(text));
	return sp_hst_info_parse(1, has_param ? text : NULL, info);
}

static int load(const struct sp_sys_ops *ops, unsigned int shift)
{
	char param[32];

	/* a stock build knows no parameter and refuses any */
	if (shift == SP_HST_STOCK_BUCKET_SHIFT)
		return sp_sys_runv(ops, NULL, 0, "modprobe", "-q", HST_MOD,
				   NULL);
	snprintf(param, sizeof(param), "bucket_shift=%u", shift);
	return sp_sys_runv(ops, NULL, 0, "modprobe", "-q", HST_MOD, param,
			   NULL);
}

int sp_bringup_hst_ensure(const struct sp_sys_ops *ops, uint64_t k,
			  int *loaded, unsigned int *shift, char *err,
			  size_t errlen)
{
	struct sp_hst_info info;
	unsigned int want;
	char refcnt[32];
	int ret;

	*loaded = 0;
	if (k == 0)
		k = 1;
	ret = sp_hst_bucket_shift_for_k(k, &want);
	if (ret)
		return sp_errf(err, errlen, ret, "scale %llu: %s",
			     (unsigned long long)k, ret == -ERANGE
			     ? "HST's bucket shift would pass 63"
			     : "not a power of two");
	ret = sp_bringup_hst_loaded(ops, &info);
	if (ret == -EINVAL)
		return sp_errf(err, errlen, ret, "%s shows a bucket shift "
			     "slowpath cannot read", SP_HST_SYS_BUCKET_SHIFT);
	if (!ret && info.bucket_shift == want) {
		*loaded = 1;
		*shift = want;
		return 0;
	}
	if (ret == -ENOENT && k == 1)
		return 0;	/* whatever loads it later loads the stock 24 */
	if (!ret) {
		if (!info.has_param)
			return sp_errf(err, errlen, -ENOTSUP, "the loaded "
				     "historical-service-time is a stock build "
				     "(buckets of 2^24 ns, no bucket_shift "
				     "parameter): delays scaled by %llu need "
				     "bucket_shift %u (the lab's build, or "
				     "'make hst-module')", (unsigned long long)k,
				     want);
		if (!ops->read_file(ops->ctx, SP_HST_SYS_MODULE "/refcnt",
				    refcnt, sizeof(refcnt)) &&
		    strtoul(refcnt, NULL, 10) > 0)
			return sp_errf(err, errlen, -EBUSY, "historical-service-"
				     "time is loaded with bucket_shift %u and "
				     "in use (refcnt %lu); --scale %llu needs "
				     "%u: remove the maps that use it first",
				     info.bucket_shift,
				     strtoul(refcnt, NULL, 10),
				     (unsigned long long)k, want);
		sp_info("reloading historical-service-time: bucket_shift %u "
			"-> %u (delays x %llu)", info.bucket_shift, want,
			(unsigned long long)k);
		if (sp_sys_runv(ops, NULL, 0, "rmmod", HST_MOD, NULL))
			return sp_errf(err, errlen, -EBUSY, "rmmod %s failed: "
				     "%s", HST_MOD, ops->last_error ?
				     ops->last_error(ops->ctx) : "");
	}
	if (load(ops, want)) {
		if (k == 1)
			return 0;
		return sp_errf(err, errlen, -ENOENT, "cannot load %s with "
			     "bucket_shift=%u (delays x %llu): it needs the "
			     "lab's build or 'make hst-module'", HST_MOD, want,
			     (unsigned long long)k);
	}
	ret = sp_bringup_hst_loaded(ops, &info);
	if (ret || info.bucket_shift != want)
		return sp_errf(err, errlen, -EIO, "%s was loaded but does not "
			     "show bucket_shift %u", HST_MOD, want);
	*loaded = 1;
	*shift = want;
	return 0;
}

int sp_bringup_hst58_ready(const struct sp_sys_ops *ops,
			   const int64_t *skew_ns, char *err, size_t errlen)
{
	char text[32];
	int64_t got;

	if (!ops->exists(ops->ctx, SP_HST58_SYS_MODULE) &&
	    sp_sys_runv(ops, NULL, 0, "modprobe", "-q", SP_HST58_MODULE, NULL))
		return sp_errf(err, errlen, -ENOENT, "this kernel has no "
			       "hst-5.8 (%s): rebuild the lab with 'make lab', "
			       "which builds it beside the stock HST",
			       SP_HST58_MODULE);
	if (!skew_ns)
		return 0;
	snprintf(text, sizeof(text), "%lld\n", (long long)*skew_ns);
	if (ops->write_file(ops->ctx, SP_HST58_SYS_SKEW, text) ||
	    ops->read_file(ops->ctx, SP_HST58_SYS_SKEW, text, sizeof(text)) ||
	    sp_hst_skew_parse(text, &got) || got != *skew_ns)
		return sp_errf(err, errlen, -EIO, "setting %s to %lld failed",
			       SP_HST58_SYS_SKEW, (long long)*skew_ns);
	sp_info("hst-5.8: clock_skew_ns %lld", (long long)*skew_ns);
	return 0;
}

int sp_bringup_hst_build_ready(const struct sp_sys_ops *ops, int build,
			       const int64_t *skew_ns, char *err, size_t errlen)
{
	if (build == SP_HST_BUILD_5_8)
		return sp_bringup_hst58_ready(ops, skew_ns, err, errlen);
	if (build != SP_HST_BUILD_PREBIO)
		return 0;
	if (!ops->exists(ops->ctx, SP_HSTPB_SYS_MODULE) &&
	    sp_sys_runv(ops, NULL, 0, "modprobe", "-q", SP_HSTPB_MODULE, NULL))
		return sp_errf(err, errlen, -ENOENT, "this kernel has no "
			       "hst-prebio (%s): rebuild the lab with 'make lab', "
			       "which builds it beside the stock HST",
			       SP_HSTPB_MODULE);
	return 0;
}
