/* `slowpath reproduce nvme-latency-2025`: its options and one call
 * into harness/repro/repro_nvme.c, through the same bring-up and run as
 * the user's commands (repro_real.c). */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "harness/cli/repro_cli.h"
#include "harness/measure/case_result.h"
#include "harness/repro/repro_do.h"
#include "harness/repro/repro_nvme.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct nv_cli {
	const char *out, *data, *topology;
	int64_t ios, iodepth;
	int help;
};

static const struct sp_opt nv_table[] = {
	{ .name = "ios", .type = SP_OPT_INT, .def = "6000", .min = 100,
	  .max = 10000000, .offset = offsetof(struct nv_cli, ios),
	  .help = "I/Os per case (a count, so a run's length is the same on "
	  "exact time whatever the delays)" },
	{ .name = "iodepth", .type = SP_OPT_INT, .def = "32", .min = 1,
	  .max = 1024, .offset = offsetof(struct nv_cli, iodepth),
	  .help = "fio's iodepth (the table gives none)" },
	{ .name = "topology", .type = SP_OPT_STR, .def = "nvme2",
	  .offset = offsetof(struct nv_cli, topology),
	  .help = "the two paths: a name or file with transport = nvme-tcp" },
	{ .name = "out", .type = SP_OPT_STR,
	  .offset = offsetof(struct nv_cli, out),
	  .help = "the run and score.txt: a new or empty folder (default "
	  "build/reproduce/<UTC time>)" },
	{ .name = "data", .type = SP_OPT_STR,
	  .offset = offsetof(struct nv_cli, data),
	  .help = "the published table (default " SP_NVREF_DEFAULT_DATA ")" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct nv_cli, help) },
	SP_OPT_END,
};

static int nv_parse(int argc, char **argv, struct nv_cli *cli)
{
	char err[SP_OPT_ERRLEN], help[2048];
	int next;

	sp_opt_set_defaults(nv_table, cli);
	if (sp_opt_parse_argv(nv_table, cli, argc, argv, 2, &next, err,
			      sizeof(err))) {
		sp_err("reproduce nvme-latency-2025: %s", err);
		return SP_EXIT_USAGE;
	}
	if (next < argc) {
		sp_err("reproduce nvme-latency-2025: unexpected argument '%s'",
		       argv[next]);
		return SP_EXIT_USAGE;
	}
	if (cli->help) {
		sp_opt_help_argv(nv_table, help, sizeof(help));
		printf("usage: slowpath reproduce nvme-latency-2025 "
		       "[options]\n%s", help);
		return SP_EXIT_OK;
	}
	return -1;
}

int sp_cmd_reproduce_nvme(int argc, char **argv)
{
	struct nv_cli cli;
	struct sp_nvref_table pub;
	struct sp_repro_nvme_opts o;
	struct utsname u;
	char out[PATH_MAX], text[4096];
	int ret = nv_parse(argc, argv, &cli);

	if (ret >= 0)
		return ret;
	if (sp_nvref_load(cli.data ? cli.data : SP_NVREF_DEFAULT_DATA, &pub))
		return SP_EXIT_USAGE;
	if (geteuid() != 0) {
		sp_err("reproduce: needs root (it brings topologies up)");
		return SP_EXIT_ENV;
	}
	ret = sp_repro_pick_out(cli.out, 0, out, sizeof(out));
	if (ret)
		return ret;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	o.topology = cli.topology;
	o.ios = cli.ios;
	o.iodepth = cli.iodepth;
	o.kernel = u.release;
	ret = sp_repro_nvme_do(&sp_repro_real_ops, &o, &pub, out, text,
			       sizeof(text));
	if (ret)
		return ret == -EINVAL ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
	fputs(text, stdout);
	return SP_EXIT_OK;
}
