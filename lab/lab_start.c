/* lab start, stop and the agent the guest runs for them, lab_life.h
 * (status and guest-info: lab_status.c): a lab that stays up, its control
 * socket and pid file under /run/slowpath/lab (lab_ctl.h): a qemu VM
 * serving the socket itself, or a uml guest under the supervisor of
 * lab_umlsup.h, which serves it. */
#include "lab/lab_life.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/proc.h"
#include "lab/lab_agent.h"
#include "lab/lab_ctl.h"
#include "lab/lab_layout.h"
#include "lab/lab_proc.h"
#include "lab/lab_sandbox.h"
#include "lab/lab_uml.h"
#include "lab/lab_umlsup.h"
#include "lab/lab_vm.h"

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

static volatile sig_atomic_t start_signal;

static void on_start_signal(int sig)
{
	start_signal = sig;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int mkdir_p(const char *dir, mode_t mode)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(path, mode) && errno != EEXIST ? -errno : 0;
}

static void self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

/* The job and config the guest's init reads: run `slowpath lab agent`. */
static int write_guest_job(const struct sp_lab_paths *lp, const char *xchg,
			   const struct sp_lab_vm *vm)
{
	char exe[PATH_MAX];
	char *argv[] = { exe, "lab", "agent", NULL };

	self_exe(exe, sizeof(exe));
	return sp_lab_write_guest_job(lp, xchg, vm, "/", argv, NULL);
}

static int probe_signal(void *ctx)
{
	int64_t deadline = *(int64_t *)ctx;

	if (start_signal || now_ms() > deadline)
		return -1;
	return 0;
}

static int drop_stream(void *ctx, int which, const void *p, size_t n)
{
	(void)ctx; (void)which; (void)p; (void)n;
	return 0;
}

static int drop_file(void *ctx, unsigned int root, uint32_t mode,
		     const char *rel)
{
	(void)ctx; (void)root; (void)mode; (void)rel;
	return 0;
}

static int drop_data(void *ctx, const void *p, size_t n)
{
	(void)ctx; (void)p; (void)n;
	return 0;
}

/* The agent answered `true`: the guest is up and serving. -ECHILD
 * when qemu ended first (reaped, *st its status); deadline 0: none. */
static int wait_ready(const struct sp_lab_run *r, int64_t deadline,
		      pid_t pid, int *st)
{
	char cwd[] = "/";
	char *argv[] = { "true", NULL }, *none[] = { NULL };
	struct sp_lab_req req = { .cwd = cwd, .argv = argv, .env = none,
				  .sync = none };
	struct sp_lab_sink_ops ops = { drop_stream, drop_file, drop_data,
				       probe_signal, &deadline };
	int fd, ret, code = -1;

	if (!deadline)
		deadline = INT64_MAX;
	while (now_ms() < deadline && !start_signal) {
		fd = sp_lab_connect(r->sock);
		if (fd < 0) {
			if (waitpid(pid, st, WNOHANG) == pid)
				return -ECHILD;
			usleep(100000);
			continue;
		}
		ret = sp_lab_session(fd, &req, &ops, &code);
		close(fd);
		if (ret == -ECANCELED)
			return start_signal ? -EINTR : -ETIMEDOUT;
		return ret ? ret : (code == 0 ? 0 : -EIO);
	}
	return start_signal ? -EINTR : -ETIMEDOUT;
}

static void say_dead_start(const char *xchg, const char *log)
{
	char *error = sp_lab_read_small(xchg, "error");

	sp_err("lab start: the VM stopped while booting: %s (console log: %s)",
	       error ? error : "no error from the guest", log);
	free(error);
}

