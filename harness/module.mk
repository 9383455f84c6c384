CLI_SRCS += harness/slowpath.c harness/commands.c harness/probe.c
LIB_SRCS += harness/shares.c
UNIT_TESTS += tests/unit/test_shares.c
