/* slowpath up|down|status|selector|delay: the thin CLI over
 * harness/bringup/bringup.h. Errors are one line through the log hook. */
#include "common/exitcodes.h"
#include "common/machine.h"
#include "common/log.h"
#include "common/opttab.h"
#include "common/units.h"
#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_status.h"
#include "harness/bringup/lock.h"
#include "harness/bringup/calib.h"
#include "harness/cli/cmd_effects.h"
#include "harness/cli/commands.h"
#include "harness/fault/fault_apply.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* "topology" (keep the file's) and then dm/selector.c's short names,
 * filled in by fill_sel_choices() before the table is used. */
static const char *sel_choices[SP_SEL_TABLE_MAX + 2] = { "topology" };
static const char *const mech_choices[] = { "topology", "backend", "netem",
					    "both", NULL };

#define U(f) offsetof(struct sp_cli_up, f)
static const struct sp_opt up_table[] = {
	{ .name = "selector", .type = SP_OPT_ENUM, .offset = U(selector),
	  .choices = sel_choices, .def = "topology",
	  .help = "path selector of the map (st|hst|ql|rr|ioa or a built one)" },
	{ .name = "mechanism", .type = SP_OPT_ENUM, .offset = U(mechanism),
	  .choices = mech_choices, .def = "topology",
	  .help = "how every path is delayed (backend|netem|both)" },
	{ .name = "unit", .type = SP_OPT_DELAY, .offset = U(unit_ns),
	  .def = "0", .help = "delay unit (0: the topology's; its lab_unit "
	  "in the lab)" },
	{ .name = "scale", .type = SP_OPT_INT, .offset = U(scale),
	  .def = "1", .min = 1, .max = 1 << 30,
	  .help = "every delay times K, a power of two; HST is loaded with "
	  "bucket_shift 24 + log2 K" },
	{ .name = "calibrate", .type = SP_OPT_BOOL, .offset = U(calibrate),
	  .help = "then correct every path's delay until its p50 at "
	  "iodepth 1 is within 3% of scale x (calibrate-base + delay)" },
	{ .name = "calibrate-base", .type = SP_OPT_DELAY,
	  .offset = U(calib_base_ns), .def = "856us",
	  .help = "the per-I/O base every path's target includes (856us: "
	  "the 2020 fit)" },
	{ .name = "serial-base", .type = SP_OPT_DELAY,
	  .offset = U(serial_base_ns), .def = "0",
	  .help = "topologies with servers: the part of the base every path "
	  "serves in turn, added to each path's service (and taken from "
	  "calibrate-base)" },
	{ .name = "calibrate-rounds", .type = SP_OPT_INT,
	  .offset = U(calib_rounds), .def = "4", .min = 1, .max = 20,
	  .help = "measurements at most" },
	{ .name = "calibrate-runtime", .type = SP_OPT_INT,
	  .offset = U(calib_runtime_s), .def = "3", .min = 1, .max = 60,
	  .help = "least fio seconds per path per measurement (more for 150 I/Os)" },
	{ .name = "base_weight", .type = SP_OPT_INT, .offset = U(base_weight),
	  .def = "-1", .min = -1, .max = 1023,
	  .help = "HST: history weight, 0..1023 (-1: kernel default)" },
	{ .name = "threshold_multiplier", .type = SP_OPT_INT,
	  .offset = U(threshold_multiplier), .def = "-1", .min = -1,
	  .max = 4294967295.0, .help = "HST: threshold multiplier" },
	{ .name = "tgtd-wait", .type = SP_OPT_INT, .offset = U(tgtd_wait_s),
	  .def = "60", .min = 1, .max = 3600,
	  .help = "seconds to wait for each tgtd" },
	{ .name = "disk-wait", .type = SP_OPT_INT, .offset = U(disk_wait_s),
	  .def = "120", .min = 1, .max = 3600,
	  .help = "seconds to wait for the disks after login" },
	SP_OPT_END,
};

static void on_signal(int sig)
{
	(void)sig;
	sp_bringup_interrupted = 1;
}


