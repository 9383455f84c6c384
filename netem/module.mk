# netem over libnl-route-3 and `slowpath netem`.
LIB_SRCS += netem/netem_spec.c netem/netem_nl.c netem/netem_run.c
CLI_SRCS += netem/netem_cmd.c
UNIT_TESTS += tests/unit/test_netem.c
