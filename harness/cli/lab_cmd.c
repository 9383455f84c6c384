/* slowpath lab run|shell|start|stop|status|engine: the options, the
 * usage, and one call a subcommand into the lab's lifecycle
 * (lab/lab_life.h); status and guest-info print what it reports. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "harness/bringup/bringup_do.h"
#include "harness/cli/commands.h"
#include "lab/lab_life.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

struct lab_opts {
	struct sp_lab_guest_opts g;
	const char *out;
	int quiet;
	int help;
};

static const struct sp_opt lab_opttab[] = {
	{ .name = "cpus", .type = SP_OPT_INT,
	  .offset = offsetof(struct lab_opts, g.ask.cpus), .def = "0",
	  .help = "virtual CPUs (qemu: TCG threads, 0 = 2; uml: 1 only)",
	  .min = 0, .max = 64 },
	{ .name = "mem", .type = SP_OPT_SIZE,
	  .offset = offsetof(struct lab_opts, g.mem), .def = SP_LAB_MEM_DEFAULT,
	  .help = "guest memory; its tmpfs overlay holds every write" },
	{ .name = "timeout", .type = SP_OPT_INT,
	  .offset = offsetof(struct lab_opts, g.timeout), .def = "0",
	  .help = "seconds before the VM is killed (exit 3); 0: never (lab start: for its boot; not given: 900)",
	  .min = 0, .max = 7 * 86400 },
	{ .name = "keep", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, g.keep),
	  .help = "a host folder (created) the guest writes to at the same path" },
	{ .name = "out", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, out),
	  .help = "fetch: a new or empty folder for what the lab kept (default results/lab-kept-<UTC time>)" },
	{ .name = "quiet", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct lab_opts, quiet),
	  .help = "status: print nothing, only the exit status tells" },
	{ .name = "kernel", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, g.ask.kernel),
	  .help = "kernel series to boot, as prepared by make lab KERNEL= (6.1, 6.12)" },
	{ .name = "engine", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, g.ask.engine),
	  .help = "uml (exact time, the default where make lab built it) or qemu" },
	{ .name = "time", .type = SP_OPT_STR,
	  .offset = offsetof(struct lab_opts, g.ask.time),
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
		"       slowpath lab start [--engine E] [--time T] [--kernel SERIES]\n"
		"                          [--cpus N] [--mem SIZE] [--timeout S]\n"
		"       slowpath lab stop\n"
		"       slowpath lab fetch [--out DIR]\n"
		"       slowpath lab status [--quiet]\n"
		"       slowpath lab engine [--kernel SERIES]\n\n"
		"start boots a lab that stays up: while it runs, up, down, status,\n"
		"selector, delay, run, reproduce, netem, fault and doctor --guest\n"
		"run in it when this host lacks the kernel stack, and what they\n"
		"write under --out (or results/) lands on this host. stop ends\n"
		"it; status says since when, its kernel, topology and CPU use\n"
		"(exit 2 when none runs); fetch brings back what a command whose\n"
		"host went away left in it (stop does too).  --timeout bounds start's boot (900 s\n"
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

/* lab engine [--kernel SERIES]: which engine lab run would use here, for
 * scripts (make demo): one decision, this one. */
static int print_engine(int argc, char **argv)
{
	const char *series = NULL;
	enum sp_lab_engine e;

	if (argc == 4 && !strcmp(argv[2], "--kernel") && sp_lab_series_ok(argv[3]))
		series = argv[3];
	else if (argc != 2) {
		sp_err("lab engine: usage: slowpath lab engine [--kernel SERIES]");
		return SP_EXIT_USAGE;
	}
	if (sp_lab_pick_engine(&sp_lab_engines, NULL, series, &e))
		return SP_EXIT_USAGE;
	printf("%s\n", sp_lab_engine_name(e));
	return SP_EXIT_OK;
}