/* vm as sp_lab_setup filled it, made a started lab's. */
static int spawn_vm(struct sp_lab_vm *vm, const struct sp_lab_run *r,
		    const char *console, const char *agent_log, pid_t *pid)
{
	struct sp_strv argv = { 0 };
	struct sp_proc p;
	struct sp_proc_fd fds[2];
	/* its own session, no death signal: it outlives this command */
	struct sp_proc_opts o = {
		.flags = SP_PROC_SESSION | SP_PROC_STDIN_NULL |
			 SP_PROC_CLOSE_FDS,
		.logfile = agent_log, .fds = fds, .n_fds = 2,
	};
	int logfd, ret;

	vm->xchg_dir = r->xchg;
	vm->console_log = console;
	vm->out_fd = 3;
	vm->err_fd = 4;
	vm->ctl_socket = r->sock;
	if (vm->engine == SP_LAB_ENGINE_UML) {
		/* static: the supervisor is forked with it (sp_proc_fork) */
		static struct sp_lab_umlsup sup;

		sup = (struct sp_lab_umlsup){ r, vm, agent_log };
		return sp_lab_umlsup_spawn(&sup, pid);
	}
	if (sp_lab_qemu_ops.argv(vm, &argv))
		return -EINVAL;
	logfd = open(agent_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (logfd < 0) {
		ret = -errno;
		sp_strv_free(&argv);
		return ret;
	}
	fds[0] = (struct sp_proc_fd){ logfd, 3 };
	fds[1] = (struct sp_proc_fd){ logfd, 4 };
	sp_proc_init(&p);
	ret = sp_proc_spawn(&p, (const char *const *)argv.v, &o);
	*pid = ret ? -1 : p.pid;
	close(logfd);
	sp_strv_free(&argv);
	return ret;
}

static int write_state(const struct sp_lab_run *r, const struct sp_lab_info *info)
{
	char text[PATH_MAX + 1024], pid[32];
	int ret;

	snprintf(pid, sizeof(pid), "%ld\n", info->pid);
	ret = sp_lab_info_format(info, text, sizeof(text));
	if (!ret)
		ret = sp_file_write_atomic(r->pidfile, pid, strlen(pid), 0644);
	if (!ret)
		ret = sp_file_write_atomic(r->info, text, strlen(text), 0644);
	return ret;
}

/* The uml guest mounts its exchange folder in the run folder as the
 * host's unprivileged user: the folders above must let others pass.
 * 1, or 0 said. */
static int run_reachable(const struct sp_lab_run *r)
{
	char parent[PATH_MAX], bad[PATH_MAX];

	snprintf(parent, sizeof(parent), "%s", r->dir);
	*strrchr(parent, '/') = '\0';
	if (!*parent || sp_lab_path_public(parent, bad, sizeof(bad)))
		return 1;
	sp_err("lab start: the uml guest reaches its run folder %s as an "
	       "unprivileged user, and %s is not readable by others "
	       "(SLOWPATH_LAB_RUN elsewhere, or --engine qemu)", r->dir, bad);
	return 0;
}

/* A lab already up is fine, a dead one cleared; the engine picked, its
 * prepared lab found and usable here (sp_lab_setup), the run folder
 * made with the agent's job. 0 to boot, 1 when one runs already, or an
 * exit code (as -code), said. */
static int start_prepare(const struct sp_lab_engines *e, struct sp_lab_run *r,
			 const struct sp_lab_guest_opts *o, struct sp_lab_vm *vm,
			 struct sp_lab_paths *lp)
{
	struct sp_lab_info info;
	uint64_t mem = o->mem;
	int ret;

	switch (sp_lab_probe(r, &info)) {
	case SP_LAB_UP:
		sp_info("lab: already running (%s, pid %ld); 'slowpath lab stop' ends it",
			info.engine[0] ? info.engine : "qemu", info.pid);
		return 1;
	case SP_LAB_DEAD:
		sp_lab_report_dead_locked(r, &info);
		break;
	case SP_LAB_NONE:
		break;
	}
	ret = sp_lab_setup(e, &o->ask, vm, lp);
	if (ret)
		return -ret;
	vm->mode = SP_LAB_AGENT;
	vm->mem_bytes = mem;
	if (mem < (64ULL << 20)) {
		sp_err("lab start: --mem %llu is too small (at least 64M)",
		       (unsigned long long)mem);
		return -SP_EXIT_USAGE;
	}
	if (vm->engine == SP_LAB_ENGINE_UML && !run_reachable(r))
		return -SP_EXIT_ENV;
	ret = mkdir_p(r->dir, 0700);
	/* the uml guest's user (nobody) must reach the exchange folder in
	 * it, though not list it or open anything else there */
	if (!ret && vm->engine == SP_LAB_ENGINE_UML && chmod(r->dir, 0711))
		ret = -errno;
	if (!ret && sp_lab_run_trusted(r, "lab start"))
		return -SP_EXIT_ENV;
	if (!ret)
		ret = mkdir(r->xchg, 0700) && errno != EEXIST ? -errno : 0;
	if (!ret)
		ret = write_guest_job(lp, r->xchg, vm);
	if (ret) {
		sp_err("lab start: cannot prepare %s: %s", r->dir, strerror(-ret));
		sp_lab_cleanup(r);
		return -SP_EXIT_RUNTIME;
	}
	return 0;
}

/* The booted lab's record: pid, since when, its size, the kernel its
 * ready file names, its console log. */
static int record_start(const struct sp_lab_run *r, const struct sp_lab_paths *lp,
			pid_t pid, time_t t, const struct sp_lab_vm *vm,
			const char *console)
{
	struct sp_lab_info info;
	char ready[PATH_MAX + 64];

	memset(&info, 0, sizeof(info));
	info.pid = pid;
	info.started = (int64_t)t;
	info.cpus = vm->cpus;
	info.mem = vm->mem_bytes;
	snprintf(info.engine, sizeof(info.engine), "%s", sp_lab_engine_name(vm->engine));
	snprintf(info.time, sizeof(info.time), "%s", sp_lab_time_name(vm->time));
	/* the ready file starts with the kernel version the lab boots */
	sp_lab_file(ready, sizeof(ready), lp->dir, SP_LAB_READY);
	if (!sp_file_read_prefix(ready, info.kver, sizeof(info.kver)))
		info.kver[strcspn(info.kver, " \n")] = '\0';
	snprintf(info.console, sizeof(info.console), "%s", console);
	return write_state(r, &info);
}

/* Why the boot failed, said; the VM killed, its files removed. */
static int start_failed(const struct sp_lab_run *r, int ret, pid_t pid,
			int64_t timeout_s, const char *console)
{
	int st, waited;

	/* the uml supervisor closes the socket as its guest dies: a
	 * moment before it exits */
	for (waited = 0; ret == -EPIPE && waited < 2000; waited += 50) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			ret = -ECHILD;
			break;
		}
		usleep(50000);
	}
	if (ret == -ECHILD || waitpid(pid, &st, WNOHANG) == pid)
		say_dead_start(r->xchg, console);
	else if (ret == -ETIMEDOUT)
		sp_err("lab start: the guest did not answer within %lld s "
		       "(console log: %s)", (long long)timeout_s, console);
	else if (ret == -EINTR)
		sp_err("lab start: stopped by signal %d; guest killed", (int)start_signal);
	else
		sp_err("lab start: %s (console log: %s)", strerror(-ret), console);
	sp_lab_kill_vm(pid);
	sp_lab_cleanup(r);
	return SP_EXIT_RUNTIME;
}

