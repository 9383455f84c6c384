/* The lab's lifecycle, over the engines of lab_engine.h: one guest per
 * command (lab run, lab shell: lab_guest.c), a lab that stays up (lab
 * start, stop, status and what the guest runs for them: lab_start.c),
 * and host commands forwarded into the running lab (lab_forward.c).
 * Each returns an sp_exit code and says why through the log hook; the
 * CLI only parses options and prints what status reports. */
#ifndef SP_LAB_LIFE_H
#define SP_LAB_LIFE_H

#include <stdint.h>

#include "lab/lab_ctl.h"
#include "lab/lab_engine.h"

/* lab run's --mem when none is given: the guest's tmpfs overlay holds
 * every write */
#define SP_LAB_MEM_DEFAULT "2G"

/* What lab run, shell and start were asked for. */
struct sp_lab_guest_opts {
	struct sp_lab_ask ask;
	uint64_t mem;
	int64_t timeout;	/* s; 0 none; < 0 not given (start: 900) */
	const char *keep;	/* --keep's folder, or NULL */
};

/* lab run (SP_LAB_RUN: cmd in a guest of its own, its exit status) or
 * lab shell (SP_LAB_SHELL). */
int sp_lab_guest(const struct sp_lab_engines *e, enum sp_lab_mode mode,
		 const struct sp_lab_guest_opts *o, char **cmd);

/* lab run of cmd as a process of its own (its own process group, its
 * stdout and stderr into log, stopped when we die): guests side by side
 * (run --jobs, reproduce --jobs). proc's exit status is lab run's exit
 * code. 0 or -errno. */
struct sp_proc;
int sp_lab_guest_spawn(const struct sp_lab_engines *e,
		       const struct sp_lab_guest_opts *o, char **cmd,
		       const char *log, struct sp_proc *proc);

/* The job.sh and config the guest's init reads from xchg: run cmd in
 * cwd (keep: the host folder the guest writes to, or NULL). 0 or
 * -errno. */
int sp_lab_write_guest_job(const struct sp_lab_paths *lp, const char *xchg,
			   const struct sp_lab_vm *vm, const char *cwd,
			   char **cmd, const char *keep);

/* The logs folder in the lab folder lab made and pruned, and in it this
 * guest's console log (and, unless NULL, its agent's) named by the time
 * and our pid. */
void sp_lab_log_names(const char *lab, char *console, char *agent_log, size_t len);

/* lab start: a lab that stays up, on the engine sp_lab_setup picks
 * (qemu serves its socket; a uml guest is served by lab_umlsup.h). */
int sp_lab_start(const struct sp_lab_engines *e, const struct sp_lab_guest_opts *o);
/* lab stop fetches what the lab kept (sp_lab_fetch_kept) before it
 * stops the VM; what it could not fetch is said lost, exit 3. */
int sp_lab_stop(void);

/* lab fetch [--out DIR]: the results the agent kept of commands whose
 * host went away, into DIR (missing or empty) or a new
 * results/lab-kept-<UTC time>/. An exit code: 3 when a file could not
 * be written (the result stays in the lab), 2 no lab. */
int sp_lab_fetch(const char *out);
/* The same for a lab known up; who names the command in what it says,
 * say_none: say so when nothing is kept. */
int sp_lab_fetch_kept(const struct sp_lab_run *r, const char *out,
		      const char *who, int say_none);

struct sp_lab_status {
	int up;			/* 0: none runs */
	struct sp_lab_info info;
	double cpu_share;	/* % of one host CPU since start; < 0 unknown */
};
/* What lab status reports before it asks the guest: SP_EXIT_OK with st
 * filled, or an exit code (a dead lab is said and removed). */
int sp_lab_status_probe(struct sp_lab_status *st);
/* The guest's half of lab status (lab guest-info, run in the lab). */
int sp_lab_status_guest(void);

/* lab agent: in the guest, serves the control port; never returns 0. */
int sp_lab_agent(void);

struct sp_lab_guest_facts {
	char kernel[128];	/* "" when unknown */
	double cpu_busy;	/* % over 1 s; < 0 unknown */
	char load[32];		/* the 1-minute load average, or "" */
};
/* lab guest-info, in the guest: what lab status shows of it (the
 * topology that is up is the bring-up's to say, not the lab's). */
void sp_lab_guest_facts(struct sp_lab_guest_facts *f);

/* 0, or -EPERM after one line naming who and why: the run folder fails
 * the output-folder rules (sp_lab_run_check); callers exit 2. */
int sp_lab_run_trusted(const struct sp_lab_run *r, const char *who);
/* One line saying the lab died (what the console said last, where its
 * log is), then removes what it left. */
void sp_lab_report_dead(const struct sp_lab_run *r, const struct sp_lab_info *info);
/* The same, for lab start and stop, which hold the run folder's lock. */
void sp_lab_report_dead_locked(const struct sp_lab_run *r,
			       const struct sp_lab_info *info);
/* 1 when $SLOWPATH_LAB_ENV is unset or a good list; 0, said. */
int sp_lab_env_ok(void);

/* Runs argv (argv[0] a program the guest sees at that path) in the
 * running lab from the current directory; new files under the sync
 * folders come back. An exit code (3 when the lab died under it). */
int sp_lab_forward_run(char **argv, char *const *sync);

/* What forwarding asks of the command line. */
struct sp_lab_forward_ops {
	/* 1 when this host has the kernel stack (doctor --native) */
	int (*native_ok)(void);
	/* runs the command only to check its arguments (no lab, no kernel
	 * stack): its exit code; NULL: none checks */
	int (*check_args)(int argc, char **argv);
	/* 1 when the command, given no --jobs, boots exact-time guests of
	 * its own (run --topology, reproduce of the 2020 tables: --jobs
	 * defaults to the number of cores there), so with no lab started
	 * it runs here; NULL: none does */
	int (*boots_own)(int argc, char **argv);
};
/* Before a command runs: when it needs the kernel stack, this host
 * lacks it and we are not the guest, runs it in the running lab (or
 * says how to start one). 1 with *code when it dealt with the command,
 * 0 when it should run here. argv[0] is the command's name. */
int sp_lab_forward(int argc, char **argv, const struct sp_lab_forward_ops *ops,
		   int *code);

#endif
