/* Faults on nvme-tcp paths (fault_nvme.h). down, blackhole, flap and
 * slow are the wire's and work as on iSCSI (fault_apply.c); what only
 * nvmet has is a port's ANA state, which the host's native multipath
 * reads from the ANA log the port's change event makes it fetch. */
#include "harness/fault/fault_nvme.h"

#include "harness/bringup/nvmet.h"

#include "common/strbuf.h"

#include <errno.h>
#include <string.h>

int sp_fault_transport_check(const struct sp_state *st,
			     const struct sp_state_path *p,
			     enum sp_fault_how how, char *err, size_t errlen)
{
	int nvme = st->transport == SP_TRANSPORT_NVME_TCP;

	if (nvme && (how == SP_FAULT_HANG || how == SP_FAULT_RESET ||
		     how == SP_FAULT_ERROR))
		return sp_errf(err, errlen, -ENOTSUP, "path %s: %s needs a "
			       "tgtd or the delay store; an nvme-tcp path takes "
			       "down, blackhole, flap, slow and ana "
			       "(docs/faults.md)", p->label,
			       sp_fault_how_name(how));
	if (!nvme && how == SP_FAULT_ANA)
		return sp_errf(err, errlen, -ENOTSUP, "path %s: ana is an "
			       "nvmet port's state; this topology is iSCSI",
			       p->label);
	return 0;
}

int sp_fault_ana_set(const struct sp_sys_ops *ops,
		     const struct sp_state_path *p, const char *state,
		     char *err, size_t errlen)
{
	struct sp_cfs_plan plan;
	int ret;

	if (!ops->cfs)
		return sp_errf(err, errlen, -ENOTSUP, "path %s: no configfs "
			       "ops", p->label);
	ret = sp_nvmet_plan_ana(p, state, &plan);
	if (ret)
		return sp_errf(err, errlen, ret, "path %s: ANA state %s: no "
			       "plan: %s", p->label, state, strerror(-ret));
	return sp_nvmet_apply(ops->cfs, &plan, err, errlen);
}
