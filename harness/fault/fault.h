/* Faults on one path of a topology that is up: what `slowpath fault`
 * does by hand and what `slowpath run --fault` schedules mid-run.
 * A fault is parsed from one spec ("at=10s path=p2 how=hang for=20s",
 * the same words `slowpath fault PATH HOW [--for D]` builds), applied
 * through struct sp_sys_ops (so unit tests mock every effect), recorded
 * in the state journal (so `down` and `fault PATH restore` can undo it
 * even after a crash), and undone by sp_fault_restore. */
#ifndef SP_FAULT_H
#define SP_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/state.h"

enum sp_fault_how {
	SP_FAULT_HANG,		/* the target stops answering */
	SP_FAULT_RESET,		/* the connection drops: tgtd killed, restarted on restore */
	SP_FAULT_BLACKHOLE,	/* every packet lost (netem loss 100 %) */
	SP_FAULT_DOWN,		/* the path's veth goes down */
	SP_FAULT_ERROR,		/* the store fails commands: error_rate, error_sense */
	SP_FAULT_FLAP,		/* down/up every flap_period */
	SP_FAULT_SLOW,		/* the path's delay x slow_factor */
	SP_FAULT_RESTORE,	/* undo whatever fault the path has */
	SP_FAULT_HOW_COUNT
};

#define SP_FAULT_MAX 32		/* --fault options one run takes */

struct sp_fault {
	enum sp_fault_how how;
	char path[64];		/* path name as in the topology/journal */
	int64_t at_ns;		/* run only: since the case's fio started; -1 = now */
	int64_t for_ns;		/* 0 = until restored (or the case ends, in a run) */
	double error_rate;	/* ERROR: 0 < rate <= 1 */
	char error_sense[32];	/* ERROR: medium, not-ready, aborted, ... */
	int64_t flap_period_ns;	/* FLAP: each down and each up lasts this */
	double slow_factor;	/* SLOW: delay multiplied by this, > 0 */
};

const char *sp_fault_how_name(enum sp_fault_how how);
/* "hang" ... "restore" into *how; -EINVAL. */
int sp_fault_how_parse(const char *name, enum sp_fault_how *how);
/* A fault of how with the defaults every spec starts from: at=-1 (now),
 * for=0 (until restored), rate 1, sense medium, period 5s, factor 10. */
void sp_fault_init(struct sp_fault *f, enum sp_fault_how how);

/* "k=v k=v ..." (at= path= how= for= rate= sense= period= factor=) into
 * *f; -EINVAL with err naming the word and value. Pure. */
int sp_fault_parse(const char *spec, struct sp_fault *f, char *err,
		   size_t errlen);
/* The spec text of *f, which sp_fault_parse reads back to *f. */
int sp_fault_format(const struct sp_fault *f, char *buf, size_t len);

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
