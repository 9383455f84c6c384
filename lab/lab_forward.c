/* Commands that need the kernel stack, run in the running lab when this
 * host lacks it (lab_life.h): the one table of them, the one decision
 * (main() asks before every command), and the forwarding itself over
 * the lab's control socket (lab_ctl.h). */
#include "lab/lab_life.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/outdir.h"
#include "lab/lab_ctl.h"
#include "lab/lab_umlsup.h"
#include "lab/lab_vm.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

extern char **environ;

/* The commands that need the kernel stack. out_opt: the option naming
 * the folder the command writes its results in, default_out: where
 * they go without it (relative to the working directory); what the
 * command writes there comes back to the host. */
static const struct forwarded {
	const char *name;
	const char *out_opt;
	const char *default_out;
	/* doctor runs here; `doctor --guest` runs in the lab */
	const char *only_with;
	/* `selector build` runs here: it builds against a lab kernel's
	 * tree on the host */
	const char *not_first;
	/* `reproduce --report-only` runs here: it only reads the runs
	 * already on this host */
	const char *not_with;
	/* its arguments can be checked alone (check_args): with no lab,
	 * bad arguments are still refused as such (exit 1) before "start
	 * a lab" */
	int args_checked;
} forwarded[] = {
	{ "up", NULL, NULL, NULL, NULL, NULL, 1 },
	{ "down", NULL, NULL, NULL, NULL, NULL, 0 },
	{ "status", NULL, NULL, NULL, NULL, NULL, 0 },
	{ "selector", NULL, NULL, NULL, "build", NULL, 0 },
	{ "delay", NULL, NULL, NULL, NULL, NULL, 0 },
	{ "run", "--out", "results", NULL, NULL, NULL, 1 },
	{ "reproduce", "--out", "build/reproduce", NULL, NULL, "--report-only", 0 },
	{ "netem", NULL, NULL, NULL, NULL, NULL, 0 },
	{ "fault", NULL, NULL, NULL, NULL, NULL, 1 },
	{ "doctor", NULL, NULL, "--guest", NULL, NULL, 0 },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 },
};

static const struct forwarded *find_forwarded(const char *name)
{
	const struct forwarded *f;

	for (f = forwarded; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static int has_arg(int argc, char **argv, const char *arg)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], arg))
			return 1;
	return 0;
}

static int has_prefix_arg(int argc, char **argv, const char *prefix)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* --jobs N or --jobs=N with N not 0: the command boots its guests
 * itself; --jobs 0 asks for none, so it goes where the command would */
static int jobs_given(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--jobs"))
			return i + 1 >= argc || strcmp(argv[i + 1], "0");
		if (!strncmp(argv[i], "--jobs=", 7))
			return strcmp(argv[i] + 7, "0") != 0;
	}
	return 0;
}

int sp_lab_run_trusted(const struct sp_lab_run *r, const char *who)
{
	char err[SP_OUTDIR_ERRLEN];

	if (!sp_lab_run_check(r, err, sizeof(err)))
		return 0;
	sp_err("%s: the lab's folder (SLOWPATH_LAB_RUN) is not used: %s", who, err);
	return -EPERM;
}

void sp_lab_report_dead_locked(const struct sp_lab_run *r,
			    const struct sp_lab_info *info)
{
	if (info->pid > 0)
		sp_err("lab: the lab VM (%s pid %ld) has died; removed what it "
		       "left (its console log: %s); 'slowpath lab start' starts "
		       "a new one", info->engine[0] ? info->engine : "qemu",
		       info->pid, info->console[0] ? info->console : "none");
	else
		sp_err("lab: removed what a dead lab left in %s; 'slowpath lab "
		       "start' starts a new one", r->dir);
	/* a deaf qemu that still runs would keep the socket: end it */
	sp_lab_stop_qemu(info->pid, r->sock, 2000);
	/* a uml guest whose supervisor was killed outright outlives it */
	if (sp_lab_umlsup_reap(r->xchg))
		sp_info("lab: killed the uml guest its supervisor left");
	sp_lab_cleanup(r);
}

void sp_lab_report_dead(const struct sp_lab_run *r, const struct sp_lab_info *info)
{
	struct sp_lab_info now;
	int busy, lock = sp_lab_lock(r, 0, &busy);

	/* a lab that is booting looks dead: its start holds the lock */
	if (lock == -EWOULDBLOCK) {
		sp_err("lab: a lab start or stop is under way in %s; try again "
		       "when it has finished", r->dir);
		return;
	}
	if (lock >= 0 && sp_lab_probe(r, &now) == SP_LAB_UP) {
		sp_err("lab: the lab in %s came up meanwhile; try again", r->dir);
		close(lock);
		return;
	}
	sp_lab_report_dead_locked(r, info);
	if (lock >= 0)
		close(lock);
}

