/* slowpath fault PATH HOW [--for D] [--rate R] [--sense S] [--period P]
 * [--factor F] [--state S] and slowpath fault PATH restore: the options, the spec
 * they make (harness/fault/fault.h), and one call into the fault room
 * (fault_do.h). */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "common/strbuf.h"
#include "harness/bringup/bringup.h"
#include "harness/cli/commands.h"
#include "harness/fault/fault_do.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct fault_cli {
	const char *for_, *rate, *sense, *period, *factor, *state;
};

#define F(f) offsetof(struct fault_cli, f)
static const struct sp_opt fault_table[] = {
	{ .name = "for", .type = SP_OPT_STR, .offset = F(for_),
	  .help = "wait this long (e.g. 20s), then restore; without it the "
	  "fault stays until 'slowpath fault PATH restore' or down" },
	{ .name = "rate", .type = SP_OPT_STR, .offset = F(rate),
	  .help = "error: share of commands failed, above 0 and at most 1 "
	  "(default 1)" },
	{ .name = "sense", .type = SP_OPT_STR, .offset = F(sense),
	  .help = "error: medium (03/11/00), not-ready (02/04/00), aborted "
	  "(0b/00/00) or hardware (04/44/00); default medium" },
	{ .name = "period", .type = SP_OPT_STR, .offset = F(period),
	  .help = "flap: each down and each up lasts this (default 5s)" },
	{ .name = "factor", .type = SP_OPT_STR, .offset = F(factor),
	  .help = "slow: the path's delay times this (default 10)" },
	{ .name = "state", .type = SP_OPT_STR, .offset = F(state),
	  .help = "ana (nvme-tcp): optimized, non-optimized or inaccessible "
	  "(default inaccessible)" },
	SP_OPT_END,
};
#undef F

static void usage(FILE *out)
{
	char help[2048];

	sp_opt_help_argv(fault_table, help, sizeof(help));
	fprintf(out, "usage: slowpath fault PATH HOW [--for DURATION] [--rate R] "
		"[--sense S] [--period P] [--factor F] [--state S]\n"
		"       slowpath fault PATH restore\n"
		"PATH is a path's label, number or disk. HOW: hang (the target "
		"stops answering),\nreset (its tgtd killed, started again on "
		"restore), blackhole (every packet lost),\ndown (the link), "
		"error (the store fails commands), flap (down/up every period),\n"
		"slow (the delay times factor), ana (nvme-tcp: the path's ANA state).\n"
		"nvme-tcp paths take down, blackhole, flap, slow and ana. See "
		"docs/faults.md.\noptions:\n%s",
		help);
}

/* The words of the command line as one spec, each value one word. */
static int build_spec(const char *path, const char *how,
		      const struct fault_cli *c, char *buf, size_t len)
{
	const char *keys[] = { "for", "rate", "sense", "period", "factor",
			       "state" };
	const char *vals[] = { c->for_, c->rate, c->sense, c->period,
			       c->factor, c->state };
	struct sp_strbuf o = SP_STRBUF(buf, len);
	size_t i;

	if (strpbrk(path, " \t\n=") || strpbrk(how, " \t\n=")) {
		sp_err("fault: '%s %s': a path or HOW is one word", path, how);
		return -EINVAL;
	}
	sp_strbuf_printf(&o, "path=%s how=%s", path, how);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!vals[i])
			continue;
		if (!*vals[i] || strpbrk(vals[i], " \t\n=")) {
			sp_err("fault: --%s '%s' is not one value", keys[i],
			       vals[i]);
			return -EINVAL;
		}
		sp_strbuf_printf(&o, " %s=%s", keys[i], vals[i]);
	}
	if (o.overflow) {
		sp_err("fault: arguments too long");
		return -EINVAL;
	}
	return 0;
}

int cmd_fault(int argc, char **argv)
{
	struct fault_cli cli = { 0 };
	struct sp_fault f;
	char spec[512], err[SP_BRINGUP_ERRLEN];
	int next, ret;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		usage(stderr);
		return SP_EXIT_USAGE;
	}
	ret = sp_opt_parse_argv(fault_table, &cli, argc, argv, 3, &next, err,
				sizeof(err));
	if (ret || next != argc) {
		if (ret)
			sp_err("fault: %s", err);
		else
			sp_err("fault: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (build_spec(argv[1], argv[2], &cli, spec, sizeof(spec)))
		return SP_EXIT_USAGE;
	if (sp_fault_parse(spec, &f, err, sizeof(err))) {
		sp_err("fault: %s", err);
		return SP_EXIT_USAGE;
	}
	if (sp_cli_args_only)
		return SP_EXIT_OK;
	return sp_do_fault(&f, cli.for_ != NULL);
}
