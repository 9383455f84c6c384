CLI_SRCS += harness/slowpath.c harness/commands.c harness/probe.c