static int exit_code(int ret)
{
	if (ret == -EEXIST || ret == -EADDRINUSE)
		return SP_EXIT_USAGE;
	if (ret == -EINTR)
		return SP_EXIT_RUNTIME;
	return sp_exit_from_errno(ret);
}

static void random_tag(char *tag, size_t len)
{
	unsigned int r = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
			r ^= (unsigned int)clock();
		close(fd);
	}
	snprintf(tag, len, "%04x", r & 0xffff);
}

static void up_usage(FILE *out)
{
	char help[2048];

	sp_opt_help_argv(up_table, help, sizeof(help));
	fprintf(out, "usage: slowpath up TOPOLOGY [--selector st|hst|ql|rr|ioa] "
		"[--mechanism backend|netem|both] [--unit T]\n"
		"Sets the topology up: a namespace, veth pair and tgtd per "
		"path, iSCSI sessions,\nand one dm-multipath map. State goes "
		"to %s; 'slowpath down' undoes it.\noptions:\n%s",
		sp_state_dir(), help);
}

/* The topology lock for command what; SP_EXIT_RUNTIME (said why) when
 * another slowpath holds it past the wait. */
static int take_lock(const char *what, int *fd)
{
	char err[SP_BRINGUP_ERRLEN];

	if (!sp_lock_take(NULL, what, SP_LOCK_WAIT_MS, fd, err, sizeof(err)))
		return 0;
	sp_err("%s: %s", what, err);
	return SP_EXIT_RUNTIME;
}

/* Loads the journal; 1 when there is none. */
static int load_state(struct sp_state *st)
{
	char err[SP_STATE_ERRLEN];
	int ret = sp_state_load(NULL, st, err, sizeof(err));

	if (ret == -ENOENT)
		return 1;
	if (ret) {
		if (ret == -EINVAL)
			sp_err("%s", err);
		else
			sp_err("cannot read %s/%s: %s", sp_state_dir(),
			       SP_STATE_FILE, strerror(-ret));
		return ret;
	}
	return 0;
}

static void fill_sel_choices(void)
{
	size_t k;

	for (k = 0; sp_selector_short_names[k]; k++)
		sel_choices[k + 1] = sp_selector_short_names[k];
}

void sp_cli_up_defaults(struct sp_cli_up *cli)
{
	fill_sel_choices();
	memset(cli, 0, sizeof(*cli));	/* a bool without a default stays */
	sp_opt_set_defaults(up_table, cli);
}

