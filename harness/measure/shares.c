#include "harness/measure/shares.h"

#include <errno.h>
#include <math.h>

int sp_shares(const uint64_t *ios, size_t n_paths, double *fractions)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < n_paths; i++)
		total += ios[i];
	if (total == 0)
		return -EINVAL;
	for (i = 0; i < n_paths; i++)
		fractions[i] = (double)ios[i] / (double)total;
	return 0;
}

double sp_total_variation(const double *p, const double *q, size_t n_paths)
{
	double distance = 0;
	size_t i;

	for (i = 0; i < n_paths; i++)
		distance += fabs(p[i] - q[i]);
	return distance / 2;
}

size_t sp_slow_marks(const double *delay, size_t n_paths, int *slow)
{
	double fastest = INFINITY;
	size_t i, n = 0;

	for (i = 0; i < n_paths; i++)
		fastest = fmin(fastest, delay[i]);
	for (i = 0; i < n_paths; i++) {
		slow[i] = delay[i] > fastest;
		n += (size_t)slow[i];
	}
	return n;
}

double sp_share_of(const double *fractions, const int *marked, size_t n_paths)
{
	double share = 0;
	size_t i;

	for (i = 0; i < n_paths; i++) {
		if (marked[i])
			share += fractions[i];
	}
	return share;
}
