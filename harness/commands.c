#include "harness/commands.h"

#include <stddef.h>

const struct sp_command sp_commands[] = {
	{ "probe", cmd_probe, "measure an iSCSI LUN from userspace (libiscsi)" },
	{ "lab", cmd_lab, "run a command or a shell in the lab VM" },
	{ "doctor", cmd_doctor, "list which kernel pieces and programs are here" },
	{ NULL, NULL, NULL },
};