int cmd_up(int argc, char **argv)
{
	struct sp_cli_up cli;
	char err[SP_BRINGUP_ERRLEN];
	int next, ret;

	sp_cli_up_defaults(&cli);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		up_usage(stdout);
		return SP_EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		up_usage(stderr);
		return SP_EXIT_USAGE;
	}
	ret = sp_opt_parse_argv(up_table, &cli, argc, argv, 2, &next, err,
				sizeof(err));
	if (ret || next != argc) {
		if (ret)
			sp_err("up: %s", err);
		else
			sp_err("up: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	return sp_cli_up_run(argv[1], &cli);
}

/* The checks of up's options against the topology. */
static int up_checks(const struct sp_topo *topo, const struct sp_cli_up *cli)
{
	if (cli->scale & (cli->scale - 1)) {
		sp_err("up: --scale %lld is not a power of two (1, 2, 4, ...)",
		       (long long)cli->scale);
		return SP_EXIT_USAGE;
	}
	if (cli->serial_base_ns && !topo->servers) {
		sp_err("up: --serial-base is for topologies with servers; %s has "
		       "none", topo->file);
		return SP_EXIT_USAGE;
	}
	if (cli->calibrate && cli->serial_base_ns > cli->calib_base_ns) {
		sp_err("up: --serial-base %lldns is more than --calibrate-base "
		       "%lldns, the whole base", (long long)cli->serial_base_ns,
		       (long long)cli->calib_base_ns);
		return SP_EXIT_USAGE;
	}
	return 0;
}

static void up_opts(const struct sp_topo *topo, const struct sp_cli_up *cli,
		    struct sp_up_opts *o)
{
	enum sp_selector kind;

	memset(o, 0, sizeof(*o));
	if (cli->selector > 0 &&
	    !sp_selector_by_short(sel_choices[cli->selector], &kind)) {
		o->has_selector = 1;
		sp_dm_selector_init(&o->sel, kind);
		o->sel.base_weight = cli->base_weight;
		o->sel.threshold_multiplier = cli->threshold_multiplier;
	}
	if (cli->mechanism > 0) {
		o->has_mech = 1;
		o->mech = (enum sp_mech)(cli->mechanism - 1);
	}
	o->scale = (uint64_t)cli->scale;
	o->serial_base_ns = cli->serial_base_ns;
	o->unit_ns = cli->unit_ns;
	if (!o->unit_ns && sp_machine_emulated_cost() && topo->lab_unit_ns > 0)
		o->unit_ns = topo->lab_unit_ns;
	o->tgtd_wait_s = (unsigned int)cli->tgtd_wait_s;
	o->disk_wait_s = (unsigned int)cli->disk_wait_s;
	random_tag(o->tag, sizeof(o->tag));
}

/* Under the topology lock, with nothing up yet. */
static int up_bring(const struct sp_topo *topo, const struct sp_cli_up *cli)
{
	static struct sp_state existing;
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN];
	int ret, lock;
	int64_t t0;

	if (take_lock("up", &lock))
		return SP_EXIT_RUNTIME;
	ret = load_state(&existing);
	if (ret <= 0) {
		if (!ret)
			sp_err("topology %s is already up (tag %s): 'slowpath "
			       "down' first", existing.topology, existing.tag);
		sp_lock_release(NULL, lock);
		return ret < 0 ? SP_EXIT_RUNTIME : SP_EXIT_USAGE;
	}
	up_opts(topo, cli, &o);
	sp_catch_stop_signals(on_signal);
	t0 = sp_now_ns();
	ret = sp_bringup_up(&sp_sys_real, topo, &o, sp_state_dir(), err,
			    sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("up %s: %s", topo->name, err);
		return exit_code(ret);
	}
	sp_info("%s is up in %.1f s: /dev/mapper/%s ('slowpath status')",
		topo->name, (double)(sp_now_ns() - t0) / 1e9, topo->map_name);
	return 0;
}

static int up_calibrate(const struct sp_cli_up *cli)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN];
	struct sp_calib_opts co = {
		.base_ns = cli->calib_base_ns - cli->serial_base_ns,
		.rounds = (unsigned int)cli->calib_rounds,
		.runtime_s = (unsigned int)cli->calib_runtime_s,
	};
	int ret;

	/* exact time: nothing to converge on, the residual is
	 * checked once (docs/lab.md, "The uml engine") */
	if (sp_machine_exact_time()) {
		co.rounds = 1;
		co.tolerance = SP_CALIB_EXACT_TOLERANCE;
	}
	if (load_state(&st))
		return SP_EXIT_RUNTIME;
	ret = sp_bringup_calibrate(&sp_sys_real, &st, &co,
				   sp_state_dir(), err, sizeof(err));
	if (ret && ret != -ERANGE) {
		sp_err("up --calibrate: %s", err);
		return SP_EXIT_RUNTIME;
	}
	if (ret)
		sp_warn("up --calibrate: %s (residuals in 'slowpath "
			"status'; cases will be flagged)", err);
	return 0;
}

int sp_cli_up_run(const char *topology, const struct sp_cli_up *cli)
{
	static struct sp_topo topo;
	char err[SP_BRINGUP_ERRLEN];
	int ret;

	ret = sp_topo_load(topology, &topo, err, sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return sp_exit_from_errno(ret) == SP_EXIT_ENV ? SP_EXIT_USAGE
							      : exit_code(ret);
	}
	ret = up_checks(&topo, cli);
	if (ret)
		return ret;
	if (sp_cli_args_only)
		return SP_EXIT_OK;
	if (geteuid() != 0) {
		sp_err("up: needs root (namespaces, tgtd, iSCSI, device-mapper)");
		return SP_EXIT_ENV;
	}
	ret = up_bring(&topo, cli);
	if (!ret && cli->calibrate)
		ret = up_calibrate(cli);
	if (ret)
		return ret;
	printf("/dev/mapper/%s\n", topo.map_name);
	return SP_EXIT_OK;
}

