/* Effects of `slowpath lab` (see lab_proc.c); only lab_cmd.c uses them. */
#ifndef SP_LAB_PROC_H
#define SP_LAB_PROC_H

#include "lab/lab_vm.h"

#include <dirent.h>
#include <stdint.h>
#include <sys/types.h>

/* Console logs kept in $BUILD/lab/logs; older ones are removed. */
#define SP_LAB_KEEP_LOGS 30

int sp_lab_write_file(const char *dir, const char *name, const char *text);
/* A small file the guest left (trailing newlines cut); NULL if none,
 * or if it is over SP_LAB_SMALL_MAX (no guest file comes near). */
#define SP_LAB_SMALL_MAX (1u << 20)
char *sp_lab_read_small(const char *dir, const char *name);
void sp_lab_remove_tree(const char *path);
void sp_lab_prune_logs(const char *logdir);
/* Removes exchange dirs <pid>-XXXXXX whose slowpath no longer runs. */
void sp_lab_prune_dead_xchg(const char *rundir);

/* SIGINT/SIGTERM/SIGHUP set a flag that sp_lab_relay and the shell's
 * wait loop check; SIGPIPE is ignored. In a shell, SIGQUIT too: the
 * terminal belongs to the guest. */
void sp_lab_install_handlers(int shell);
int sp_lab_signal(void);

/* Starts qemu: 0, or -errno when it cannot (-ENOENT: no such file); it
 * gets SIGTERM if we die. In SP_LAB_RUN it has its own process group,
 * its stdin is /dev/null and out_w, err_w become its fds 3 and 4 (the
 * chardevs of sp_lab_qemu_argv). */
int sp_lab_start_qemu(const struct sp_strv *argv, int out_w, int err_w,
		      enum sp_lab_mode mode, pid_t *pid);
/* Starts the uml guest, confined by sb (lab_sandbox.h): as
 * sp_lab_start_qemu, with out_w and err_w as its fds 3 and 4 (UML's
 * consoles 1 and 2, sp_lab_uml_argv), in SP_LAB_AGENT ctl_fd as its
 * control line's fds (SP_LAB_UML_CTL_*_FD) and, but in a shell, the
 * kernel's console (its stdout and stderr) into console_log. */
struct sp_lab_sandbox;
int sp_lab_start_uml(const struct sp_strv *argv, int out_w, int err_w,
		     int ctl_fd, enum sp_lab_mode mode, const char *console_log,
		     struct sp_lab_sandbox *sb, pid_t *pid);
/* SIGTERM (to its group, when it leads one), then SIGKILL after 3 s;
 * reaps it. */
void sp_lab_kill_vm(pid_t pid);

/* What the lab reads of a host process's /proc/PID/stat. */
struct sp_lab_pstat {
	char state;
	long ppid, pgrp;
	unsigned long long ticks;	/* utime + stime */
};
/* pid's, its name (which may hold spaces and ')') skipped: 0, or -1
 * when it is gone or the file is not what the kernel writes. */
int sp_lab_pstat(long pid, struct sp_lab_pstat *ps);
/* The next process id in an opendir("/proc"), 0 at the end. */
long sp_lab_next_pid(DIR *proc);
/* Copies the guest's stdout/stderr to ours until qemu closes them.
 * 0, -ETIMEDOUT (timeout_s passed; 0 = never) or -EINTR (signal). */
int sp_lab_relay(int out_r, int err_r, int64_t timeout_s);

#endif
