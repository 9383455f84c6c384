/* slowpath lab run|shell: boots the lab VM prepared by `make lab` (qemu
 * under TCG, the host's root over 9p) and runs one command in it as root,
 * in the same working directory, streaming its stdout and stderr and
 * returning its exit status; or gives an interactive root shell. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/opttab.h"
#include "harness/cli/commands.h"
#include "harness/cli/lab_cli.h"
#include "lab/lab_layout.h"
#include "lab/lab_proc.h"
#include "lab/lab_sandbox.h"
#include "lab/lab_vm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define QEMU SP_LAB_QEMU

struct lab_opts {
	int64_t cpus;
	uint64_t mem;
	int64_t timeout;
	const char *keep;
	int quiet;
	const char *kernel;
	const char *engine;
	const char *time;
	int help;
};

static const struct sp_opt lab_opttab[] = {
	{ .name = "cpus", .type = SP_OPT_INT,
	  .offset = offsetof(struct lab_opts, cpus), .def = "0",
	  .help = "virtual CPUs (qemu: TCG threads, 0 = 2; uml: 1 only)",
	  .min = 0, .max = 64 },
	{ .name = "mem", .type = SP_OPT_SIZE,
	  .offset = offsetof(struct lab_opts, mem), .def = "2G",
	  .help = "guest memory; its tmpfs overlay holds every write" },
	{ .name = "timeout", .type = SP_OPT_INT,
	  .offset = offsetof(struct lab_opts, timeout), .def = "0",
	  .help = "seconds before the VM is killed (exit 3); 0: never (lab start: for its boot; not given: 900)",
	  .min = 0, .max = 7 * 86400 },
	{ .name = "keep", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, keep),
	  .help = "a host folder (created) the guest writes to at the same path" },
	{ .name = "quiet", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct lab_opts, quiet),
	  .help = "status: print nothing, only the exit status tells" },
	{ .name = "kernel", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, kernel),
	  .help = "kernel series to boot, as prepared by make lab KERNEL= (6.1, 6.12)" },
	{ .name = "engine", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, engine),
	  .help = "uml (exact time, the default where make lab built it) or qemu" },
	{ .name = "time", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, time),
	  .help = "exact (uml's simulated clock, its default) or real" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct lab_opts, help),
	  .help = "show this help" },
	SP_OPT_END,
};

static void usage(FILE *out)
{
	char help[1024];

	sp_opt_help_argv(lab_opttab, help, sizeof(help));
	fprintf(out,
		"usage: slowpath lab run [OPTIONS] -- CMD [ARG...]\n"
		"       slowpath lab shell [OPTIONS]\n"
		"       slowpath lab start [--cpus N] [--mem SIZE] [--timeout S]\n"
		"       slowpath lab stop\n"
		"       slowpath lab status [--quiet]\n"
		"       slowpath lab engine [--kernel SERIES]\n\n"
		"start boots a lab that stays up: while it runs, up, down, status,\n"
		"selector, delay, run, reproduce, netem, fault and doctor --guest\n"
		"run in it when this host lacks the kernel stack, and what they\n"
		"write under --out (or results/) lands on this host. stop ends\n"
		"it; status says since when, its kernel, topology and CPU use\n"
		"(exit 2 when none runs). --timeout bounds start's boot (900 s\n"
		"when not given, 0 no bound; a VM that dies ends it at once).\n\n"
		"Boots the lab VM that `make lab` prepared (qemu, TCG, Debian's\n"
		"kernel, this machine's root read-only over 9p under a RAM overlay)\n"
		"and runs CMD as root in the current directory, or a root shell.\n"
		"Passed to the guest: SLOWPATH_*, BUILD, RESULTS,\n"
		"CMOCKA_MESSAGE_OUTPUT, LANG, LC_ALL, TZ and the names listed in\n"
		"SLOWPATH_LAB_ENV; the guest sets SLOWPATH_IN_LAB=1, PATH, HOME.\n"
		"Exit status: CMD's; 2 lab not prepared or qemu missing; 3 the VM\n"
		"failed or timed out (console logs: build/lab/logs).\n\n"
		"options:\n%s", help);
}

int lab_find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	const char *p, *end;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p)
			continue;
		snprintf(out, len, "%.*s/%s", (int)(end - p), p, name);
		if (!access(out, X_OK))
			return 0;
	}
	return -ENOENT;
}

/* A lab prepared before there were several series has only `current`:
 * it serves --kernel SERIES when its kernel is of that series. */
