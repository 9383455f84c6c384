# Fuzz targets (docs/fuzzing.md): every parser of outside input under
# libFuzzer with ASan and UBSan. clang builds its own copy of the library
# objects, instrumented, under $(BUILD)/fuzz; the gcc build is untouched.
#   make fuzz [FUZZ_S=10]   build every target, run each FUZZ_S seconds
#   make fuzz-build         only build them
FUZZ_CC      ?= clang
FUZZ_S       ?= 10
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS   = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP -I. \
		$(PKG_CFLAGS) -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN)
FUZZ_TARGET_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS := $(FUZZ_TARGET_SRCS:tests/fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_LIB     := $(FUZZ_DIR)/libslowpath-fuzz.a

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_TARGETS)

fuzz: $(FUZZ_TARGETS)
	BUILD=$(BUILD) bash tests/fuzz/run.sh $(FUZZ_S) $(notdir $(FUZZ_TARGETS))

# Library objects: coverage for the fuzzer, no libFuzzer main.
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# An archive, so each target links only the objects it calls into.
# Second expansion: rooms included after this file add to LIB_SRCS too.
.SECONDEXPANSION:
FUZZ_LIB_OBJS = $(LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
$(FUZZ_LIB): $$(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDLIBS)

-include $(shell find $(FUZZ_DIR) -name '*.d' 2>/dev/null)
