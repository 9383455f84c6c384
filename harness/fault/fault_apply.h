/* Faults applied and undone: through struct sp_sys_ops (so unit tests
 * mock every effect), recorded in the state journal (so `down` and
 * `fault PATH restore` can undo one even after a crash), and undone by
 * sp_fault_restore. The grammar is harness/fault/fault.h. */
#ifndef SP_FAULT_APPLY_H
#define SP_FAULT_APPLY_H

#include <stddef.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/state.h"
#include "harness/fault/fault.h"

/* Applies f->how to f->path now (FLAP: the first "down"; the caller's
 * clock drives sp_fault_flap_tick). 0 or -errno, err says what failed. */
int sp_fault_apply(const struct sp_sys_ops *ops, struct sp_state *st,
		   const struct sp_fault *f, char *err, size_t errlen);
/* FLAP only: brings the link down (down = 1) or up; 0 or -errno. */
int sp_fault_flap_tick(const struct sp_sys_ops *ops, struct sp_state *st,
		       const struct sp_fault *f, int down, char *err,
		       size_t errlen);
/* Undoes any fault on path; a path with none is fine (idempotent).
 * Then, as multipathd's checker would (the testbed runs none), waits
 * until the path's SCSI device runs again and reinstates it in the map
 * when the map had failed it (for a path with no fault: only when its
 * device runs already, else 0 and nothing done). */
int sp_fault_restore(const struct sp_sys_ops *ops, struct sp_state *st,
		     const char *path, char *err, size_t errlen);

/* The same three with the state directory given (the ones above use
 * sp_state_dir()). None takes the topology lock: the CLI does, and a
 * run holds it already. A path with a fault refuses another (-EBUSY);
 * a fault that fails halfway is undone before the error returns. */
int sp_fault_apply_in(const struct sp_sys_ops *ops, struct sp_state *st,
		      const char *dir, const struct sp_fault *f, char *err,
		      size_t errlen);
int sp_fault_restore_in(const struct sp_sys_ops *ops, struct sp_state *st,
			const char *dir, const char *path, char *err,
			size_t errlen);
/* Undoes path's fault only when it is the one whose journal id is id
 * (the path's fault_id right after sp_fault_apply_in): -ESTALE, with
 * err saying so and nothing changed, when the path has no fault any
 * more or another one (restored and set again meanwhile). */
int sp_fault_restore_own(const struct sp_sys_ops *ops, struct sp_state *st,
			 const char *dir, const char *path, const char *id,
			 char *err, size_t errlen);
/* The end of `fault --for`: takes the topology lock in dir (NULL: the
 * state dir), trying again for up to wait_ms while another command
 * holds it (-EWOULDBLOCK after that, the fault left), loads the journal
 * into *st and sp_fault_restore_own's it; -ESTALE also when no topology
 * is up any more. */
#define SP_FAULT_END_WAIT_MS (10 * 60 * 1000)
int sp_fault_end_own(const struct sp_sys_ops *ops, struct sp_state *st,
		     const char *dir, const char *path, const char *id,
		     unsigned int wait_ms, char *err, size_t errlen);
/* Every path's fault undone (what `down` does first); the first error
 * in err, the others tried anyway. */
int sp_fault_restore_all(const struct sp_sys_ops *ops, struct sp_state *st,
			 const char *dir, char *err, size_t errlen);

#endif
