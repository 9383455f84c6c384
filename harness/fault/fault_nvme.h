/* The nvme-tcp side of path faults (fault_apply.c's helpers): which
 * HOWs a path of each transport takes, and the ANA state of a path's
 * nvmet port through the configfs plan (harness/bringup/nvmet.h). */
#ifndef SP_FAULT_NVME_H
#define SP_FAULT_NVME_H

#include <stddef.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/state.h"
#include "harness/fault/fault.h"

/* -ENOTSUP with err when path p of st cannot take how: hang, reset and
 * error on nvme-tcp (no tgtd, no delay store: nvmet is the kernel's),
 * ana on iSCSI (tgt has no ANA). 0 otherwise. */
int sp_fault_transport_check(const struct sp_state *st,
			     const struct sp_state_path *p,
			     enum sp_fault_how how, char *err, size_t errlen);

/* p's port's ANA group 1 set to state through ops->cfs. */
int sp_fault_ana_set(const struct sp_sys_ops *ops,
		     const struct sp_state_path *p, const char *state,
		     char *err, size_t errlen);

/* The state `up` leaves every port in, which a restore writes back. */
#define SP_FAULT_ANA_UP_STATE "optimized"

#endif
