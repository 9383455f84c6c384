/* slowpath run: fio matrices on the topology that is up. The option
 * table (harness/run/run_matrix.h), --fault's repeats, the usage, and
 * one call: into the run room (run_do.h), or for --jobs and --kernels
 * into the lab boots (harness/boots/boots.h). */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "harness/boots/boots.h"
#include "harness/cli/commands.h"
#include "harness/run/run_do.h"
#include "harness/run/run_matrix.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	char help[4096];

	sp_opt_help_argv(sp_run_cli_table, help, sizeof(help));
	fprintf(out, "usage: slowpath run [--selectors st,hst] [--rw read,...] "
		"[--iodepth 1,2,32,64] [--bs 4k]\n"
		"                     [--numjobs 1] [--size 500M | --ios N | "
		"--runtime S] [--job FILE]\n"
		"                     [--out DIR] [--json] [--verify] [--timeline] "
		"[--warmup S]\n"
		"                     [--fault \"at=10s path=p2 how=hang "
		"for=20s\" ...]\n"
		"Runs fio on the map of the topology that is up ('slowpath "
		"up'), once per\nselector x rw x bs x iodepth, switching the "
		"selector live between cases.\nSaves every case under --out; "
		"'slowpath report DIR' renders them again.\n"
		"--fault (up to %d, repeatable) breaks a path in every case, "
		"timed from fio's\nstart; words: at= path= how=hang|reset|"
		"blackhole|down|error|flap|slow|ana|restore\nfor= rate= sense= "
		"period= factor= state= (docs/faults.md). With --fault or --verify\n"
		"fio counts errors and goes on; any error makes the run exit 3."
		"\n\n%s", SP_FAULT_MAX, help);
}

/* Whether argv says how a case ends. */
static int ends_given(int argc, char **argv)
{
	static const char *const enders[] = { "--size", "--ios", "--runtime",
					      "--job" };
	size_t k, n;
	int i;

	for (i = 1; i < argc; i++)
		for (k = 0; k < sizeof(enders) / sizeof(enders[0]); k++) {
			n = strlen(enders[k]);
			if (!strncmp(argv[i], enders[k], n) &&
			    (argv[i][n] == '\0' || argv[i][n] == '='))
				return 1;
		}
	return 0;
}

/* --fault SPEC and --fault=SPEC, any number of them, taken out of argv
 * before the option table (which holds one value per option) sees it;
 * each parsed now, so a bad one changes nothing. */
static int take_faults(int *argc, char **argv, struct sp_run_cli *cli)
{
	char err[256];
	const char *spec;
	int i, j = 1;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[j++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "--fault") &&
		    strncmp(argv[i], "--fault=", 8)) {
			argv[j++] = argv[i];
			continue;
		}
		spec = argv[i][7] == '=' ? argv[i] + 8 : NULL;
		if (!spec && i + 1 >= *argc) {
			sp_err("run: --fault needs a spec, e.g. \"at=10s "
			       "path=p2 how=hang for=20s\"");
			return SP_EXIT_USAGE;
		}
		if (!spec)
			spec = argv[++i];
		if (cli->n_faults == SP_FAULT_MAX) {
			sp_err("run: more than %d --fault", SP_FAULT_MAX);
			return SP_EXIT_USAGE;
		}
		if (sp_fault_parse(spec, &cli->faults[cli->n_faults], err,
				   sizeof(err))) {
			sp_err("run: --fault '%s': %s", spec, err);
			return SP_EXIT_USAGE;
		}
		cli->n_faults++;
	}
	*argc = j;
	argv[j] = NULL;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct sp_run_cli cli;
	char err[SP_RUN_ERRLEN];
	int next, ret, code;

	memset(&cli, 0, sizeof(cli));
	sp_opt_set_defaults(sp_run_cli_table, &cli);
	code = take_faults(&argc, argv, &cli);
	if (code)
		return code;
	ret = sp_opt_parse_argv(sp_run_cli_table, &cli, argc, argv, 1, &next,
				err, sizeof(err));
	if (ret) {
		sp_err("run: %s", err);
		return SP_EXIT_USAGE;
	}
	if (cli.help) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (next < argc) {
		sp_err("run: unexpected argument '%s' (see --help)", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (cli.jobs < 0)	/* not given: sp_cli_boots_own's case */
		cli.jobs = cli.topology && !cli.kernels ? sp_cli_default_jobs("run")
							: 0;
	if (cli.jobs)
		return sp_boots_run_jobs(&cli, argc, argv);
	if (cli.kernels)
		return sp_boots_run_kernels(&cli, argc, argv);
	if (cli.topology || cli.unit) {
		sp_err("run: --topology and --unit go with --kernels or --jobs "
		       "(otherwise 'slowpath up' the topology first)");
		return SP_EXIT_USAGE;
	}
	return sp_do_run(&cli, ends_given(argc, argv), sp_cli_args_only);
}

