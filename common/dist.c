/* The one delay distribution (dist.h). */
#include "common/dist.h"

#include <stddef.h>

const char *const sp_dist_names[] = {
	[SP_DIST_UNIFORM] = "uniform", [SP_DIST_NORMAL] = "normal",
	[SP_DIST_PARETO] = "pareto", [SP_DIST_PARETONORMAL] = "paretonormal",
	[SP_DIST_COUNT] = NULL,
};

const char *const sp_dist_store_names[] = {
	[SP_DIST_UNIFORM] = "uniform", [SP_DIST_NORMAL] = "normal",
	[SP_DIST_PARETO] = "pareto", [SP_DIST_PARETONORMAL] = NULL,
};
