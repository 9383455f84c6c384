/* lab run and lab shell (lab_life.h): one guest of the chosen engine
 * boots for one command (or a root shell) in the same working
 * directory, its stdout and stderr streamed, its exit status ours. */
#include "lab/lab_life.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/proc.h"
#include "lab/lab_layout.h"
#include "lab/lab_proc.h"
#include "lab/lab_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* One guest's files and pipes, so that a failure anywhere ends it all. */
struct guest {
	const struct sp_lab_engine_ops *ops;
	struct sp_lab_paths lp;
	struct sp_lab_vm vm;
	struct sp_lab_sandbox sb;
	char xchg[PATH_MAX + 32], log[PATH_MAX + 96], keep[PATH_MAX];
	int out_p[2], err_p[2];
	pid_t pid;
};

/* Turns what the guest left in the exchange share into our exit code. */
static int guest_verdict(const char *xchg, const char *log, const char *engine,
			 int vm_status)
{
	char *error = sp_lab_read_small(xchg, "error");
	char *status = sp_lab_read_small(xchg, "status");
	int code, ret;

	if (error) {
		sp_err("lab: %s (console log: %s)", error, log);
		ret = SP_EXIT_RUNTIME;
	} else if (status && !sp_lab_parse_status(status, &code)) {
		ret = code;
	} else {
		sp_err("lab: the VM stopped without the command's exit status "
		       "(%s %s %d; console log: %s)", engine,
		       WIFEXITED(vm_status) ? "exit" : "signal",
		       WIFEXITED(vm_status) ? WEXITSTATUS(vm_status) :
					      WTERMSIG(vm_status), log);
		ret = SP_EXIT_RUNTIME;
	}
	free(error);
	free(status);
	return ret;
}

/* --keep DIR: created on the host, then named absolutely, since the
 * guest mounts it at the same path. */