static int current_of_series(const struct lab_paths *lp, const char *series,
			     char *cur, size_t len)
{
	char ready[PATH_MAX + 48], kver[128] = "";
	FILE *f;

	snprintf(ready, sizeof(ready), "%s/" SP_LAB_LINK_QEMU "/" SP_LAB_READY, lp->lab);
	f = fopen(ready, "re");
	if (!f)
		return -ENOENT;
	if (fscanf(f, "%127s", kver) != 1)
		kver[0] = '\0';
	fclose(f);
	if (!sp_lab_release_in_series(kver, series))
		return -ENOENT;
	return sp_lab_file(cur, len, lp->lab, SP_LAB_LINK_QEMU);
}

/* The lab folder (sp_lab_dir); in it the one prepared for
 * vm->kernel_series. */
int lab_find(struct lab_paths *lp, const struct sp_lab_vm *vm)
{
	char cur[PATH_MAX + 48], link[32];
	const char *need[] = { lp->kernel, lp->initrd, lp->guest_init, lp->root };
	size_t i;

	lab_dir_path(lp->lab, sizeof(lp->lab));
	if (sp_lab_current_link(vm->kernel_series, link, sizeof(link))) {
		sp_err("lab: --kernel '%s' is not a kernel series such as 6.1 or 6.12",
		       vm->kernel_series);
		return -EINVAL;
	}
	lp->engine = vm->engine;
	if (vm->engine == SP_LAB_ENGINE_UML)
		return lab_find_uml(lp, vm->kernel_series);
	sp_lab_file(cur, sizeof(cur), lp->lab, link);
	if (access(cur, F_OK) && vm->kernel_series)
		current_of_series(lp, vm->kernel_series, cur, sizeof(cur));
	if (!realpath(cur, lp->dir)) {
		sp_err("lab: no prepared lab at %s; run make lab%s%s", cur,
		       vm->kernel_series ? " KERNEL=" : "",
		       vm->kernel_series ? vm->kernel_series : "");
		return -ENOENT;
	}
	sp_lab_file(lp->kernel, sizeof(lp->kernel), lp->dir, SP_LAB_QEMU_KERNEL);
	sp_lab_file(lp->initrd, sizeof(lp->initrd), lp->dir, SP_LAB_QEMU_INITRD);
	sp_lab_file(lp->guest_init, sizeof(lp->guest_init), lp->dir, SP_LAB_GUEST_INIT);
	sp_lab_file(lp->root, sizeof(lp->root), lp->dir, SP_LAB_QEMU_ROOT);
	sp_lab_file(cur, sizeof(cur), lp->dir, SP_LAB_READY);
	if (access(cur, R_OK)) {
		sp_err("lab: %s is not fully prepared; run make lab", lp->dir);
		return -ENOENT;
	}
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (access(need[i], R_OK)) {
			sp_err("lab: %s is missing; run make lab", need[i]);
			return -ENOENT;
		}
	}
	return 0;
}

/* Turns what the guest left in the exchange share into our exit code. */
static int guest_verdict(const char *xchg, const char *log, int qemu_status)
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
		       "(qemu %s %d; console log: %s)",
		       WIFEXITED(qemu_status) ? "exit" : "signal",
		       WIFEXITED(qemu_status) ? WEXITSTATUS(qemu_status) :
						WTERMSIG(qemu_status), log);
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

static int prepare_xchg(const struct lab_paths *lp, const struct sp_lab_vm *vm,
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
	return lab_write_guest_job(lp, xchg, vm, cwd, cmd, keep);
}

int lab_write_guest_job(const struct lab_paths *lp, const char *xchg,
			const struct sp_lab_vm *vm, const char *cwd, char **cmd,
			const char *keep)
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

/* Which engine, clock and prepared lab; whether this host can run it.
 * 0, or an exit code, said. */
static int vm_setup(const struct lab_opts *o, struct sp_lab_vm *vm,
		    struct lab_paths *lp)
{
	int ret;

