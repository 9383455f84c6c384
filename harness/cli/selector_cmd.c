/* slowpath selector set NAME [k=v ...] (harness/bringup/bringup_do.h)
 * and slowpath selector build FILE.c [--kernel SERIES]: bring your own
 * path selector (lab/selector_build.h, docs/selectors.md). One
 * subcommand, two actions, each its options and one call into its room. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/opttab.h"
#include "dm/selector.h"
#include "harness/bringup/bringup_do.h"
#include "harness/cli/commands.h"
#include "lab/selector_build.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct build_cli {
	const char *kernel;
	int help;
};

static const struct sp_opt build_table[] = {
	{ .name = "kernel", .type = SP_OPT_STR,
	  .offset = offsetof(struct build_cli, kernel),
	  .help = "build for the lab's kernel series (make lab KERNEL=...); "
		  "default: the running kernel" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct build_cli, help), .help = "show this help" },
	SP_OPT_END,
};

static volatile sig_atomic_t build_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	build_stop = 1;
}


static void build_usage(FILE *out)
{
	char help[512];

	sp_opt_help_argv(build_table, help, sizeof(help));
	fprintf(out,
		"usage: slowpath selector build FILE.c [--kernel SERIES]\n\n"
		"Builds a dm-multipath path selector module from one C file\n"
		"against the kernel's build tree, checks the name it registers\n"
		"and keeps it in the selector store, so that NAME works like a\n"
		"stock selector in run --selectors, selector set, up and reports.\n"
		"Trust: FILE.c is kernel code. It is compiled and later loaded\n"
		"into the kernel as root, so it can read or do anything root\n"
		"can (an .incbin of any file, for one): build only a file you\n"
		"trust as you trust the kernel. The module is kept 0600 in a\n"
		"0700 folder. SIGINT/SIGTERM stop make and its children and\n"
		"remove the temp folder; nothing is stored then.\n"
		"Exit status: 0 built; 1 the file does not build or registers no\n"
		"selector; 2 no build tree; 3 other failures, or interrupted.\n"
		"\noptions:\n%s",
		help);
}

/* selector build: argv[0] is "build". */
static int build_action(int argc, char **argv)
{
	struct build_cli cli = { 0 };
	struct sp_selector_target t;
	char err[SP_SELBUILD_ERRLEN], name[SP_SEL_NAME_MAX];
	const char *file = NULL;
	int i, next, ret;

	sp_opt_set_defaults(build_table, &cli);
	for (i = 1; i < argc; i = next) {
		if (argv[i][0] != '-' || !strcmp(argv[i], "-")) {
			if (file) {
				sp_err("selector build: one FILE.c at a time ('%s')",
				       argv[i]);
				return SP_EXIT_USAGE;
			}
			file = argv[i];
			next = i + 1;
			continue;
		}
		ret = sp_opt_parse_argv(build_table, &cli, argc, argv, i, &next,
					err, sizeof(err));
		if (ret || next <= i) {
			sp_err("selector build: %s", ret ? err : "unexpected '--'");
			return SP_EXIT_USAGE;
		}
	}
	if (cli.help) {
		build_usage(stdout);
		return SP_EXIT_OK;
	}
	if (!file) {
		build_usage(stderr);
		return SP_EXIT_USAGE;
	}
	ret = sp_selector_target(cli.kernel, &t, err, sizeof(err));
	if (ret) {
		sp_err("selector build: %s", err);
		return ret == -EINVAL ? SP_EXIT_USAGE : SP_EXIT_ENV;
	}
	/* the wait on make's output must wake to stop it */
	sp_catch_stop_signals(on_stop_signal);
	ret = sp_selector_build(file, &t, &build_stop, name, sizeof(name), err,
				sizeof(err));
	if (ret) {
		sp_err("selector build: %s", err);
		return ret == -EINVAL ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
	}
	printf("%s %s\n", name, t.release);
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

static int selector_usage(int argc, char **argv)
{
	char help[512];
	int asked = argc >= 2 && !strcmp(argv[1], "--help");

	sp_opt_help_argv(sel_table, help, sizeof(help));
	fprintf(asked ? stdout : stderr,
		"usage: slowpath selector set NAME "
		"[base_weight=N] [threshold_multiplier=N]\n"
		"       slowpath selector build FILE.c [--kernel SERIES]\n"
		"set: reloads the map's table with the same paths and\n"
		"the selector NAME (%s).\n"
		"build: a path selector module from FILE.c, kept for\n"
		"this kernel or the lab's SERIES (docs/selectors.md).\n%s",
		sp_selector_list(), help);
	return asked ? SP_EXIT_OK : SP_EXIT_USAGE;
}

/* selector set NAME [k=v ...]: argv[1] is "set". */
static int set_action(int argc, char **argv)
{
	struct sp_dm_selector sel;
	enum sp_selector kind;
	struct sel_cli cli;
	char err[SP_BRINGUP_ERRLEN];	/* a long k=v word is named whole */
	int i;

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
	return sp_do_selector_set(&sel);
}

int cmd_selector(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "build"))
		return build_action(argc - 1, argv + 1);
	if (argc < 3 || strcmp(argv[1], "set"))
		return selector_usage(argc, argv);
	return set_action(argc, argv);
}
