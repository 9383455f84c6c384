/* The effects behind `slowpath lab`: files in the exchange share and the
 * logs folder, starting and stopping qemu, and relaying the guest's
 * streams. Kept apart from lab_cmd.c, which decides what to do. */
#include "lab/lab_proc.h"
#include "lab/lab_sandbox.h"
#include "lab/lab_uml.h"

#include "common/file.h"
#include "common/log.h"
#include "common/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got_signal;

int sp_lab_signal(void)
{
	return got_signal;
}

static void on_signal(int sig)
{
	got_signal = sig;
}

int sp_lab_write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* Reads a small file the guest left; NULL when it left none. */
char *sp_lab_read_small(const char *dir, const char *name)
{
	char path[PATH_MAX + 64], *buf;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* the guest wrote it: a link to a host file or a FIFO is no answer */
	if (sp_file_read_opt(path, SP_LAB_SMALL_MAX, SP_FILE_NOFOLLOW | SP_FILE_REGULAR,
			     &buf, &n))
		return NULL;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return buf;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

/* Logs are named by start time, so lexical order is age order. */
void sp_lab_remove_tree(const char *path)
{
	nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sp_lab_prune_logs(const char *logdir)
{
	struct sp_strv names = { 0 };
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(logdir);
	size_t i;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".log") && sp_strv_push(&names, de->d_name))
			break;
	closedir(d);
	if (names.n > SP_LAB_KEEP_LOGS) {
		qsort(names.v, names.n, sizeof(char *), cmp_str);
		for (i = 0; i + SP_LAB_KEEP_LOGS < names.n; i++) {
			snprintf(path, sizeof(path), "%s/%s", logdir, names.v[i]);
			unlink(path);
		}
	}
	sp_strv_free(&names);
}

void sp_lab_kill_vm(pid_t pid)
{
	sp_proc_kill_pid(pid, 3000);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Copies the guest's two streams to ours until qemu closes them, the
 * deadline passes or we are signalled. 0, or -ETIMEDOUT / -EINTR. */
int sp_lab_relay(int out_r, int err_r, int64_t timeout_s)
{
	struct pollfd pfd[2] = { { out_r, POLLIN, 0 }, { err_r, POLLIN, 0 } };
	int dest[2] = { STDOUT_FILENO, STDERR_FILENO };
	int64_t deadline = timeout_s ? now_ms() + timeout_s * 1000 : 0;
	int open_fds = 2, wait_ms, i, n;
	char buf[65536];
	ssize_t r;

	while (open_fds) {
		if (got_signal)
			return -EINTR;
		wait_ms = -1;
		if (deadline) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			wait_ms = left > 1000 ? 1000 : (int)left;
		}
		n = poll(pfd, 2, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (i = 0; i < 2; i++) {
			if (!pfd[i].revents)
				continue;
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			/* A reader that went away (| head) must not stop the
			 * guest: keep draining, drop what cannot be written. */
			if (dest[i] >= 0 && sp_write_all(dest[i], buf, (size_t)r))
				dest[i] = -1;
		}
	}
	return 0;
}

void sp_lab_install_handlers(int shell)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;	/* no SA_RESTART: poll must return */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (shell) {
		/* The shell's Ctrl-C belongs to the guest. */
		sa.sa_handler = SIG_IGN;
		sigaction(SIGQUIT, &sa, NULL);
	}
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

int sp_lab_start_qemu(const struct sp_strv *argv, int out_w, int err_w,
		      enum sp_lab_mode mode, pid_t *pid)
{
	/* The fds the chardevs name in sp_lab_qemu_argv. */
	const struct sp_proc_fd fds[] = { { out_w, 3 }, { err_w, 4 } };
	/* If we are killed outright, the VM must not outlive us. */
	struct sp_proc_opts o = { .flags = SP_PROC_PDEATHSIG };
	struct sp_proc p;
	int ret;

	if (mode == SP_LAB_RUN) {
		/* Its own process group: Ctrl-C reaches us, and we tear the
		 * VM down and clean up, rather than qemu dying under us. */
		o.flags |= SP_PROC_PGROUP | SP_PROC_STDIN_NULL |
			   SP_PROC_CLOSE_FDS;
		o.fds = fds;
		o.n_fds = 2;
	}
	sp_proc_init(&p);
	ret = sp_proc_spawn(&p, (const char *const *)argv->v, &o);
	*pid = ret ? -1 : p.pid;
	return ret;
}

int sp_lab_start_uml(const struct sp_strv *argv, int out_w, int err_w,
		     int ctl_fd, enum sp_lab_mode mode, const char *console_log,
		     struct sp_lab_sandbox *sb, pid_t *pid)
{
	const struct sp_proc_fd fds[] = { { out_w, SP_LAB_UML_OUT_FD },
					  { err_w, SP_LAB_UML_ERR_FD },
					  { ctl_fd, SP_LAB_UML_CTL_IN_FD },
					  { ctl_fd, SP_LAB_UML_CTL_OUT_FD } };
	/* UML reads TMPDIR for where to keep its memory file */
	char tmpdir[PATH_MAX + 8];
	const char *env[] = { tmpdir, NULL };
	struct sp_proc_opts o = { .flags = SP_PROC_PDEATHSIG,
				  .child_setup = sp_lab_sandbox_enter,
				  .setup_arg = sb, .env = env };
	struct sp_proc p;
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", sb->mem_dir);
	if (mode != SP_LAB_SHELL) {
		o.flags |= SP_PROC_PGROUP | SP_PROC_STDIN_NULL | SP_PROC_CLOSE_FDS;
		o.logfile = console_log;
	}
	if (mode != SP_LAB_SHELL) {
		o.fds = fds;
		o.n_fds = mode == SP_LAB_AGENT ? 4 : 2;
	}
	sp_proc_init(&p);
	ret = sp_proc_spawn(&p, (const char *const *)argv->v, &o);
	*pid = ret ? -1 : p.pid;
	return ret;
}

/* Exchange dirs are named <pid>-XXXXXX; one whose slowpath is gone was
 * left by a run that was killed outright. */
void sp_lab_prune_dead_xchg(const char *rundir)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(rundir);
	long pid;
	char *end;

	if (!d)
		return;
	while ((de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end != '-' || pid <= 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", rundir, de->d_name);
		sp_lab_remove_tree(path);
	}
	closedir(d);
}

int sp_lab_pstat(long pid, struct sp_lab_pstat *ps)
{
	char path[64], buf[2048], *p;
	unsigned long long ut, st;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (sp_file_read_prefix(path, buf, sizeof(buf)) ||
	    !(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %c %ld %ld %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &ps->state, &ps->ppid, &ps->pgrp, &ut, &st) != 5)
		return -1;
	ps->ticks = ut + st;
	return 0;
}

long sp_lab_next_pid(DIR *proc)
{
	struct dirent *de;
	char *end;
	long pid;

	while ((de = readdir(proc))) {
		pid = strtol(de->d_name, &end, 10);
		if (!*end && pid > 0)
			return pid;
	}
	return 0;
}
