/* lab start on the uml engine: a supervisor process of ours owns the
 * User-Mode Linux guest (started confined as lab run starts it,
 * lab_engine_uml.c) and serves the lab's control socket as qemu's
 * chardev does on the other engine. It relays each host's frames to
 * the agent over UML's console 3 (SP_LAB_UML_CTL_*), says with a GONE
 * frame when a host went away (a console line never hangs up), and
 * while no host is served it stops the guest's own host processes
 * (SIGSTOP): on exact time an idle guest's clock would race from timer
 * to timer at a full host CPU, stopped it neither runs nor ages. */
#ifndef SP_LAB_UMLSUP_H
#define SP_LAB_UMLSUP_H

#include "lab/lab_ctl.h"
#include "lab/lab_vm.h"

#include <sys/types.h>

/* The supervisor's name (/proc/PID/comm); its working directory is
 * the run folder: the two say that a pid is the one serving a socket. */
#define SP_LAB_UMLSUP_COMM "sp-lab-uml"

struct sp_lab_umlsup {
	const struct sp_lab_run *run;
	/* mode SP_LAB_AGENT, engine uml, filled as sp_lab_setup does,
	 * xchg_dir the run's, console_log the kernel's log */
	const struct sp_lab_vm *vm;
	const char *agent_log;	/* its own and the agent's output */
};

/* Forks the supervisor: its own session, stdin /dev/null, stdout and
 * stderr into agent_log, no death signal (it outlives lab start). It
 * listens on run->sock before it boots the guest. 0 with *pid, or
 * -errno. */
int sp_lab_umlsup_spawn(const struct sp_lab_umlsup *s, pid_t *pid);

/* 1 when pid is a supervisor serving the socket sock. */
int sp_lab_umlsup_is(long pid, const char *sock);

/* Kills what is left of a uml guest whose supervisor was killed
 * outright (SIGKILL: its guest may be stopped, and a stopped process
 * keeps its death signal pending): every process whose command line
 * has uml_dir=xchg, and its group. The number found. */
int sp_lab_umlsup_reap(const char *xchg);

/* CPU time (clock ticks, user + system) of the guest's host processes
 * under supervisor pid: 0, or -errno (none found). */
int sp_lab_umlsup_ticks(long pid, unsigned long long *ticks);

#endif
