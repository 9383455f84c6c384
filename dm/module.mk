# The dm multipath table text and the one selector table: shared by
# topologies/ (which selector a file names) and harness/ (the map).
LIB_SRCS += dm/dm_table.c dm/selector.c dm/selector_src.c
UNIT_TESTS += tests/unit/dm/test_dm_table.c tests/unit/dm/test_selector.c tests/unit/dm/test_selector_src.c
