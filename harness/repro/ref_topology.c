/* The published experiment's three setups as the topology files describe
 * them (topologies/equal3.ini, skew4.ini, u10.ini): path counts,
 * multipliers and which paths are slow come from there, so the
 * reference and `slowpath up` cannot disagree about a setup. */
#include "harness/repro/reference.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure/shares.h"
#include "topologies/topo.h"

const char *const sp_ref_topology_names[SP_REF_N_TOPOLOGIES] = {
	"equal3", "skew4", "u10",
};

static int name_slot(const char *name)
{
	int i;

	for (i = 0; i < SP_REF_N_TOPOLOGIES; i++)
		if (!strcmp(sp_ref_topology_names[i], name))
			return i;
	return -1;
}

int sp_ref_topology_set(struct sp_ref_topologies *set,
			const struct sp_topo *topo, char *err, size_t errlen)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	struct sp_ref_topology *t;
	int slot = name_slot(topo->name);
	size_t i;
	int ret;

	if (slot < 0) {
		snprintf(err, errlen, "topology %s is none of the published "
			 "equal3, skew4, u10", topo->name);
		return -EINVAL;
	}
	if (topo->npaths < 1 || topo->npaths > SP_REF_MAX_PATHS ||
	    topo->unit_ns <= 0) {
		snprintf(err, errlen, "topology %s: %zu paths, unit %lld ns: "
			 "not a published setup", topo->name, topo->npaths,
			 (long long)topo->unit_ns);
		return -EINVAL;
	}
	ret = sp_topo_resolve(topo, 0, r, err, errlen);
	if (ret)
		return ret;
	t = &set->topo[slot];
	memset(t, 0, sizeof(*t));
	t->name = sp_ref_topology_names[slot];
	t->n_paths = topo->npaths;
	t->servers = topo->servers;
	for (i = 0; i < topo->npaths; i++) {
		int64_t d = r[i].read_delay_ns > r[i].write_delay_ns ?
			    r[i].read_delay_ns : r[i].write_delay_ns;

		t->delay_ns[i] = (double)d;
		t->multiplier[i] = (double)d / (double)topo->unit_ns;
	}
	return 0;
}

int sp_ref_topologies_load(const char *dir, struct sp_ref_topologies *set,
			   char *err, size_t errlen)
{
	struct sp_topo *topo = malloc(sizeof(*topo));
	char path[4096];
	int i, ret = 0;

	if (!topo)
		return -ENOMEM;
	memset(set, 0, sizeof(*set));
	for (i = 0; i < SP_REF_N_TOPOLOGIES && !ret; i++) {
		if (dir)
			snprintf(path, sizeof(path), "%s/%s.ini", dir,
				 sp_ref_topology_names[i]);
		else
			snprintf(path, sizeof(path), "%s",
				 sp_ref_topology_names[i]);
		ret = sp_topo_load(path, topo, err, errlen);
		if (!ret)
			ret = sp_ref_topology_set(set, topo, err, errlen);
	}
	free(topo);
	return ret;
}

const struct sp_ref_topology *sp_ref_topology(const struct sp_reference *ref,
					      const char *name)
{
	int slot = name_slot(name);

	if (slot < 0 || !ref->topologies ||
	    !ref->topologies->topo[slot].n_paths)
		return NULL;
	return &ref->topologies->topo[slot];
}

const struct sp_ref_topology *sp_ref_topologies(const struct sp_reference *ref,
						size_t *n)
{
	*n = SP_REF_N_TOPOLOGIES;
	return ref->topologies->topo;
}

int sp_ref_slow_marks(const struct sp_reference *ref, const char *topology,
		      size_t n_paths, int *marked)
{
	const struct sp_ref_topology *topo = sp_ref_topology(ref, topology);

	if (!topo || topo->n_paths != n_paths)
		return -EINVAL;
	return (int)sp_slow_marks(topo->delay_ns, n_paths, marked);
}

int sp_ref_case_slow_marks(const struct sp_ref_case *c, int *marked)
{
	if (!c->topo || c->topo->n_paths != c->n_paths)
		return -EINVAL;
	return (int)sp_slow_marks(c->topo->delay_ns, c->n_paths, marked);
}
