# netem over libnl-route-3: its words (parse, validate, emit), the ops
# and one request carried out through them; and the one owner of links,
# addresses and named namespaces (net.h: net_nl.c, netns.c).
LIB_SRCS += netem/netem_words.c netem/netem_nl.c netem/netem_run.c \
	    netem/net_nl.c netem/netns.c
UNIT_TESTS += tests/unit/netem/test_netem.c