static int start_locked(const struct sp_lab_engines *e, const struct sp_lab_run *run,
			const struct sp_lab_guest_opts *o, int64_t timeout_s)
{
	static struct sp_lab_run r;	/* the uml supervisor is forked with it */
	struct sp_lab_vm vm = { .mode = SP_LAB_AGENT };
	struct sp_lab_paths lp;
	struct sigaction sa = { .sa_handler = on_start_signal };
	char console[PATH_MAX + 96], agent_log[PATH_MAX + 96];
	int64_t t0 = now_ms();
	time_t t = time(NULL);
	pid_t pid = -1;
	int ret, st;

	r = *run;
	ret = start_prepare(e, &r, o, &vm, &lp);
	if (ret)
		return ret > 0 ? SP_EXIT_OK : -ret;
	sp_lab_log_names(lp.lab, console, agent_log, sizeof(console));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = spawn_vm(&vm, &r, console, agent_log, &pid);
	if (ret) {
		sp_err("lab start: cannot start %s: %s", vm.engine == SP_LAB_ENGINE_UML ?
		       "the uml supervisor" : SP_LAB_QEMU, strerror(-ret));
		sp_lab_cleanup(&r);
		return SP_EXIT_RUNTIME;
	}
	if (record_start(&r, &lp, pid, t, &vm, console)) {
		sp_err("lab start: cannot write %s", r.info);
		ret = -EIO;
	} else {
		sp_info("lab: booting (%s, %s time, pid %d, %lld vCPUs, %llu MiB; console log %s)",
			sp_lab_engine_name(vm.engine), sp_lab_time_name(vm.time),
			(int)pid, (long long)vm.cpus,
			(unsigned long long)(vm.mem_bytes >> 20), console);
		ret = wait_ready(&r, timeout_s ? t0 + timeout_s * 1000 : 0, pid, &st);
	}
	if (ret)
		return start_failed(&r, ret, pid, timeout_s, console);
	sp_info("lab: up in %.1f s; up, run, status, down... now run in it; "
		"'slowpath lab stop' ends it", (double)(now_ms() - t0) / 1000.0);
	return SP_EXIT_OK;
}

/* The run folder's parent, made, and its lock taken: fd or -errno. */
static int lock_run(const struct sp_lab_run *r, const char *what)
{
	char parent[PATH_MAX];
	int busy, fd, ret;

	snprintf(parent, sizeof(parent), "%s", r->dir);
	*strrchr(parent, '/') = '\0';
	ret = *parent ? mkdir_p(parent, 0755) : 0;
	fd = ret ? ret : sp_lab_lock(r, 1, &busy);
	if (fd < 0)
		sp_err("lab %s: cannot lock %s: %s", what, r->lock,
		       fd == -EPERM ? "not a regular file of root's" : strerror(-fd));
	return fd;
}

