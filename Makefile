# slowpath: see README.md. Each component adds its sources in its own
# module.mk; this file only knows how to compile, link and test them.

BUILD    ?= build
# Debian's source of the installed tgt, unpacked for its headers
# (mk/tgt-source.sh): the backing store and tgtd's management socket are
# built against exactly what tgtd was built from.
TGT_SRC_DIR ?= $(BUILD)/tgt-src
CC       ?= cc
CFLAGS   ?= -O2 -g
# Libraries every component may use; make deps installs them.
PKG_MODULES := json-c libiscsi libnl-route-3.0 devmapper cmocka

PKG_CFLAGS := $(shell pkg-config --cflags $(PKG_MODULES) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(filter-out cmocka,$(PKG_MODULES)) 2>/dev/null)

SP_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -MMD -MP \
	    -I. $(PKG_CFLAGS) $(CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm

LIB_SRCS    :=
CLI_SRCS    :=
UNIT_TESTS  :=
ALL_TARGETS :=

# module.mk files define targets of their own; none of them is the default
.DEFAULT_GOAL := all
include $(sort $(wildcard */module.mk */*/module.mk))
# Every unit test file is built and run, listed in a module.mk or not: a
# list kept by hand let a new test go unbuilt. Its --wrap mocks stay in
# its room's module.mk as WRAP_<test name>.
UNIT_TESTS := $(sort $(UNIT_TESTS) $(wildcard tests/unit/*/test_*.c tests/unit/*/*/test_*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_BINS := $(UNIT_TESTS:%.c=$(BUILD)/%)
LIBSLOWPATH := $(BUILD)/libslowpath.a
SLOWPATH := $(BUILD)/slowpath

.PHONY: all deps check check-asan asan-tests unit-tests test demo reproduce clean install uninstall
all: $(SLOWPATH) $(ALL_TARGETS)

deps:
	bash mk/deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(SP_CFLAGS) -c $< -o $@

$(LIBSLOWPATH): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(SLOWPATH): $(CLI_OBJS) $(LIBSLOWPATH)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(LIBSLOWPATH) $(LDLIBS)

# A unit test links the library plus whatever --wrap mocks its
# component declares as WRAP_<test name>, and the mock sources it shares
# with other tests as MOCKS_<test name> (each compiled once, as a
# library source is).
unit_mock_objs = $(addprefix $(BUILD)/obj/,$(MOCKS_$(1):.c=.o))
.SECONDEXPANSION:
$(UNIT_BINS): $(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o \
		$$(call unit_mock_objs,$$*) $(LIBSLOWPATH)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(call unit_mock_objs,$*) $(WRAP_$*) \
		$(LIBSLOWPATH) -lcmocka $(LDLIBS)

unit-tests: $(UNIT_BINS)

check: $(UNIT_BINS)
	tests/run unit

# make check-asan: the unit tests built and run under ASan and UBSan,
# any finding fatal, in a tree of their own so the normal build stays
# as it is.
ASAN_BUILD := $(BUILD)/asan
ASAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	       -fno-sanitize-recover=all
asan-tests:
	$(MAKE) -s -j$$(nproc) BUILD=$(ASAN_BUILD) TGT_SRC_DIR=$(TGT_SRC_DIR) \
		CFLAGS='$(ASAN_CFLAGS)' unit-tests

check-asan:
	tests/run asan

# tgtd loads stores only from /usr/lib/tgt/backing-store, and the lab
# guest sees this host's root: install ours before the suites need it.
test: all $(UNIT_BINS)
	@if [ "$$(id -u)" = 0 ]; then $(MAKE) -s install-backend; fi
	tests/run unit asan host lab

demo:
	bash mk/demo.sh

reproduce: all
	bash mk/reproduce.sh

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary, the man
# page and bash completion under PREFIX; our tgt backing store where
# tgtd loads stores from (/usr/lib/tgt/backing-store, whatever PREFIX).
# The lab stays in the build tree: the installed binary finds it through
# SLOWPATH_LAB_DIR (docs/lab.md).
PREFIX ?= /usr/local
BINDIR  = $(DESTDIR)$(PREFIX)/bin
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
COMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
TGT_BS_DIR = $(DESTDIR)/usr/lib/tgt/backing-store
install: $(SLOWPATH) $(BS_DELAY_SO)
	install -D -m 0755 $(SLOWPATH) $(BINDIR)/slowpath
	install -D -m 0644 $(BS_DELAY_SO) $(TGT_BS_DIR)/bs_delay.so
	install -D -m 0644 docs/slowpath.1 $(MAN1DIR)/slowpath.1
	install -D -m 0644 docs/completion/slowpath.bash $(COMPDIR)/slowpath

uninstall:
	rm -f $(BINDIR)/slowpath $(TGT_BS_DIR)/bs_delay.so \
	      $(MAN1DIR)/slowpath.1 $(COMPDIR)/slowpath

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
