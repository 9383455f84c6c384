# netem over libnl-route-3: its words (parse, validate, emit), the ops
# and one request carried out through them.
LIB_SRCS += netem/netem_words.c netem/netem_nl.c netem/netem_run.c
UNIT_TESTS += tests/unit/netem/test_netem.c
