/* The pure half of the uml engine: the command line of a User-Mode
 * Linux guest (lab/uml-build.sh builds it, lab/uml-init.sh is its init).
 * The kernel takes its command line as words split on spaces, and hands
 * unknown KEY=value words to init as its environment, so every path on
 * it must be one plain word; nothing here starts a process. */
#ifndef SP_LAB_UML_H
#define SP_LAB_UML_H

#include "lab/lab_vm.h"

/* The job's stdout and stderr: UML consoles 1 and 2 (/dev/tty1, tty2
 * in the guest) written to these host fds of the UML process. */
#define SP_LAB_UML_OUT_FD 3
#define SP_LAB_UML_ERR_FD 4
/* SP_LAB_AGENT (lab start): the control line, UML console 3 (the
 * guest's /dev/tty3, where the agent serves), read from and written
 * to these host fds of the UML process: its supervisor's socket. */
#define SP_LAB_UML_CTL_IN_FD 5
#define SP_LAB_UML_CTL_OUT_FD 6
#define SP_LAB_UML_CTL_TTY "/dev/tty3"

/* Can s stand on a kernel command line as (part of) one word? Printable
 * ASCII, no space, no quote, not empty. */
int sp_lab_uml_word_ok(const char *s);

/* vm->kernel is the uml binary, vm->lab_dir its prepared tree,
 * vm->uml_init its init, vm->xchg_dir the exchange folder (also UML's
 * own umid folder). SP_LAB_TIME_EXACT boots time-travel=inf-cpu. 0,
 * -EINVAL (a missing field, a path that is no plain word, cpus other
 * than 1: a UML instance is one CPU), -ENOMEM. */
int sp_lab_uml_argv(const struct sp_lab_vm *vm, struct sp_strv *out);

#endif
