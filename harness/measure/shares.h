/* How a selector spread the I/O: each path's fraction of the total, and
 * how far one spread is from another. */
#ifndef SP_SHARES_H
#define SP_SHARES_H

#include <stddef.h>
#include <stdint.h>

/* fractions[i] = ios[i] / sum(ios). -EINVAL when nothing was counted. */
int sp_shares(const uint64_t *ios, size_t n_paths, double *fractions);

/* Total variation distance: half the L1 distance of two spreads. */
double sp_total_variation(const double *p, const double *q, size_t n_paths);

/* Sum of fractions[i] over the paths whose mark is set (e.g. slow ones). */
double sp_share_of(const double *fractions, const int *marked, size_t n_paths);

/* What "slow path" means everywhere (run, report, reproduce): more
 * delay than the fastest path. slow[i] = delay[i] > min(delay), in any
 * one unit; equal paths have none. Returns how many are slow. */
size_t sp_slow_marks(const double *delay, size_t n_paths, int *slow);

#endif
