/* The device-mapper "multipath" target line for one path group, in the
 * grammar of the kernel's dm-mpath.c and its path selectors
 * (dm-ps-*.c). Pure text in, text out, so `up` and `status` can share it
 * and tests need no device-mapper. */
#ifndef SP_DM_TABLE_H
#define SP_DM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "dm/selector.h"

#define SP_DM_MAX_PATHS 64
#define SP_DM_ERRLEN 256

/* The kernel leaves HST's base weight at 972 (0.95 in 10-bit fixed
 * point) unless told otherwise. */
#define SP_HST_DEFAULT_BASE_WEIGHT 972
#define SP_HST_FIXED_ONE 1024
#define SP_ST_MAX_RELATIVE_THROUGHPUT 100

/* Which build of historical-service-time a table names (docs/
 * selectors.md, "hst-5.8"): the kernel's, or the lab's hst-5.8 (HST as
 * merged for 5.8, time_now from sched_clock() plus clock_skew_ns), which
 * registers a selector name and a module of its own. */
enum sp_hst_build {
	SP_HST_BUILD_STOCK = 0,
	SP_HST_BUILD_5_8 = 1,
	/* HST before c06dfd124d46 (2022): without DM_PS_USE_HR_TIMER, so
	 * bio-based multipath hands it the jiffies start time of the dm
	 * I/O (lab/hst-build.sh, hst_patch_prebio) */
	SP_HST_BUILD_PREBIO = 2,
};
#define SP_HST58_KERNEL_NAME "historical-service-time-5.8"
#define SP_HST58_MODULE "dm_historical_service_time_58"
#define SP_HSTPB_KERNEL_NAME "historical-service-time-prebio"
#define SP_HSTPB_MODULE "dm_historical_service_time_prebio"

/* dm-multipath's queue_mode feature: request-based (the kernel's
 * default, "mq"; a table says nothing) or bio-based ("queue_mode bio":
 * no request queue under the map, each bio mapped to a path as it
 * comes, as the 2022 HST fix was measured). */
enum sp_dm_queue_mode {
	SP_DM_QUEUE_RQ = 0,
	SP_DM_QUEUE_BIO = 1,
};
/* "rq" (also for the kernel's "mq"), "bio" */
const char *sp_dm_queue_mode_name(enum sp_dm_queue_mode mode);
/* "bio" -> BIO, "rq" or "mq" -> RQ; 0 or -EINVAL */
int sp_dm_queue_mode_parse(const char *text, enum sp_dm_queue_mode *mode);

struct sp_dm_selector {
	enum sp_selector kind;
	/* The HST build a table names when kind is HST; kept with any
	 * kind, so a run's HST cases use the build `up` was given. */
	enum sp_hst_build hst_build;
	/* HST only; -1 leaves the kernel default. base_weight is in
	 * [0, 1024); threshold_multiplier any unsigned value. */
	int64_t base_weight;
	int64_t threshold_multiplier;
};

struct sp_dm_path {
	unsigned int major, minor;
	/* service-time only: 0..100, the kernel's default is 1 */
	unsigned int relative_throughput;
	/* io-affinity only: the CPUs (bit n = CPU n) whose I/O this path
	 * takes; 0 spreads the CPUs over the paths (sp_dm_ioa_mask). */
	uint64_t cpumask;
};

struct sp_dm_map {
	uint64_t sectors;		/* 512-byte sectors */
	struct sp_dm_selector sel;
	int queue_if_no_path;
	enum sp_dm_queue_mode queue_mode;
	size_t npaths;
	/* io-affinity: the machine's possible CPUs (nr_cpu_ids), which the
	 * default masks spread over the paths; 0 when unknown, taken as
	 * one CPU per path. */
	unsigned int ncpus;
	struct sp_dm_path paths[SP_DM_MAX_PATHS];
};

/* The CPUs a map's path i takes under io-affinity: its own cpumask, or
 * by default every CPU c < ncpus with c % npaths == i. */
uint64_t sp_dm_ioa_mask(const struct sp_dm_map *map, size_t i);

/* "0", "0-3", "1,3,5-6" (CPUs 0..63) -> a mask. 0 or -EINVAL. */
int sp_dm_cpulist_parse(const char *text, uint64_t *mask);

/* Fills sel with kind and the kernel's defaults. */
void sp_dm_selector_init(struct sp_dm_selector *sel, enum sp_selector kind);
void sp_dm_map_init(struct sp_dm_map *map, enum sp_selector kind);

/* The name a table gives sel's selector: info's kernel name, or
 * SP_HST58_KERNEL_NAME / SP_HSTPB_KERNEL_NAME for HST's 5.8 and prebio
 * builds; its module likewise. */
const char *sp_dm_selector_kernel_name(const struct sp_dm_selector *sel);
const char *sp_dm_selector_module(const struct sp_dm_selector *sel);

/* 0, -EINVAL (err names the value) or -ENOSPC (buf too small). */
int sp_dm_table_build(const struct sp_dm_map *map, char *buf, size_t len,
		      char *err, size_t errlen);

/* The reverse: a `dmsetup table` line for a single-group multipath map
 * back into a map. 0 or -EINVAL with err naming the token. */
int sp_dm_table_parse(const char *line, struct sp_dm_map *map, char *err,
		      size_t errlen);

#endif
