/* What the lab's CLI files share: the prepared lab's paths (lab_cmd.c),
 * the running lab's actions (lab_start_cmd.c), forwarding a command into
 * it (lab_forward.c) and the native check doctor makes (doctor_cmd.c). */
#ifndef SP_LAB_CLI_H
#define SP_LAB_CLI_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lab/lab_vm.h"

#define SP_LAB_QEMU "qemu-system-x86_64"

/* Paths of one prepared lab, all absolute. */
struct lab_paths {
	char lab[PATH_MAX + 8];	/* $BUILD/lab */
	char dir[PATH_MAX];	/* $BUILD/lab/<kernel version> */
	char kernel[PATH_MAX + 16];
	char initrd[PATH_MAX + 16];
	char root[PATH_MAX + 16];
	char guest_init[PATH_MAX + 16];
	char uml_init[PATH_MAX + 16];	/* uml: its init; kernel is its linux */
	char qemu[PATH_MAX];
	enum sp_lab_engine engine;
};

struct sp_lab_vm;
/* The prepared lab ($SLOWPATH_LAB_DIR or next to this binary) of
 * vm->kernel_series (NULL: the default); prints what is missing. 0,
 * -ENOENT, or -EINVAL for a series that is none. */
int lab_find(struct lab_paths *lp, const struct sp_lab_vm *vm);
/* The engine a lab command uses: name (--engine), else
 * $SLOWPATH_LAB_ENGINE, else uml where make lab prepared it for the
 * series, else qemu. 0, or -EINVAL for a name that is neither. */
int lab_pick_engine(const char *name, const char *series,
		    enum sp_lab_engine *out);
/* Its clock: name (--time), else exact on uml, real on qemu. 0, or
 * -EINVAL (a bad name, or exact time on qemu), said. */
int lab_pick_time(const char *name, enum sp_lab_engine engine,
		  enum sp_lab_time *out);
int lab_find_program(const char *name, char *out, size_t len);

/* lab_engine.c: the engines' side of lab_cmd.c. */
struct sp_lab_sandbox;
/* $SLOWPATH_LAB_DIR, else lab/ next to this binary, into lab. */
void lab_dir_path(char *lab, size_t len);
/* lp->lab set: the prepared uml tree of series (NULL: the default). */
int lab_find_uml(struct lab_paths *lp, const char *series);
/* 1 when the uml guest's user can read lab_dir and the working
 * directory; 0, said when say. */
int lab_uml_can_read(const char *lab_dir, int say);
/* 1 when --keep's folder is reachable by that user; 0, said. */
int lab_keep_reachable(const char *keep);
/* The guest of vm->engine, out_w and err_w its job's streams; sb is
 * filled for uml. 0 or -errno. */
int lab_spawn_guest(const struct sp_lab_vm *vm, int out_w, int err_w,
		    struct sp_lab_sandbox *sb, pid_t *pid);
/* After a uml guest: XCHG/keep into keep; code, or SP_EXIT_RUNTIME when
 * a file was lost. */
int lab_copy_kept(const char *xchg, const char *keep, int code);
/* slowpath lab engine [--kernel SERIES] */
int lab_print_engine(int argc, char **argv);
/* The job.sh and config the guest's init reads from xchg: run cmd in
 * cwd (keep: the host folder the guest writes to, or NULL). */
int lab_write_guest_job(const struct lab_paths *lp, const char *xchg,
			const struct sp_lab_vm *vm, const char *cwd, char **cmd,
			const char *keep);

/* slowpath lab start|stop|status|agent|guest-info */
int lab_start(int64_t cpus, uint64_t mem, int64_t timeout_s,
	      const char *kernel_series);
int lab_stop(void);
int lab_status(int quiet);
int lab_agent(void);
int lab_guest_info(void);

/* Called by main() before a command runs: when the command needs the
 * kernel stack, this host lacks it and we are not the guest, runs it in
 * the running lab (or says how to start one). 1 with *code when it
 * dealt with the command, 0 when it should run here. argv[0] is the
 * command's name. */
int sp_cli_lab_forward(int argc, char **argv, int (*run)(int, char **),
		       int *code);

/* Set while a command runs only to check its arguments (no lab, no
 * kernel stack: bad input must still be exit 1, not "start a lab"):
 * the commands the forwarding table marks args_checked return
 * SP_EXIT_OK right after parsing when it is set. */
extern int sp_cli_args_only;

/* Runs argv (argv[0] is a command of ours) in the running lab from the
 * current directory; new files under the sync folders come back. An
 * exit code (3 when the lab died under it). */
int lab_forward_run(char **argv, char *const *sync);
/* 1 when $SLOWPATH_LAB_ENV is unset or a good list; 0, said. */
int lab_env_ok(void);

struct sp_lab_run;
struct sp_lab_info;
/* One line saying the lab died (what the console said last, where its
 * log is), then removes what it left. */
void lab_report_dead(const struct sp_lab_run *r, const struct sp_lab_info *info);
/* The same, for lab start and stop, which hold the run folder's lock
 * (lab_report_dead takes it, and removes nothing while a start or stop
 * holds it). */
void lab_report_dead_locked(const struct sp_lab_run *r,
			    const struct sp_lab_info *info);
/* 0, or -EPERM after one line naming who and why: the run folder fails
 * the output-folder rules (sp_lab_run_check); callers exit 2. */
int lab_run_trusted(const struct sp_lab_run *r, const char *who);

/* 1 when `slowpath doctor --native` would say yes. */
int sp_cli_native_ok(void);

#endif
