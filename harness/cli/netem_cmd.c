/* slowpath netem set|change|show|clear DEV [--netns NAME] [--dry-run]
 * [netem words]: the thin CLI over netem/netem.h. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "harness/cli/commands.h"
#include "netem/netem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct netem_cli {
	const char *netns;
	int dry_run;
};

static const struct sp_opt netem_cli_opts[] = {
	{ .name = "netns", .type = SP_OPT_STR,
	  .offset = offsetof(struct netem_cli, netns),
	  .help = "network namespace (/run/netns/NAME) DEV lives in" },
	{ .name = "dry-run", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct netem_cli, dry_run),
	  .help = "print the equivalent tc command, change nothing" },
	SP_OPT_END,
};

static void usage(FILE *out)
{
	char help[512];

	sp_opt_help_argv(netem_cli_opts, help, sizeof(help));
	fprintf(out,
		"usage: slowpath netem set DEV [OPTIONS] WORDS...\n"
		"       slowpath netem change DEV [OPTIONS] WORDS...\n"
		"       slowpath netem show DEV [--netns NAME]\n"
		"       slowpath netem clear DEV [OPTIONS]\n"
		"%s\noptions:\n%s", sp_netem_explain(), help);
}

/* Which errors mean "this machine lacks something" rather than a
 * failed attempt: the exit contract's 2. */
static int exit_for(int ret)
{
	switch (-ret) {
	case 0:
		return SP_EXIT_OK;
	case ENODEV:
	case ENOPKG:
	case EPERM:
	case EACCES:
	case ESRCH:
		return SP_EXIT_ENV;
	case EINVAL:
		return SP_EXIT_USAGE;
	default:
		return SP_EXIT_RUNTIME;
	}
}

/* The words after DEV into opts (8 at most, --netns with its value)
 * and words (64 at most): options may sit anywhere among the words, and
 * no word starts "--". -1 when there are too many. */
static int split_words(int argc, char **argv, char **opts, int *nopts,
		       char **words, int *nwords)
{
	int i;

	*nopts = *nwords = 0;
	for (i = 3; i < argc; i++) {
		if (!strncmp(argv[i], "--", 2)) {
			if (*nopts + 2 > 8)
				return -1;
			opts[(*nopts)++] = argv[i];
			if (!strcmp(argv[i], "--netns") && i + 1 < argc)
				opts[(*nopts)++] = argv[++i];
		} else {
			if (*nwords == 64)
				return -1;
			words[(*nwords)++] = argv[i];
		}
	}
	return 0;
}

int cmd_netem(int argc, char **argv)
{
	struct netem_cli o = { 0 };
	struct sp_netem_request rq = { 0 };
	char *opts[8], *words[64], err[SP_NETEM_ERRLEN], text[512];
	const char *verb, *dev;
	int nopts, nwords, next, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	verb = argv[1];
	if (sp_netem_verb_parse(verb, &rq.verb)) {
		sp_err("unknown netem subcommand '%s' (set, change, show, clear)",
		       verb);
		return SP_EXIT_USAGE;
	}
	if (argc < 3 || argv[2][0] == '-') {
		sp_err("netem %s needs a device", verb);
		return SP_EXIT_USAGE;
	}
	dev = argv[2];
	if (split_words(argc, argv, opts, &nopts, words, &nwords)) {
		sp_err("netem %s: too many arguments", verb);
		return SP_EXIT_USAGE;
	}
	ret = sp_opt_parse_argv(netem_cli_opts, &o, nopts, opts, 0, &next,
				err, sizeof(err));
	if (ret || next != nopts) {
		sp_err("netem %s: %s", verb, ret ? err : "bad option");
		return SP_EXIT_USAGE;
	}
	rq.netns = o.netns;
	rq.dev = dev;
	rq.dry_run = o.dry_run;
	rq.nwords = nwords;
	rq.words = words;
	ret = sp_netem_run(&sp_netem_nl_ops, &rq, text, sizeof(text), err,
			   sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return exit_for(ret);
	}
	if (text[0])
		printf("%s\n", text);
	return SP_EXIT_OK;
}
