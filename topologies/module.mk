# Topology files, their parser and what `slowpath topo` prints of them
# (its options are in harness/cli).
LIB_SRCS += topologies/topo_parse.c topologies/topo_resolve.c \
	topologies/topo_addr.c topologies/topo_check.c topologies/topo_initiator.c \
	topologies/topo_show.c
UNIT_TESTS += tests/unit/topologies/test_topo.c \
	tests/unit/topologies/test_topo_limits.c \
	tests/unit/topologies/test_topo_initiator.c \
	tests/unit/topologies/test_topo_transport.c
