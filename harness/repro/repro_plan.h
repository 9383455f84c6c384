/* Which published cases `slowpath reproduce` runs, and how big each run
 * is: --cases "skew4/randread/1+2,u10" picks topologies, rw modes and
 * iodepths out of the 3 x 4 x 4 published points (each run under ST and
 * HST). Pure. */
#ifndef SP_REPRO_PLAN_H
#define SP_REPRO_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "harness/repro/reference.h"

#define SP_REPRO_N_TOPOS 3
#define SP_REPRO_N_QD 4
/* The fewest I/Os a run holds on exact time (the published runs: 128 000,
 * --full): the shares' standard error stays within 0.5 pp. */
#define SP_REPRO_EXACT_IOS 20000
/* a noisy run on exact time runs again with at most this many times
 * its I/Os */
#define SP_REPRO_EXACT_RERUN_MAX 10

extern const char *const sp_repro_topologies[SP_REPRO_N_TOPOS];
extern const int sp_repro_iodepths[SP_REPRO_N_QD];

/* iodepth's index in sp_repro_iodepths, or -1 when it is none of them. */
int sp_repro_qd_index(int iodepth);

struct sp_repro_plan {
	/* want[topology][rw][iodepth index] */
	unsigned char want[SP_REPRO_N_TOPOS][SP_REF_N_RW][SP_REPRO_N_QD];
};

/* NULL or "all": every point. Errors name the item and the bad part;
 * 0 or -EINVAL. */
int sp_repro_plan_parse(const char *spec, struct sp_repro_plan *plan,
			char *err, size_t errlen);

/* How many points (each is two runs, ST and HST). */
size_t sp_repro_plan_points(const struct sp_repro_plan *plan);

/* Whether topology t is needed at all; rw modes and iodepths of one
 * topology, as the comma lists `slowpath run` takes ("randread",
 * "1,32"). The iodepths are those wanted with that rw mode. */
int sp_repro_plan_has_topology(const struct sp_repro_plan *plan, size_t t);
int sp_repro_plan_iodepths(const struct sp_repro_plan *plan, size_t t,
			   enum sp_ref_rw rw, char *buf, size_t len);

#endif
