# Topology files, their parser and `slowpath topo`; the dm multipath
# table text lives in harness/ because `up` and `status` share it.
LIB_SRCS += harness/dm_table.c topologies/topo_parse.c topologies/topo_resolve.c \
	topologies/topo_addr.c topologies/topo_check.c
CLI_SRCS += topologies/topo_cmd.c
UNIT_TESTS += tests/unit/test_dm_table.c tests/unit/test_topo.c
