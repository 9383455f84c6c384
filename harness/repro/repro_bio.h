/* `slowpath reproduce hst-bio-2022`: u10-bio up (u10's paths under a
 * bio-based map), randwrite at iodepth 64 under ST and the stock HST
 * (with c06dfd124d46), then HST before the fix (--hst prebio), each a
 * fixed count of I/Os on exact time; down; the four columns scored
 * against the published ones (ref_bio.h) into OUT/report.md. Through
 * struct sp_repro_ops, so unit tests drive it with mocks. */
#ifndef SP_REPRO_BIO_H
#define SP_REPRO_BIO_H

#include <stddef.h>
#include <stdint.h>

#include "harness/repro/ref_bio.h"
#include "harness/repro/repro_ops.h"

/* Before c06dfd124d46 a bio's start time came from jiffies, and
 * jiffies_to_nsecs() goes through a 32-bit count of microseconds of
 * jiffies since INITIAL_JIFFIES, 300 s before boot: on a machine up
 * longer than that, every start time is at least 300 s in the past
 * of ktime_get_ns(); on one up less, it is ~4000 s in the future, and
 * HST sees every service time as 0. The runs wait (simulated time on
 * exact time) until the guest is up this long: the published machine
 * was, as any is five minutes after boot. */
#define SP_BIO_MIN_UPTIME_S 310

struct sp_repro_bio_opts {
	int64_t ios;		/* I/Os a run (exact time), else 0 */
	int64_t runtime_s;	/* seconds a run when not ios */
	int64_t warmup_s;	/* HST's unmeasured workload before a run */
	/* the host the report is written on; where the runs ran is what
	 * their cases recorded */
	const char *host;
};

/* The runs through ops into OUT/runs/{after,before}, then the report
 * (pub: the published table). 0, -EIO (a step failed, having said
 * why) or the scoring's -errno. s (may be NULL) gets the score. */
int sp_repro_bio(const struct sp_repro_ops *ops,
		 const struct sp_repro_bio_opts *o,
		 const struct sp_bio_table *pub, const char *out,
		 struct sp_bio_score *s);

/* The scoring of the cases already in OUT/runs (the after run's ST and
 * HST, the before run's HST) and OUT/report.md written (over an old
 * one). uptime_s: the guest's before the prebio run; < 0: what the run
 * left in OUT/runs/before/uptime, if anything. */
int sp_repro_bio_report(const struct sp_repro_ops *ops,
			const struct sp_repro_bio_opts *o,
			const struct sp_bio_table *pub, const char *out,
			double uptime_s, struct sp_bio_score *s);

#endif
