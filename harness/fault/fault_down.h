/* `slowpath down` once parsed: every fault undone first (a held store
 * or a stopped tgtd would stall the logout), then the journal replayed
 * backwards (harness/bringup), under the topology lock; also after a
 * crash, sweeping by name when the journal is unreadable. Here, not in
 * harness/bringup, because undoing faults is this room's and this room
 * sits over the bring-up. An exit code. */
#ifndef SP_FAULT_DOWN_H
#define SP_FAULT_DOWN_H

int sp_do_down(void);

#endif
