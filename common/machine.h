/* What machine this process runs on, as the lab told it (lab/guest-init.sh
 * exports SLOWPATH_IN_LAB, SLOWPATH_LAB_ENGINE and SLOWPATH_LAB_TIME):
 * natively, in qemu under TCG, or in User-Mode Linux on exact time. One
 * reader of those variables, so every part asks the same question. */
#ifndef SP_MACHINE_H
#define SP_MACHINE_H

/* 1 in any lab guest. */
int sp_machine_in_lab(void);
/* "native", "qemu" or "uml" (a guest that names no engine is qemu's). */
const char *sp_machine_engine(void);
/* 1 on simulated time (uml, time-travel=inf-cpu): a delay is exact, the
 * testbed's own CPU work takes no time, and the clock stands still
 * while a process spins, so nothing may busy-wait on it. */
int sp_machine_exact_time(void);
/* "real" or "exact". */
const char *sp_machine_time(void);
/* 1 where the emulator's cost shapes what is measured (qemu's lab): the
 * lab unit, the per-case default runtime and the saturation guard
 * apply there and only there. */
int sp_machine_emulated_cost(void);

#endif
