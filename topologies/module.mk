# Topology files and their parser; `slowpath topo` is in harness/cli.
LIB_SRCS += topologies/topo_parse.c topologies/topo_resolve.c \
	topologies/topo_addr.c topologies/topo_check.c topologies/topo_initiator.c
UNIT_TESTS += tests/unit/topologies/test_topo.c \
	tests/unit/topologies/test_topo_limits.c \
	tests/unit/topologies/test_topo_initiator.c
