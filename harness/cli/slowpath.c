#include "common/exitcodes.h"
#include "common/log.h"
#include "harness/cli/commands.h"
#include "lab/lab_life.h"
#include "lab/selector_build.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	const struct sp_command *cmd;

	fprintf(out, "usage: slowpath COMMAND [ARGS...]\n\ncommands:\n");
	for (cmd = sp_commands; cmd->name; cmd++)
		fprintf(out, "  %-10s %s\n", cmd->name, cmd->summary);
	fprintf(out, "\n'slowpath COMMAND --help' describes one command.\n");
}

/* The command argv[0] run only to check its arguments (sp_cli_args_only). */
static int check_args(int argc, char **argv)
{
	const struct sp_command *cmd;
	int code = SP_EXIT_OK;

	for (cmd = sp_commands; cmd->name; cmd++) {
		if (strcmp(cmd->name, argv[0]))
			continue;
		sp_cli_args_only = 1;
		code = cmd->run(argc, argv);
		sp_cli_args_only = 0;
		break;
	}
	return code;
}

static const struct sp_lab_forward_ops forward_ops = {
	.native_ok = sp_cli_native_ok,
	.check_args = check_args,
	.boots_own = sp_cli_boots_own,
};

int main(int argc, char **argv)
{
	const struct sp_command *cmd;
	int code;

	sp_log_set_hook(sp_log_stderr, NULL);
	if (argc < 2) {
		usage(stderr);
		return SP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose")) {
		sp_log_set_level(SP_LOG_DEBUG);
		argv++;
		argc--;
		if (argc < 2) {
			usage(stderr);
			return SP_EXIT_USAGE;
		}
	}
	/* selectors the user built for this kernel join the table before
	 * any command names one */
	sp_selector_store_load();
	for (cmd = sp_commands; cmd->name; cmd++) {
		if (strcmp(cmd->name, argv[1]))
			continue;
		/* the kernel-stack commands run in the lab when it is here
		 * and the kernel stack is not */
		if (sp_lab_forward(argc - 1, argv + 1, &forward_ops, &code))
			return code;
		return cmd->run(argc - 1, argv + 1);
	}
	sp_err("unknown command '%s' (try 'slowpath --help')", argv[1]);
	return SP_EXIT_USAGE;
}