/* The folder a command writes into: its --out DIR / --out=DIR, else
 * the default; absolute, as the guest sees the same path. */
static char *out_folder(const struct forwarded *f, int argc, char **argv,
			const char *cwd)
{
	const char *dir = f->default_out;
	size_t n = strlen(f->out_opt);
	char *abs;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], f->out_opt) && i + 1 < argc)
			dir = argv[++i];
		else if (!strncmp(argv[i], f->out_opt, n) && argv[i][n] == '=')
			dir = argv[i] + n + 1;
	}
	if (!*dir)
		return NULL;
	if (dir[0] == '/')
		return strdup(dir);
	return asprintf(&abs, "%s/%s", cwd, dir) < 0 ? NULL : abs;
}

int sp_lab_env_ok(void)
{
	const char *extra = getenv("SLOWPATH_LAB_ENV");
	char bad[160];

	if (!extra || !sp_lab_env_list_check(extra, bad, sizeof(bad)))
		return 1;
	sp_err("SLOWPATH_LAB_ENV: '%s' is not a variable a command in the "
	       "lab may be given (a name such as FOO_1; not PATH, HOME, "
	       "LD_*, BASH_ENV or one the guest sets)", bad);
	return 0;
}

static volatile sig_atomic_t fwd_signal;

static void on_fwd_signal(int sig)
{
	fwd_signal = sig;
}

/* What of our environment the guest's command gets, and our terminal's
 * size: 0, or -ENOMEM. */
static int forward_env(struct sp_strv *env, struct sp_lab_req *req)
{
	const char *extra = getenv("SLOWPATH_LAB_ENV");
	struct winsize ws;
	char **e;

	for (e = environ; *e; e++)
		if ((sp_lab_env_passes(*e, extra) || !strncmp(*e, "TERM=", 5)) &&
		    sp_strv_push(env, *e))
			return -ENOMEM;
	/* progress lines are drawn for a terminal the guest cannot see */
	if (isatty(STDERR_FILENO)) {
		sp_strv_push(env, "SLOWPATH_LAB_TTY=1");
		if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws)) {
			req->rows = ws.ws_row;
			req->cols = ws.ws_col;
		}
	}
	return 0;
}