static int print_status(int quiet)
{
	struct sp_lab_status st;
	const char *engine;
	char when[64];
	time_t started;
	int64_t up;
	int code = sp_lab_status_probe(&st);

	if (code)
		return code;
	if (!st.up) {
		if (!quiet)
			printf("lab: not running ('slowpath lab start' starts one)\n");
		return SP_EXIT_ENV;
	}
	if (quiet)
		return SP_EXIT_OK;
	started = (time_t)st.info.started;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime(&started));
	up = (int64_t)time(NULL) - st.info.started;
	engine = st.info.engine[0] ? st.info.engine : "qemu";
	printf("lab: running since %s (%lld min), engine %s, %s time, pid %ld, "
	       "%lld vCPUs, %llu MiB\n", when, (long long)(up / 60), engine,
	       st.info.time[0] ? st.info.time : "real", st.info.pid,
	       (long long)st.info.cpus, (unsigned long long)(st.info.mem >> 20));
	if (st.cpu_share >= 0)
		printf("lab: %s has used %.0f%% of one host CPU since it started\n",
		       engine, st.cpu_share);
	printf("lab: console log %s\n", st.info.console);
	fflush(stdout);
	return sp_lab_status_guest();
}

/* In the guest, for lab status. */
static int print_guest_info(void)
{
	struct sp_lab_guest_facts f;
	char topology[256];

	sp_lab_guest_facts(&f);
	if (f.kernel[0])
		printf("lab: kernel %s\n", f.kernel);
	if (f.cpu_busy >= 0)
		printf("lab: guest CPU use %.0f%% (over 1 s)\n", f.cpu_busy);
	if (f.load[0])
		printf("lab: guest load %s\n", f.load);
	printf("lab: topology: %s\n", sp_do_status_line(topology, sizeof(topology)) ?
	       "none up" : topology);
	return SP_EXIT_OK;
}

/* lab start, stop, status: no words after the options. */
static int lab_agent_cmd(const char *action, const struct lab_opts *o,
			 int next, int argc, char **argv)
{
	if (next < argc) {
		sp_err("lab %s: unexpected argument '%s'", action, argv[next]);
		return SP_EXIT_USAGE;
	}
	if (!strcmp(action, "start"))
		return sp_lab_start(&sp_lab_engines, &o->g);
	if (!strcmp(action, "fetch"))
		return sp_lab_fetch(o->out);
	return !strcmp(action, "stop") ? sp_lab_stop() : print_status(o->quiet);
}

/* The action's mode, or -1 when it is no action with options. */
static int lab_mode(const char *action)
{
	if (!strcmp(action, "run"))
		return SP_LAB_RUN;
	if (!strcmp(action, "shell"))
		return SP_LAB_SHELL;
	if (!strcmp(action, "start") || !strcmp(action, "stop") ||
	    !strcmp(action, "status") || !strcmp(action, "fetch"))
		return SP_LAB_AGENT;
	return -1;
}

int cmd_lab(int argc, char **argv)
{
	struct lab_opts o = { 0 };
	char err[SP_OPT_ERRLEN];
	int mode, next = 2;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	mode = lab_mode(argv[1]);
	if (mode < 0 && !strcmp(argv[1], "engine"))
		return print_engine(argc, argv);
	if (mode < 0 && !strcmp(argv[1], "agent") && argc == 2)
		return sp_lab_agent();		/* in the guest, by lab start */
	if (mode < 0 && !strcmp(argv[1], "guest-info") && argc == 2)
		return print_guest_info();	/* in the guest, by lab status */
	if (mode < 0) {
		sp_err("lab: unknown action '%s' (run, shell, start, stop or status)",
		       argv[1]);
		return SP_EXIT_USAGE;
	}
	sp_opt_set_defaults(lab_opttab, &o);
	o.g.timeout = -1;		/* not given: lab start's own bound */
	if (sp_opt_parse_argv(lab_opttab, &o, argc, argv, 2, &next, err, sizeof(err))) {
		sp_err("lab %s: %s", argv[1], err);
		return SP_EXIT_USAGE;
	}
	if (o.help) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (mode == SP_LAB_AGENT)
		return lab_agent_cmd(argv[1], &o, next, argc, argv);
	if (mode == SP_LAB_RUN && next >= argc) {
		sp_err("lab run: no command given (slowpath lab run [OPTIONS] -- CMD [ARG...])");
		return SP_EXIT_USAGE;
	}
	if (mode == SP_LAB_SHELL && next < argc) {
		sp_err("lab shell: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	return sp_lab_guest(&sp_lab_engines, mode, &o.g, argv + next);
}