static int resolve_keep(const char *dir, char *abs, size_t len)
{
	char path[PATH_MAX], err[SP_OUTDIR_ERRLEN];
	size_t n = strlen(dir);
	int ret;

	if (n == 0 || n >= sizeof(path)) {
		sp_err("lab: bad --keep '%s'", dir);
		return -EINVAL;
	}
	memcpy(path, dir, n + 1);
	/* the guest's root writes results into it */
	ret = sp_outdir_check(path, SP_OUTDIR_CREATE, err, sizeof(err));
	if (ret) {
		sp_err("lab: --keep %s", err);
		return ret;
	}
	if (!realpath(path, abs) || strlen(abs) >= len) {
		sp_err("lab: --keep %s: %s", dir, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

static int prepare_xchg(const struct sp_lab_paths *lp, const struct sp_lab_vm *vm,
			char **cmd, const char *keep, char *xchg, size_t len)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	sp_lab_file(xchg, len, lp->lab, SP_LAB_XCHG);
	/* no listing, but a uml guest (nobody) must reach its own folder */
	mkdir(xchg, 0711);
	chmod(xchg, 0711);
	sp_lab_prune_dead_xchg(xchg);
	snprintf(xchg, len, "%s/" SP_LAB_XCHG "/%d-XXXXXX", lp->lab, (int)getpid());
	if (!mkdtemp(xchg))
		return -errno;
	return sp_lab_write_guest_job(lp, xchg, vm, cwd, cmd, keep);
}

int sp_lab_write_guest_job(const struct sp_lab_paths *lp, const char *xchg,
			   const struct sp_lab_vm *vm, const char *cwd,
			   char **cmd, const char *keep)
{
	enum sp_lab_mode mode = vm->mode;
	char *job = NULL, *config = NULL;
	int ret;

	ret = sp_lab_job_script(mode, cwd, cmd, environ,
				getenv("SLOWPATH_LAB_ENV"), &job);
	if (!ret)
		ret = sp_lab_config(mode, lp->root, lp->guest_init, cwd,
				    getenv("TERM"), keep, vm->engine, vm->time,
				    &config);
	if (!ret)
		ret = sp_lab_write_file(xchg, "job.sh", job);
	if (!ret)
		ret = sp_lab_write_file(xchg, "config", config);
	free(job);
	free(config);
	return ret;
}

/* Runs the guest to its end: 0, -ETIMEDOUT, -EINTR or -errno. */
static int wait_guest(enum sp_lab_mode mode, int out_r, int err_r,
		      int64_t timeout, pid_t pid, int *status)
{
	if (mode == SP_LAB_RUN) {
		int ret = sp_lab_relay(out_r, err_r, timeout);

		if (!ret)
			waitpid(pid, status, 0);
		return ret;
	}
	sp_info("lab: root shell in the guest; exit powers it off");
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return 0;
		if (sp_lab_signal() && sp_lab_signal() != SIGINT)
			return -EINTR;
	}
	return 0;
}

static int failure_code(int ret, int64_t timeout, const char *log)
{
	if (ret == -ETIMEDOUT)
		sp_err("lab: the command did not finish within %lld s; killed the VM "
		       "(console log: %s)", (long long)timeout, log);
	else if (ret == -EINTR)
		sp_err("lab: stopped by signal %d (%s); killed the VM",
		       (int)sp_lab_signal(), strsignal(sp_lab_signal()));
	else
		sp_err("lab: %s; killed the VM", strerror(-ret));
	return SP_EXIT_RUNTIME;
}

void sp_lab_log_names(const char *lab, char *console, char *agent_log, size_t len)
{
	char stamp[32];
	time_t t = time(NULL);

	sp_lab_file(console, len, lab, SP_LAB_LOGS);
	mkdir(console, 0755);
	sp_lab_prune_logs(console);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	snprintf(console, len, "%s/" SP_LAB_LOGS "/%s-%d.log", lab, stamp, (int)getpid());
	if (agent_log)
		snprintf(agent_log, len, "%s/" SP_LAB_LOGS "/%s-%d.agent.log", lab,
			 stamp, (int)getpid());
}

/* --keep resolved, the exchange folder written, the console log named:
 * the guest's files, into g->vm. 0 or an exit code, said. */
static int guest_files(const struct sp_lab_guest_opts *o, char **cmd,
		       struct guest *g)
{
	int ret;

	if (g->vm.mem_bytes < (64ULL << 20)) {
		sp_err("lab: --mem %llu is too small (at least 64M)",
		       (unsigned long long)o->mem);
		return SP_EXIT_USAGE;
	}
	if (o->keep && (resolve_keep(o->keep, g->keep, sizeof(g->keep)) ||
			!g->ops->keep_ok(g->keep)))
		return SP_EXIT_USAGE;
	ret = prepare_xchg(&g->lp, &g->vm, cmd, o->keep ? g->keep : NULL,
			   g->xchg, sizeof(g->xchg));
	if (ret) {
		sp_err("lab: cannot write the job into %s: %s", g->xchg, strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	sp_lab_log_names(g->lp.lab, g->log, NULL, sizeof(g->log));
	g->vm.xchg_dir = g->xchg;
	g->vm.keep_dir = o->keep ? g->keep : NULL;
	g->vm.console_log = g->log;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The guest started, run to its end and judged: an exit code. */
static int boot_and_wait(struct guest *g, int64_t timeout)
{
	enum sp_lab_mode mode = g->vm.mode;
	int ret, status = 0;

	if (mode == SP_LAB_RUN && (pipe2(g->out_p, O_CLOEXEC) || pipe2(g->err_p, O_CLOEXEC))) {
		sp_err("lab: pipe: %s", strerror(errno));
		return SP_EXIT_RUNTIME;
	}
	sp_lab_install_handlers(mode == SP_LAB_SHELL);
	sp_debug("lab: %s engine, %s time, %s, %lld vCPUs, console log %s",
		 sp_lab_engine_name(g->vm.engine), sp_lab_time_name(g->vm.time),
		 g->lp.dir, (long long)g->vm.cpus, g->log);
	ret = g->ops->spawn(&g->vm, g->out_p[1], g->err_p[1], &g->sb, &g->pid);
	if (ret) {
		sp_err("lab: cannot start the %s guest: %s",
		       sp_lab_engine_name(g->vm.engine), strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	close_fd(&g->out_p[1]);
	close_fd(&g->err_p[1]);
	ret = wait_guest(mode, g->out_p[0], g->err_p[0], timeout, g->pid, &status);
	if (ret)
		return failure_code(ret, timeout, g->log);
	g->pid = -1;
	return g->ops->after(&g->vm, guest_verdict(g->xchg, g->log,
						     sp_lab_engine_name(g->vm.engine), status));
}

int sp_lab_guest(const struct sp_lab_engines *e, enum sp_lab_mode mode,
		 const struct sp_lab_guest_opts *o, char **cmd)
{
	struct guest g = { .out_p = { -1, -1 }, .err_p = { -1, -1 }, .pid = -1,
			   .vm = { .mode = mode, .mem_bytes = o->mem,
				   .out_fd = 3, .err_fd = 4 } };
	int64_t timeout = o->timeout < 0 ? 0 : o->timeout;	/* never */
	int code;

	code = sp_lab_setup(e, &o->ask, &g.vm, &g.lp);
	g.ops = sp_lab_engine_ops(e, g.vm.engine);
	if (!code)
		code = guest_files(o, cmd, &g);
	if (!code)
		code = boot_and_wait(&g, timeout);
	if (g.pid > 0)
		sp_lab_kill_vm(g.pid);
	close_fd(&g.out_p[0]);
	close_fd(&g.out_p[1]);
	close_fd(&g.err_p[0]);
	close_fd(&g.err_p[1]);
	if (g.xchg[0] && strstr(g.xchg, "/run/") && !strstr(g.xchg, "XXXXXX"))
		sp_lab_remove_tree(g.xchg);
	return code;
}

/* What the forked child of sp_lab_guest_spawn runs. */
struct guest_job {
	const struct sp_lab_engines *e;
	const struct sp_lab_guest_opts *o;
	char **cmd;
};

static int guest_job_run(void *arg)
{
	const struct guest_job *j = arg;

	return sp_lab_guest(j->e, SP_LAB_RUN, j->o, j->cmd);
}

int sp_lab_guest_spawn(const struct sp_lab_engines *e,
		       const struct sp_lab_guest_opts *o, char **cmd,
		       const char *log, struct sp_proc *proc)
{
	/* the child's copy of j is its own: ours may go when we return */
	struct guest_job j = { e, o, cmd };
	struct sp_proc_opts po = {
		.flags = SP_PROC_STDIN_NULL | SP_PROC_PDEATHSIG | SP_PROC_PGROUP |
			 SP_PROC_DEFAULT_SIGNALS,
		.logfile = log,
	};

	sp_proc_init(proc);
	return sp_proc_fork(proc, guest_job_run, &j, &po);
}