	vm->kernel_series = o->kernel;
	if (lab_pick_engine(o->engine, o->kernel, &vm->engine) ||
	    lab_pick_time(o->time, vm->engine, &vm->time))
		return SP_EXIT_USAGE;
	vm->cpus = o->cpus ? o->cpus : vm->engine == SP_LAB_ENGINE_UML ? 1 : 2;
	if (vm->engine == SP_LAB_ENGINE_UML && vm->cpus != 1) {
		sp_err("lab: a uml guest has one CPU (--cpus 1); run several for more");
		return SP_EXIT_USAGE;
	}
	ret = lab_find(lp, vm);
	if (ret)
		return ret == -EINVAL ? SP_EXIT_USAGE : SP_EXIT_ENV;
	if (vm->engine == SP_LAB_ENGINE_UML && !lab_uml_can_read(lp->dir, 1))
		return SP_EXIT_ENV;
	if (vm->engine == SP_LAB_ENGINE_QEMU &&
	    lab_find_program(QEMU, lp->qemu, sizeof(lp->qemu))) {
		sp_err("lab: %s is not installed (make deps installs qemu-system-x86)", QEMU);
		return SP_EXIT_ENV;
	}
	if (geteuid() != 0) {
		sp_err("lab: needs root: %s", vm->engine == SP_LAB_ENGINE_QEMU ?
		       "qemu shares / into the guest and must read root-only "
		       "files such as /etc/iscsi/initiatorname.iscsi" :
		       "the uml guest is confined in a mount namespace of its own");
		return SP_EXIT_ENV;
	}
	vm->qemu = lp->qemu;
	vm->kernel = lp->kernel;
	vm->initrd = lp->initrd;
	vm->lab_dir = lp->dir;
	vm->uml_init = lp->uml_init;
	return 0;
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

static void console_log_path(const struct lab_paths *lp, char *log, size_t len)
{
	char stamp[32];
	time_t t = time(NULL);

	sp_lab_file(log, len, lp->lab, SP_LAB_LOGS);
	mkdir(log, 0755);
	sp_lab_prune_logs(log);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	snprintf(log, len, "%s/" SP_LAB_LOGS "/%s-%d.log", lp->lab, stamp, (int)getpid());
}

/* --keep resolved, the exchange folder written, the console log named:
 * the guest's files, into vm. 0 or an exit code, said. */
static int vm_files(const struct lab_opts *o, char **cmd, const struct lab_paths *lp,
		    struct sp_lab_vm *vm, char *keep, char *xchg, char *log)
{
	int ret;

