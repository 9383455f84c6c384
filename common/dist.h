/* The one delay distribution: a topology's `dist =`, netem's
 * `distribution NAME` and the delay store's `dist=` are this enum, so
 * nothing bridges one to another. */
#ifndef SP_DIST_H
#define SP_DIST_H

enum sp_dist {
	SP_DIST_UNIFORM,	/* netem: its own even spread, no table */
	SP_DIST_NORMAL,
	SP_DIST_PARETO,
	SP_DIST_PARETONORMAL,	/* netem's only: the store has no such */
	SP_DIST_COUNT
};

/* Indexed by the enum, NULL-terminated. */
extern const char *const sp_dist_names[];
/* The store's choices: the same names up to pareto. */
extern const char *const sp_dist_store_names[];

#endif