/* One start or stop at a time on a run folder: a second start waits for
 * the first and then finds its lab running (exit 0, "already running"). */
int sp_lab_start(const struct sp_lab_engines *e, const struct sp_lab_guest_opts *o)
{
	struct sp_lab_run r;
	int lock, code;

	if (sp_lab_run_paths(&r)) {
		sp_err("lab start: SLOWPATH_LAB_RUN must be an absolute path of at most 80 bytes");
		return SP_EXIT_USAGE;
	}
	if (sp_lab_run_trusted(&r, "lab start"))
		return SP_EXIT_ENV;
	if (geteuid() != 0) {
		sp_err("lab start: needs root: the guest reads this host's / (qemu "
		       "shares it; uml is confined in a mount namespace)");
		return SP_EXIT_ENV;
	}
	lock = lock_run(&r, "start");
	if (lock < 0)
		return SP_EXIT_RUNTIME;
	code = start_locked(e, &r, o, o->timeout < 0 ? 900 : o->timeout);
	close(lock);
	return code;
}

static int stop_locked(const struct sp_lab_run *run);

int sp_lab_stop(void)
{
	struct sp_lab_run r;
	int lock, code;

	if (sp_lab_run_paths(&r)) {
		sp_err("lab stop: SLOWPATH_LAB_RUN must be an absolute path");
		return SP_EXIT_USAGE;
	}
	if (sp_lab_run_trusted(&r, "lab stop"))
		return SP_EXIT_ENV;
	lock = lock_run(&r, "stop");
	if (lock < 0)
		return SP_EXIT_RUNTIME;
	code = stop_locked(&r);
	close(lock);
	return code;
}

static int stop_locked(const struct sp_lab_run *run)
{
	struct sp_lab_run r;
	struct sp_lab_info info;
	enum sp_lab_life life;
	int64_t up;
	int fetched = SP_EXIT_OK;

	r = *run;
	life = sp_lab_probe(&r, &info);
	if (life == SP_LAB_NONE) {
		sp_info("lab: none is running");
		return SP_EXIT_OK;
	}
	if (life == SP_LAB_DEAD) {
		sp_lab_report_dead_locked(&r, &info);
		return SP_EXIT_OK;
	}
	/* what an interrupted command left dies with the guest's RAM */
	if (sp_lab_pid_is_ours(info.pid, r.sock) &&
	    sp_lab_fetch_kept(&r, NULL, "lab stop", 0)) {
		sp_err("lab stop: what could not be fetched is lost with the VM");
		fetched = SP_EXIT_RUNTIME;
	}
	if (sp_lab_stop_qemu(info.pid, r.sock, 5000) == -ESRCH) {
		/* its socket answers: removing the files would orphan it */
		sp_err("lab stop: %s answers, but pid %ld is not the %s "
		       "serving it; nothing stopped or removed", r.sock, info.pid,
		       info.engine[0] ? info.engine : "qemu");
		return SP_EXIT_RUNTIME;
	}
	sp_lab_cleanup(&r);
	up = (int64_t)time(NULL) - info.started;
	sp_info("lab: stopped (%s, pid %ld, up %lld min %lld s)",
		info.engine[0] ? info.engine : "qemu", info.pid,
		(long long)(up / 60), (long long)(up % 60));
	return fetched;
}


int sp_lab_agent(void)
{
	const char *engine = getenv("SLOWPATH_LAB_ENGINE");
	char port[64];
	int ret, console;

	if (!getenv("SLOWPATH_IN_LAB")) {
		sp_err("lab agent: runs only in the lab guest (lab start starts it)");
		return SP_EXIT_USAGE;
	}
	/* uml: the control line is a console, relayed by the supervisor */
	console = engine && !strcmp(engine, "uml");
	if (console)
		snprintf(port, sizeof(port), "%s", SP_LAB_UML_CTL_TTY);
	else if (sp_lab_find_port(SP_LAB_PORT_CTL, port, sizeof(port))) {
		sp_err("lab agent: no virtio-serial port %s", SP_LAB_PORT_CTL);
		return SP_EXIT_ENV;
	}
	sp_info("lab agent: serving %s", port);
	ret = sp_lab_agent_serve(port, console);
	sp_err("lab agent: %s: %s", port, strerror(-ret));
	return SP_EXIT_RUNTIME;
}
