/* When the faults of `slowpath run --fault` happen in a case: each is
 * applied at its at= after fio starts, flapped every period, restored
 * after its for= (or when the case ends). The clock is the caller's;
 * this only says what is due. Pure. */
#ifndef SP_RUN_FAULTS_H
#define SP_RUN_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/fault/fault.h"

enum sp_run_fault_phase { SP_RF_PENDING, SP_RF_ACTIVE, SP_RF_DONE };

/* One fault's progress through a case. */
struct sp_run_fault_clock {
	enum sp_run_fault_phase phase;
	int64_t flap_ns;	/* FLAP: when the link next changes */
	int down;		/* FLAP: the link is down now */
};

enum sp_run_fault_act {
	SP_RF_NONE,
	SP_RF_APPLY,
	SP_RF_FLAP_DOWN,
	SP_RF_FLAP_UP,
	SP_RF_RESTORE,		/* for= ran out, or how=restore */
};

/* Two faults on one path at once are refused (restoring one would undo
 * the other): -EINVAL with err naming both. A fault with no for= lasts
 * to the end of the case. */
int sp_run_faults_check(const struct sp_fault *f, size_t n, char *err,
			size_t errlen);

void sp_run_faults_reset(struct sp_run_fault_clock *c, size_t n);

/* The earliest action due at t_ns (since fio started) and which fault
 * (*i), its clock moved on as if it was done; SP_RF_NONE when none is.
 * *next_ns: when the next one falls due (INT64_MAX: never). */
enum sp_run_fault_act sp_run_faults_next(const struct sp_fault *f,
					 struct sp_run_fault_clock *c,
					 size_t n, int64_t t_ns, size_t *i,
					 int64_t *next_ns);

#endif