int cmd_down(int argc, char **argv)
{
	if (argc > 1) {
		if (strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
			sp_err("down: takes no arguments ('%s')", argv[1]);
			return SP_EXIT_USAGE;
		}
		printf("usage: slowpath down\nRemoves everything 'slowpath up' "
		       "made, also after a crash; safe to repeat.\n");
		return SP_EXIT_OK;
	}
	return sp_cli_down_run();
}

int sp_cli_down_run(void)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN];
	int ret, none, lock;
	int64_t t0 = sp_now_ns();

	if (geteuid() != 0) {
		sp_err("slowpath down needs root");
		return SP_EXIT_ENV;
	}
	/* a holder that died let go of it; a live one is named */
	if (take_lock("down", &lock))
		return SP_EXIT_RUNTIME;
	none = load_state(&st);
	if (none < 0)
		sp_warn("the state is unreadable; sweeping by name only");
	signal(SIGINT, SIG_IGN);	/* half a teardown helps nobody */
	/* faults first: a held store or a stopped tgtd would stall the
	 * logout; down's own sweep still continues a stopped tgtd */
	if (!none && sp_fault_restore_all(&sp_sys_real, &st, sp_state_dir(),
					  err, sizeof(err)))
		sp_warn("down: undoing a fault: %s (going on)", err);
	ret = sp_bringup_down(&sp_sys_real, none ? NULL : &st, sp_state_dir(),
			      err, sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("down: %s", err);
		return exit_code(ret);
	}
	sp_info("down in %.1f s%s", (double)(sp_now_ns() - t0) / 1e9,
		none ? " (nothing was recorded as up)" : "");
	return SP_EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
	static struct sp_state st;
	static struct sp_status s;
	static char out[16384];
	int ret;

	(void)argv;
	if (argc > 1) {
		printf("usage: slowpath status\nThe topology that is up, in "
		       "the shape of multipath -ll.\n");
		return strcmp(argv[1], "--help") ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	ret = load_state(&st);
	if (ret < 0)
		return SP_EXIT_RUNTIME;
	if (ret) {
		printf("no topology is up\n");
		return SP_EXIT_OK;
	}
	sp_status_gather(&sp_sys_real, &st, &s);
	if (sp_status_render(&s, out, sizeof(out)))
		return SP_EXIT_RUNTIME;
	fputs(out, stdout);
	return SP_EXIT_OK;
}

struct sel_cli {
	int64_t base_weight, threshold_multiplier;
};

static const struct sp_opt sel_table[] = {
	{ .name = "base_weight", .type = SP_OPT_INT,
	  .offset = offsetof(struct sel_cli, base_weight), .def = "-1",
	  .min = -1, .max = 1023,
	  .help = "HST: history weight, 0..1023 (-1: kernel default)" },
	{ .name = "threshold_multiplier", .type = SP_OPT_INT,
	  .offset = offsetof(struct sel_cli, threshold_multiplier),
	  .def = "-1", .min = -1, .max = 4294967295.0,
	  .help = "HST: threshold multiplier (-1: kernel default)" },
	SP_OPT_END,
};