/* The session's end as our exit code. */
static int session_verdict(const struct sp_lab_run *r, char **argv, int ret,
			   const struct sp_lab_files *files, int code)
{
	struct sp_lab_info info;

	if (ret == -EPIPE) {
		if (sp_lab_probe(r, &info) != SP_LAB_UP)
			sp_lab_report_dead(r, &info);
		else
			sp_err("lab: the guest ended the session before %s finished",
			       argv[1] ? argv[1] : argv[0]);
		return SP_EXIT_RUNTIME;
	}
	if (ret == -ECANCELED) {
		sp_err("lab: gave up waiting for %s after %u signals; it may "
		       "still run in the lab ('slowpath lab stop' ends it all)",
		       argv[1] ? argv[1] : argv[0], files->signals);
		return SP_EXIT_RUNTIME;
	}
	if (ret) {
		sp_err("lab: talking to the lab: %s", strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	return sp_lab_files_verdict(files, code);
}

int sp_lab_forward_run(char **argv, char *const *sync)
{
	struct sp_lab_run r;
	struct sp_lab_info info;
	struct sp_lab_req req = { 0 };
	struct sp_lab_files files;
	struct sp_lab_sink_ops ops;
	struct sigaction sa = { .sa_handler = on_fwd_signal }, old[3];
	struct sp_strv env = { 0 };
	char cwd[PATH_MAX];
	int fd, ret, code = SP_EXIT_RUNTIME;

	if (sp_lab_run_paths(&r) || !getcwd(cwd, sizeof(cwd)))
		return SP_EXIT_RUNTIME;
	if (!sp_lab_env_ok())
		return SP_EXIT_USAGE;
	if (forward_env(&env, &req)) {
		sp_strv_free(&env);
		return SP_EXIT_RUNTIME;
	}
	req.cwd = cwd;
	req.argv = argv;
	req.env = env.v ? env.v : (char *[]){ NULL };
	req.sync = (char **)sync;
	fd = sp_lab_connect(r.sock);
	if (fd < 0) {
		if (sp_lab_probe(&r, &info) != SP_LAB_UP)
			sp_lab_report_dead(&r, &info);
		else
			sp_err("lab: cannot connect to %s: %s", r.sock, strerror(-fd));
		sp_strv_free(&env);
		return SP_EXIT_ENV;
	}
	/* Ctrl-C goes to the command in the guest, which cleans up after
	 * itself there; we wait for its exit code */
	fwd_signal = 0;
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	sigaction(SIGHUP, &sa, &old[2]);
	signal(SIGPIPE, SIG_IGN);
	sp_lab_files_init(&files, sync, &fwd_signal);
	/* run and reproduce without --out make one folder in results/ or
	 * build/reproduce/: the earlier ones there are not the guest's */
	files.one_new_folder = 1;
	sp_lab_host_sink(&ops, &files);
	ret = sp_lab_session(fd, &req, &ops, &code);
	sp_lab_files_close(&files);
	close(fd);
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	sigaction(SIGHUP, &old[2], NULL);
	sp_strv_free(&env);
	return session_verdict(&r, argv, ret, &files, code);
}

/* Does the command run here? Where it is no command of the lab's, in
 * the guest, for help, in one of its host-side forms, or when this
 * host has the kernel stack. */
static int runs_here(const struct forwarded *f, int argc, char **argv,
		     const struct sp_lab_forward_ops *ops)
{
	if (!f || getenv("SLOWPATH_IN_LAB"))
		return 1;
	if (has_arg(argc, argv, "--help") || has_arg(argc, argv, "-h"))
		return 1;
	if (f->not_first && argc > 1 && !strcmp(argv[1], f->not_first))
		return 1;
	if (f->not_with && has_arg(argc, argv, f->not_with))
		return 1;
	/* run and reproduce --jobs boot their exact-time guests from here
	 * themselves */
	if ((!strcmp(f->name, "reproduce") || !strcmp(f->name, "run")) &&
	    jobs_given(argc, argv))
		return 1;
	/* run --kernels boots a lab per kernel from here itself */
	if (!strcmp(f->name, "run") && (has_arg(argc, argv, "--kernels") ||
					has_prefix_arg(argc, argv, "--kernels=")))
		return 1;
	return f->only_with ? !has_arg(argc, argv, f->only_with) : ops->native_ok();
}

/* No lab runs: bad arguments are still exit 1, else how to start one. */
static int no_lab(const struct forwarded *f, int argc, char **argv,
		  const struct sp_lab_forward_ops *ops)
{
	int code;

	if (f->args_checked && ops->check_args) {
		code = ops->check_args(argc, argv);
		if (code != SP_EXIT_OK)
			return code;
	}
	if (f->only_with)
		sp_err("%s %s: no lab is running; start one first: "
		       "slowpath lab start", argv[0], f->only_with);
	else
		sp_err("%s: this host lacks the kernel stack ('slowpath "
		       "doctor' says what); start the lab first: slowpath "
		       "lab start", argv[0]);
	return SP_EXIT_ENV;
}

/* The command, as this binary's path (the guest sees it at the same
 * path, the host's root) and its words, run in the lab. */
static int forward_command(const struct forwarded *f, int argc, char **argv)
{
	struct sp_strv fargv = { 0 };
	char exe[PATH_MAX], cwd[PATH_MAX], *sync[2] = { NULL, NULL };
	ssize_t n;
	int i, code;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !getcwd(cwd, sizeof(cwd)))
		return SP_EXIT_RUNTIME;
	exe[n] = '\0';
	if (sp_strv_push(&fargv, exe))
		return SP_EXIT_RUNTIME;
	for (i = 0; i < argc; i++)
		if (sp_strv_push(&fargv, argv[i])) {
			sp_strv_free(&fargv);
			return SP_EXIT_RUNTIME;
		}
	if (f->out_opt)
		sync[0] = out_folder(f, argc, argv, cwd);
	code = sp_lab_forward_run(fargv.v, sync);
	free(sync[0]);
	sp_strv_free(&fargv);
	return code;
}

int sp_lab_forward(int argc, char **argv, const struct sp_lab_forward_ops *ops,
		   int *code)
{
	const struct forwarded *f = find_forwarded(argv[0]);
	struct sp_lab_run r;
	struct sp_lab_info info;

	if (runs_here(f, argc, argv, ops))
		return 0;
	if (sp_lab_run_paths(&r)) {
		sp_err("SLOWPATH_LAB_RUN must be an absolute path of at most 80 bytes");
		*code = SP_EXIT_USAGE;
		return 1;
	}
	if (sp_lab_run_trusted(&r, argv[0])) {
		*code = SP_EXIT_ENV;
		return 1;
	}
	switch (sp_lab_probe(&r, &info)) {
	case SP_LAB_NONE:
		if (ops->boots_own && !has_arg(argc, argv, "--jobs") &&
		    !has_prefix_arg(argc, argv, "--jobs=") &&
		    ops->boots_own(argc, argv))
			return 0;
		*code = no_lab(f, argc, argv, ops);
		return 1;
	case SP_LAB_DEAD:
		sp_lab_report_dead(&r, &info);
		*code = SP_EXIT_ENV;
		return 1;
	case SP_LAB_UP:
		break;
	}
	sp_debug("lab: %s runs in the lab (%s pid %ld)", argv[0],
		 info.engine[0] ? info.engine : "qemu", info.pid);
	*code = forward_command(f, argc, argv);
	return 1;
}