	if (vm->mem_bytes < (64ULL << 20)) {
		sp_err("lab: --mem %llu is too small (at least 64M)",
		       (unsigned long long)o->mem);
		return SP_EXIT_USAGE;
	}
	if (o->keep && (resolve_keep(o->keep, keep, PATH_MAX) ||
			(vm->engine == SP_LAB_ENGINE_UML && !lab_keep_reachable(keep))))
		return SP_EXIT_USAGE;
	ret = prepare_xchg(lp, vm, cmd, o->keep ? keep : NULL, xchg, PATH_MAX + 32);
	if (ret) {
		sp_err("lab: cannot write the job into %s: %s", xchg, strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	console_log_path(lp, log, PATH_MAX + 96);
	vm->xchg_dir = xchg;
	vm->keep_dir = o->keep ? keep : NULL;
	vm->console_log = log;
	return 0;
}

static int run_vm(enum sp_lab_mode mode, const struct lab_opts *o,
		  char **cmd)
{
	struct lab_paths lp;
	struct sp_lab_vm vm = { .mode = mode, .mem_bytes = o->mem,
				.out_fd = 3, .err_fd = 4 };
	struct sp_lab_sandbox sb;
	char xchg[PATH_MAX + 32], log[PATH_MAX + 96], keep[PATH_MAX];
	int out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
	int ret, status = 0, code;
	pid_t pid = -1;

	xchg[0] = '\0';
	code = vm_setup(o, &vm, &lp);
	if (!code)
		code = vm_files(o, cmd, &lp, &vm, keep, xchg, log);
	if (code)
		goto out;
	if (mode == SP_LAB_RUN && (pipe2(out_p, O_CLOEXEC) || pipe2(err_p, O_CLOEXEC))) {
		sp_err("lab: pipe: %s", strerror(errno));
		code = SP_EXIT_RUNTIME;
		goto out;
	}
	sp_lab_install_handlers(mode == SP_LAB_SHELL);
	sp_debug("lab: %s engine, %s time, %s, %lld vCPUs, console log %s",
		 sp_lab_engine_name(vm.engine), sp_lab_time_name(vm.time),
		 lp.dir, (long long)vm.cpus, log);
	ret = lab_spawn_guest(&vm, out_p[1], err_p[1], &sb, &pid);
	if (ret) {
		sp_err("lab: cannot start the %s guest: %s",
		       sp_lab_engine_name(vm.engine), strerror(-ret));
		code = SP_EXIT_RUNTIME;
		goto out;
	}
	if (out_p[1] >= 0) close(out_p[1]);
	if (err_p[1] >= 0) close(err_p[1]);
	out_p[1] = err_p[1] = -1;
	ret = wait_guest(mode, out_p[0], err_p[0], o->timeout, pid, &status);
	if (ret) {
		code = failure_code(ret, o->timeout, log);
	} else {
		pid = -1;
		code = guest_verdict(xchg, log, status);
		if (vm.engine == SP_LAB_ENGINE_UML && vm.keep_dir)
			code = lab_copy_kept(xchg, vm.keep_dir, code);
	}
out:
	if (pid > 0)
		sp_lab_kill_vm(pid);
	if (out_p[0] >= 0) close(out_p[0]);
	if (out_p[1] >= 0) close(out_p[1]);
	if (err_p[0] >= 0) close(err_p[0]);
	if (err_p[1] >= 0) close(err_p[1]);
	if (xchg[0] && strstr(xchg, "/run/") && !strstr(xchg, "XXXXXX"))
		sp_lab_remove_tree(xchg);
	return code;
}

int cmd_lab(int argc, char **argv)
{
	struct lab_opts o = { 0 };
	char err[SP_OPT_ERRLEN];
	enum sp_lab_mode mode;
	int next = 2, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	if (!strcmp(argv[1], "run")) {
		mode = SP_LAB_RUN;
	} else if (!strcmp(argv[1], "shell")) {
		mode = SP_LAB_SHELL;
	} else if (!strcmp(argv[1], "start") || !strcmp(argv[1], "stop") ||
		   !strcmp(argv[1], "status")) {
		mode = SP_LAB_AGENT;
	} else if (!strcmp(argv[1], "engine")) {
		return lab_print_engine(argc, argv);
	} else if (!strcmp(argv[1], "agent") && argc == 2) {
		return lab_agent();		/* in the guest, by lab start */
	} else if (!strcmp(argv[1], "guest-info") && argc == 2) {
		return lab_guest_info();	/* in the guest, by lab status */
	} else {
		sp_err("lab: unknown action '%s' (run, shell, start, stop or status)",
		       argv[1]);
		return SP_EXIT_USAGE;
	}
	sp_opt_set_defaults(lab_opttab, &o);
	o.timeout = -1;		/* not given: lab start's own bound */
	ret = sp_opt_parse_argv(lab_opttab, &o, argc, argv, 2, &next, err, sizeof(err));
	if (ret) {
		sp_err("lab %s: %s", argv[1], err);
		return SP_EXIT_USAGE;
	}
	if (o.help) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (mode == SP_LAB_AGENT) {
		if (next < argc) {
			sp_err("lab %s: unexpected argument '%s'", argv[1], argv[next]);
			return SP_EXIT_USAGE;
		}
		if (!strcmp(argv[1], "start") && o.engine && strcmp(o.engine, "qemu")) {
			sp_err("lab start: a running lab is qemu's for now; the uml "
			       "engine runs one command a guest (lab run --engine uml)");
			return SP_EXIT_USAGE;
		}
		if (!strcmp(argv[1], "start"))
			return lab_start(o.cpus ? o.cpus : 2, o.mem,
					 o.timeout < 0 ? 900 : o.timeout, o.kernel);
		return !strcmp(argv[1], "stop") ? lab_stop() : lab_status(o.quiet);
	}
	if (o.timeout < 0)
		o.timeout = 0;	/* lab run and shell: never */
	if (mode == SP_LAB_RUN && next >= argc) {
		sp_err("lab run: no command given (slowpath lab run [OPTIONS] -- CMD [ARG...])");
		return SP_EXIT_USAGE;
	}
	if (mode == SP_LAB_SHELL && next < argc) {
		sp_err("lab shell: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	return run_vm(mode, &o, argv + next);
}
