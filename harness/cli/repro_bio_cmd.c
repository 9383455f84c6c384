/* `slowpath reproduce hst-bio-2022`: the options of the bio-based HST
 * experiment (harness/repro/repro_bio.h), run through the real effects
 * the other reproductions use (repro_real.c). */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/machine.h"
#include "common/opttab.h"
#include "common/outdir.h"
#include "harness/cli/repro_cli.h"
#include "harness/repro/repro_bio.h"
#include "harness/repro/repro_do.h"
#include "harness/repro/repro_plan.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct bio_cli {
	const char *out, *data;
	int64_t ios, runtime_s, warmup_s;
	int report_only, help;
};

#define B(f) offsetof(struct bio_cli, f)
static const struct sp_opt bio_table[] = {
	{ .name = "ios", .type = SP_OPT_INT, .def = "20000", .min = 100,
	  .max = 10000000, .offset = B(ios),
	  .help = "exact time (uml lab): I/Os per run" },
	{ .name = "runtime", .type = SP_OPT_INT, .def = "10", .min = 1,
	  .max = 3600, .offset = B(runtime_s),
	  .help = "seconds per run where time is not exact" },
	{ .name = "warmup", .type = SP_OPT_INT, .def = "-1", .min = -1,
	  .max = 3600, .offset = B(warmup_s),
	  .help = "seconds of HST's workload before each HST run, not "
	  "measured; -1: 20, 5 on exact time" },
	{ .name = "out", .type = SP_OPT_STR, .offset = B(out),
	  .help = "report and runs: a new or empty folder (default "
	  "build/reproduce/<UTC time>)" },
	{ .name = "data", .type = SP_OPT_STR, .offset = B(data),
	  .help = "the published table (default " SP_BIO_DEFAULT_DATA ")" },
	{ .name = "report-only", .type = SP_OPT_BOOL, .offset = B(report_only),
	  .help = "write report.md again from the runs in --out" },
	{ .name = "help", .type = SP_OPT_BOOL, .offset = B(help) },
	SP_OPT_END,
};
#undef B

static int parse(int argc, char **argv, struct bio_cli *cli)
{
	char err[256], help[2048];
	int next;

	sp_opt_set_defaults(bio_table, cli);
	if (sp_opt_parse_argv(bio_table, cli, argc, argv, 2, &next, err,
			      sizeof(err))) {
		sp_err("reproduce hst-bio-2022: %s", err);
		return SP_EXIT_USAGE;
	}
	if (cli->help) {
		sp_opt_help_argv(bio_table, help, sizeof(help));
		printf("usage: slowpath reproduce hst-bio-2022 [options]\n%s", help);
		return SP_EXIT_OK;
	}
	if (next < argc) {
		sp_err("reproduce hst-bio-2022: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (cli->ios != SP_REPRO_EXACT_IOS && !sp_machine_exact_time()) {
		sp_err("reproduce hst-bio-2022: --ios %lld: runs are counted in "
		       "I/Os only on exact time (the uml lab); here: --runtime",
		       (long long)cli->ios);
		return SP_EXIT_USAGE;
	}
	return -1;
}

int sp_cmd_reproduce_bio(int argc, char **argv)
{
	struct bio_cli cli = { 0 };
	struct sp_bio_table pub;
	struct sp_repro_real_ctx ctx = { 0 };
	struct sp_repro_ops ops = sp_repro_real_ops;
	struct sp_repro_bio_opts o = { 0 };
	struct sp_repro_opts ro = { 0 };
	char out[PATH_MAX], mode[160], host[160];
	int ret = parse(argc, argv, &cli);

	if (ret >= 0)
		return ret;
	ops.ctx = &ctx;
	if (sp_bio_load(cli.data ? cli.data : SP_BIO_DEFAULT_DATA, &pub))
		return SP_EXIT_USAGE;
	ret = sp_repro_pick_out(cli.out, cli.report_only, out, sizeof(out));
	if (ret)
		return ret;
	ro.exact_time = sp_machine_exact_time();
	ro.warmup_s = cli.warmup_s;
	sp_repro_here(mode, sizeof(mode), host, sizeof(host));
	o.ios = ro.exact_time ? cli.ios : 0;
	o.runtime_s = cli.runtime_s;
	o.warmup_s = sp_repro_warmup_s(&ro);
	o.host = host;
	if (cli.report_only)
		return sp_repro_bio_report(&ops, &o, &pub, out, -1, NULL)
			? SP_EXIT_RUNTIME : SP_EXIT_OK;
	if (geteuid() != 0) {
		sp_err("reproduce hst-bio-2022: needs root (it brings a topology up)");
		return SP_EXIT_ENV;
	}
	ret = sp_repro_bio(&ops, &o, &pub, out, NULL);
	return ret ? SP_EXIT_RUNTIME : SP_EXIT_OK;
}
