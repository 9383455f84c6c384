/* slowpath topo check|show|table|list: the options over
 * topologies/topo_show.h. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "common/units.h"
#include "harness/cli/commands.h"
#include "topologies/topo_show.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct show_opts {
	int64_t unit_ns;
	int lab;
};

struct table_opts {
	const char *devs, *selector;
	uint64_t size_bytes;
};

static const struct sp_opt table_opts_table[] = {
	{ .name = "devs", .type = SP_OPT_STR,
	  .offset = offsetof(struct table_opts, devs),
	  .help = "the paths' block devices, MAJ:MIN,MAJ:MIN,... in order" },
	{ .name = "selector", .type = SP_OPT_STR,
	  .offset = offsetof(struct table_opts, selector),
	  .help = "st|hst|ql|rr|ioa instead of the topology's" },
	{ .name = "size", .type = SP_OPT_SIZE,
	  .offset = offsetof(struct table_opts, size_bytes),
	  .help = "map size instead of the topology's" },
	SP_OPT_END,
};

static const struct sp_opt show_opts_table[] = {
	{ .name = "unit", .type = SP_OPT_DELAY,
	  .offset = offsetof(struct show_opts, unit_ns),
	  .help = "override the topology's unit" },
	{ .name = "lab", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct show_opts, lab),
	  .help = "use the topology's lab_unit" },
	SP_OPT_END,
};

static void usage(FILE *out)
{
	char help[512];

	sp_opt_help_argv(show_opts_table, help, sizeof(help));
	fprintf(out,
		"usage: slowpath topo check FILE|NAME\n"
		"       slowpath topo show FILE|NAME [--unit T] [--lab]\n"
		"       slowpath topo table FILE|NAME --devs MAJ:MIN,... "
		"[--selector S] [--size N]\n"
		"       slowpath topo list\n"
		"A NAME is looked up as NAME.ini in %s.\n"
		"show options:\n%s",
		"$SLOWPATH_TOPODIR or the repository's topologies/", help);
}

static int load(const char *what, struct sp_topo *topo)
{
	char err[SP_TOPO_ERRLEN];
	int ret = sp_topo_load(what, topo, err, sizeof(err));

	if (ret)
		sp_err("%s", err);
	return ret;
}

/* show's and table's options after FILE|NAME; check takes none. An
 * exit code. */
static int parse_opts(int argc, char **argv, struct show_opts *o,
		      struct table_opts *to)
{
	char err[SP_OPT_ERRLEN];
	int next, ret;

	if (!strcmp(argv[1], "show")) {
		ret = sp_opt_parse_argv(show_opts_table, o, argc, argv, 3,
					&next, err, sizeof(err));
		if (ret || next != argc) {
			sp_err("topo show: %s", ret ? err : "unexpected argument");
			return SP_EXIT_USAGE;
		}
		if (o->lab && o->unit_ns > 0) {
			sp_err("topo show: --unit and --lab contradict each other");
			return SP_EXIT_USAGE;
		}
	} else if (!strcmp(argv[1], "table")) {
		ret = sp_opt_parse_argv(table_opts_table, to, argc, argv, 3,
					&next, err, sizeof(err));
		if (ret || next != argc) {
			sp_err("topo table: %s", ret ? err : "unexpected argument");
			return SP_EXIT_USAGE;
		}
	} else if (argc != 3) {
		sp_err("topo check takes one FILE or NAME, got '%s' too",
		       argv[3]);
		return SP_EXIT_USAGE;
	}
	return 0;
}

int cmd_topo(int argc, char **argv)
{
	struct show_opts o = { 0 };
	struct table_opts to = { 0 };
	struct sp_topo *t;
	int ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	if (!strcmp(argv[1], "list")) {
		if (argc != 2) {
			sp_err("topo list takes no arguments");
			return SP_EXIT_USAGE;
		}
		return sp_exit_from_errno(sp_topo_list(stdout));
	}
	if (strcmp(argv[1], "check") && strcmp(argv[1], "show") &&
	    strcmp(argv[1], "table")) {
		sp_err("unknown topo subcommand '%s' (check, show, table, list)",
		       argv[1]);
		return SP_EXIT_USAGE;
	}
	if (argc < 3) {
		sp_err("topo %s needs a FILE or NAME", argv[1]);
		return SP_EXIT_USAGE;
	}
	ret = parse_opts(argc, argv, &o, &to);
	if (ret)
		return ret;
	t = malloc(sizeof(*t));
	if (!t)
		return SP_EXIT_RUNTIME;
	ret = load(argv[2], t);
	if (!ret && !strcmp(argv[1], "show"))
		ret = sp_topo_show(stdout, t, o.unit_ns, o.lab);
	else if (!ret && !strcmp(argv[1], "table"))
		ret = sp_topo_table(stdout, t, to.devs, to.selector, to.size_bytes);
	else if (!ret && !(ret = sp_topo_check_resolves(t)))
		printf("%s: ok, %zu paths\n", t->file, t->npaths);
	free(t);
	/* a topology that does not parse is bad input, whatever the errno */
	if (ret == -ENOENT)
		return SP_EXIT_USAGE;
	return ret ? sp_exit_from_errno(ret == -ERANGE ? -EINVAL : ret) : 0;
}
