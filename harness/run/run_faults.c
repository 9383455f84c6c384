/* The schedule of a case's faults. Actions fall due at the times the
 * specs give (at, at + period, ..., at + for), not at the times they
 * were done, so a slow apply does not shift the rest. */
#include "harness/run/run_faults.h"

#include "common/strbuf.h"

#include <errno.h>
#include <string.h>

static int64_t start_ns(const struct sp_fault *f)
{
	return f->at_ns > 0 ? f->at_ns : 0;
}

/* INT64_MAX: until the case ends. */
static int64_t end_ns(const struct sp_fault *f)
{
	return f->for_ns > 0 ? start_ns(f) + f->for_ns : INT64_MAX;
}

int sp_run_faults_check(const struct sp_fault *f, size_t n, char *err,
			size_t errlen)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (f[i].how == SP_FAULT_FLAP && f[i].flap_period_ns <= 0)
			return sp_errf(err, errlen, -EINVAL, "--fault %zu on %s: "
				       "a flap needs a period", i + 1, f[i].path);
		for (j = 0; j < i; j++) {
			if (strcmp(f[i].path, f[j].path) ||
			    f[i].how == SP_FAULT_RESTORE ||
			    f[j].how == SP_FAULT_RESTORE)
				continue;
			if (start_ns(&f[i]) < end_ns(&f[j]) &&
			    start_ns(&f[j]) < end_ns(&f[i]))
				return sp_errf(err, errlen, -EINVAL, "--fault %zu "
					       "and --fault %zu both break %s at "
					       "once; restoring one would undo "
					       "the other", j + 1, i + 1,
					       f[i].path);
		}
	}
	return 0;
}

void sp_run_faults_reset(struct sp_run_fault_clock *c, size_t n)
{
	memset(c, 0, n * sizeof(*c));
}

/* When fault f next needs something, and what. */
static int64_t due(const struct sp_fault *f, const struct sp_run_fault_clock *c,
		   enum sp_run_fault_act *act)
{
	int64_t end = end_ns(f);

	switch (c->phase) {
	case SP_RF_PENDING:
		*act = f->how == SP_FAULT_RESTORE ? SP_RF_RESTORE : SP_RF_APPLY;
		return start_ns(f);
	case SP_RF_ACTIVE:
		if (f->how == SP_FAULT_FLAP && c->flap_ns < end) {
			*act = c->down ? SP_RF_FLAP_UP : SP_RF_FLAP_DOWN;
			return c->flap_ns;
		}
		*act = SP_RF_RESTORE;
		return end;
	default:
		*act = SP_RF_NONE;
		return INT64_MAX;
	}
}

enum sp_run_fault_act sp_run_faults_next(const struct sp_fault *f,
					 struct sp_run_fault_clock *c,
					 size_t n, int64_t t_ns, size_t *i,
					 int64_t *next_ns)
{
	enum sp_run_fault_act act, best_act = SP_RF_NONE;
	int64_t t, best = INT64_MAX;
	size_t k, which = 0;

	for (k = 0; k < n; k++) {
		t = due(&f[k], &c[k], &act);
		if (act != SP_RF_NONE && t < best) {
			best = t;
			best_act = act;
			which = k;
		}
	}
	if (best_act == SP_RF_NONE || best > t_ns) {
		*next_ns = best;
		return SP_RF_NONE;
	}
	*i = which;
	switch (best_act) {
	case SP_RF_APPLY:
		c[which].phase = SP_RF_ACTIVE;
		/* apply brings a flap's link down first */
		c[which].down = f[which].how == SP_FAULT_FLAP;
		c[which].flap_ns = best + f[which].flap_period_ns;
		break;
	case SP_RF_FLAP_DOWN:
	case SP_RF_FLAP_UP:
		c[which].down = best_act == SP_RF_FLAP_DOWN;
		c[which].flap_ns += f[which].flap_period_ns;
		break;
	default:
		c[which].phase = SP_RF_DONE;
		break;
	}
	/* what falls due after this one */
	*next_ns = INT64_MAX;
	for (k = 0; k < n; k++) {
		t = due(&f[k], &c[k], &act);
		if (act != SP_RF_NONE && t < *next_ns)
			*next_ns = t;
	}
	return best_act;
}
