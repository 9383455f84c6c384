/* slowpath selector build FILE.c [--kernel SERIES]: bring your own path
 * selector (lab/selector_build.h, docs/selectors.md). */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "dm/selector.h"
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


static void usage(FILE *out)
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

int cmd_selector_build(int argc, char **argv)
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
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (!file) {
		usage(stderr);
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
