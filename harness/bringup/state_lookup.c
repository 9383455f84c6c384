/* Lookups over a loaded journal (state.h): a path by its number, label
 * or disk; a path's calibration residual, and the worst one. */
#include "harness/bringup/state.h"

#include "common/units.h"
#include "harness/measure/case_env.h"

#include <math.h>
#include <string.h>

struct sp_state_path *sp_state_path_by_number(struct sp_state *st,
					      const char *tok)
{
	int64_t n;
	size_t i;

	/* digits only: no sign, no blank */
	if (*tok < '0' || *tok > '9' ||
	    sp_parse_int64(tok, 0, SP_TOPO_MAX_PATHS, &n))
		return NULL;
	for (i = 0; i < st->npaths; i++)
		if (st->paths[i].index == (unsigned int)n)
			return &st->paths[i];
	return NULL;
}

struct sp_state_path *sp_state_find_path(struct sp_state *st,
					 const char *index_or_label)
{
	size_t i;
	struct sp_state_path *p = sp_state_path_by_number(st, index_or_label);

	if (p)
		return p;
	for (i = 0; i < st->npaths; i++)
		if (!strcmp(st->paths[i].label, index_or_label) ||
		    !strcmp(st->paths[i].disk, index_or_label))
			return &st->paths[i];
	return NULL;
}

double sp_state_calib_residual(const struct sp_state_path *p)
{
	if (!p->has_calib || p->calib_target_ns <= 0)
		return 0;
	return (double)p->calib_measured_ns / (double)p->calib_target_ns - 1;
}

int sp_state_calib_worst(const struct sp_state *st, double bound)
{
	double resid[SP_TOPO_MAX_PATHS];
	int has[SP_TOPO_MAX_PATHS];
	size_t i;

	for (i = 0; i < st->npaths; i++) {
		has[i] = st->paths[i].has_calib;
		resid[i] = sp_state_calib_residual(&st->paths[i]);
	}
	return sp_resid_worst(resid, has, st->npaths, bound);
}