int cmd_selector(int argc, char **argv)
{
	static struct sp_state st;
	struct sp_dm_selector sel;
	enum sp_selector kind;
	struct sel_cli cli;
	char err[SP_BRINGUP_ERRLEN], help[512];
	int i, ret, lock;

	if (argc >= 2 && !strcmp(argv[1], "build"))
		return cmd_selector_build(argc - 1, argv + 1);
	if (argc < 3 || strcmp(argv[1], "set")) {
		sp_opt_help_argv(sel_table, help, sizeof(help));
		fprintf(argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
			"usage: slowpath selector set NAME "
			"[base_weight=N] [threshold_multiplier=N]\n"
			"       slowpath selector build FILE.c [--kernel SERIES]\n"
			"set: reloads the map's table with the same paths and\n"
			"the selector NAME (%s).\n"
			"build: a path selector module from FILE.c, kept for\n"
			"this kernel or the lab's SERIES (docs/selectors.md).\n%s",
			sp_selector_list(), help);
		return argc >= 2 && !strcmp(argv[1], "--help") ? SP_EXIT_OK
							      : SP_EXIT_USAGE;
	}
	if (sp_selector_parse(argv[2], &kind)) {
		sp_err("selector: '%s' is none of %s (slowpath selector build "
		       "adds yours)", argv[2], sp_selector_list());
		return SP_EXIT_USAGE;
	}
	sp_opt_set_defaults(sel_table, &cli);
	for (i = 3; i < argc; i++) {
		char kv[256];
		const char *a = argv[i];

		while (*a == '-')
			a++;
		snprintf(kv, sizeof(kv), "%s", a);
		if (sp_opt_parse_kv(sel_table, &cli, kv, ';', err, sizeof(err))) {
			sp_err("selector: %s", err);
			return SP_EXIT_USAGE;
		}
	}
	if (kind != SP_SEL_HST && (cli.base_weight >= 0 ||
				   cli.threshold_multiplier >= 0)) {
		sp_err("selector: base_weight and threshold_multiplier are "
		       "historical-service-time's only");
		return SP_EXIT_USAGE;
	}
	sp_dm_selector_init(&sel, kind);
	sel.base_weight = cli.base_weight;
	sel.threshold_multiplier = cli.threshold_multiplier;
	if (take_lock("selector", &lock))
		return SP_EXIT_RUNTIME;
	ret = load_state(&st);
	if (ret) {
		sp_lock_release(NULL, lock);
		if (ret > 0)
			sp_err("selector: no topology is up");
		return ret > 0 ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
	}
	ret = sp_bringup_selector_set(&sp_sys_real, &st, &sel, sp_state_dir(),
				      err, sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("selector: %s", err);
		return exit_code(ret);
	}
	return SP_EXIT_OK;
}

int cmd_delay(int argc, char **argv)
{
	int64_t rd, wr = -1;

	if (argc < 4 || argc > 5 || strcmp(argv[1], "set")) {
		int help = argc >= 2 && !strcmp(argv[1], "--help");

		fprintf(help ? stdout : stderr,
			"usage: slowpath delay set PATH DELAY [WRITE_DELAY]\n"
			"PATH is a path's number, label or disk (sdb); DELAY "
			"is the path's whole delay\n(e.g. 5ms), split between "
			"store and wire as its mechanism says.\n");
		return help ? SP_EXIT_OK : SP_EXIT_USAGE;
	}
	if (sp_parse_duration_ns(argv[3], &rd) ||
	    (argc == 5 && sp_parse_duration_ns(argv[4], &wr))) {
		sp_err("delay: '%s' is not a duration (e.g. 500us, 5ms)",
		       argc == 5 && sp_parse_duration_ns(argv[4], &wr) ? argv[4]
								     : argv[3]);
		return SP_EXIT_USAGE;
	}
	if (rd > SP_DELAY_MAX_NS || wr > SP_DELAY_MAX_NS) {
		sp_err("delay: '%s' must be at most 60s, the most one command "
		       "may be held", rd > SP_DELAY_MAX_NS ? argv[3] : argv[4]);
		return SP_EXIT_USAGE;
	}
	return sp_cli_delay_run(argv[2], rd, wr);
}

int sp_cli_delay_run(const char *path, int64_t rd, int64_t wr)
{
	static struct sp_state st;
	struct sp_state_path *p;
	char err[SP_BRINGUP_ERRLEN];
	int ret, lock;

	if (take_lock("delay", &lock))
		return SP_EXIT_RUNTIME;
	ret = load_state(&st);
	if (ret) {
		sp_lock_release(NULL, lock);
		if (ret > 0)
			sp_err("delay: no topology is up");
		return ret > 0 ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
	}
	p = sp_state_find_path(&st, path);
	if (!p) {
		sp_lock_release(NULL, lock);
		sp_err("delay: topology %s has no path '%s'", st.topology,
		       path);
		return SP_EXIT_USAGE;
	}
	ret = sp_bringup_delay_set(&sp_sys_real, &st, p, rd, wr,
				   sp_state_dir(), err, sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("delay: %s", err);
		return exit_code(ret);
	}
	return SP_EXIT_OK;
}
