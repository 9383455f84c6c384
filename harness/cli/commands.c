#include "harness/cli/commands.h"

#include "common/log.h"
#include "common/machine.h"
#include "harness/boots/boots.h"

#include <stddef.h>
#include <string.h>

int sp_cli_args_only;

int sp_cli_default_jobs(const char *who)
{
	int n;

	if (sp_machine_in_lab() || sp_cli_native_ok())
		return 0;
	n = sp_boots_default_jobs();
	sp_info("%s: --jobs %d, the cores here: exact-time guests side by "
		"side (--jobs N says otherwise)", who, n);
	return n;
}

static int word_given(int argc, char **argv, const char *opt)
{
	size_t n = strlen(opt);
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], opt) ||
		    (!strncmp(argv[i], opt, n) && argv[i][n] == '='))
			return 1;
	return 0;
}

int sp_cli_boots_own(int argc, char **argv)
{
	if (!strcmp(argv[0], "run"))
		return word_given(argc, argv, "--topology") &&
		       !word_given(argc, argv, "--kernels");
	return !strcmp(argv[0], "reproduce") && argc > 1 &&
	       (!strcmp(argv[1], "hst-vs-st-2020") ||
		!strcmp(argv[1], "hst-cover-2020")) &&
	       !word_given(argc, argv, "--report-only");
}

const struct sp_command sp_commands[] = {
	{ "probe", cmd_probe, "measure an iSCSI LUN from userspace (libiscsi)" },
	{ "lab", cmd_lab, "the lab VM: start, stop, status; run a command or a shell in it" },
	{ "doctor", cmd_doctor, "list which kernel pieces and programs are here" },
	{ "reference", cmd_reference, "the published 2020 HST vs ST numbers and the unit fit" },
	{ "reproduce", cmd_reproduce, "run a published experiment again (HST vs ST 2020, nvme-latency-2025) and score it" },
	{ "topo", cmd_topo, "check, show and list path topologies" },
	{ "netem", cmd_netem, "set, show or clear netem delay on an interface" },
	{ "report", cmd_report, "render a saved run again: tables, ST vs HST, plots" },
	{ "run", cmd_run, "fio matrices on the topology that is up, ST vs HST" },
	{ "up", cmd_up, "set a topology up: netns, tgtd, iSCSI, multipath map" },
	{ "down", cmd_down, "tear down what up made (also after a crash)" },
	{ "status", cmd_status, "the topology that is up, multipath -ll style" },
	{ "selector", cmd_selector, "switch the running map's path selector" },
	{ "delay", cmd_delay, "change one running path's delay" },
	{ "fault", cmd_fault, "fail, hang, slow or restore one running path" },
	{ NULL, NULL, NULL },
};
