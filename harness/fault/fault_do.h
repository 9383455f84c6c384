/* What `slowpath fault` and `slowpath down` do once parsed. Each
 * returns an sp_exit code and says why through the log hook. */
#ifndef SP_FAULT_DO_H
#define SP_FAULT_DO_H

#include "harness/fault/fault.h"

/* `slowpath fault`, its spec parsed: the fault applied to its path of
 * the topology that is up, under the topology lock; with a duration
 * (f->for_ns; for_given: --for was said) it waits, toggling a flap,
 * then undoes its own fault only, also on SIGINT/SIGTERM. */
int sp_do_fault(const struct sp_fault *f, int for_given);

/* `slowpath down`: every fault undone first (a held store or a stopped
 * tgtd would stall the logout), then the journal replayed backwards
 * (harness/bringup), under the topology lock; also after a crash,
 * sweeping by name when the journal is unreadable. Here, not in
 * harness/bringup, because undoing faults is this room's and this room
 * sits over the bring-up. */
int sp_do_down(void);

#endif
