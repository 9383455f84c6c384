# The tgt "delay" backing store: pure parts (deadline queue, jitter,
# options) go into libslowpath for unit tests; the .so adds the tgt glue,
# built against the unpacked source of exactly the installed tgt.
DELAY_PURE_SRCS := tgt-backend/delayq.c tgt-backend/delay_servers.c tgt-backend/wakeup.c tgt-backend/jitter.c tgt-backend/delay_opts.c tgt-backend/delay_fault.c
DELAY_TGT_SRCS  := tgt-backend/bs_delay.c tgt-backend/delay_pool.c tgt-backend/delay_ctl.c
LIB_SRCS   += $(DELAY_PURE_SRCS)
UNIT_TESTS += tests/unit/tgt-backend/test_delayq.c tests/unit/tgt-backend/test_delay_opts.c \
	tests/unit/tgt-backend/test_jitter.c tests/unit/tgt-backend/test_wakeup.c \
	tests/unit/tgt-backend/test_delay_servers.c tests/unit/tgt-backend/test_delay_fault.c

BS_DELAY_SO := $(BUILD)/tgt-backend/bs_delay.so
BS_DELAY_COMMON := common/log.c common/units.c common/opttab.c common/file.c common/lat_hist.c \
	common/dist.c
# tgt's headers are not -Wall clean and use typeof; -isystem keeps our
# warnings strict for our own code only.
BS_DELAY_CFLAGS = $(SP_CFLAGS) -isystem $(TGT_SRC_DIR)/usr -Dtypeof=__typeof__ \
	-fvisibility=hidden -pthread
ALL_TARGETS += $(BS_DELAY_SO)

# (asan's tree shares the main one's: BUILD names where it is)
$(TGT_SRC_DIR)/.slowpath-version:
	BUILD=$(patsubst %/tgt-src,%,$(TGT_SRC_DIR)) bash mk/tgt-source.sh

$(BUILD)/obj/bs/%.o: %.c $(TGT_SRC_DIR)/.slowpath-version
	@mkdir -p $(@D)
	$(CC) $(BS_DELAY_CFLAGS) -c $< -o $@

# Only register_bs_module is visible: tgtd dlopens every store with
# RTLD_LOCAL, and our sp_* names must never meet anyone else's.
$(BS_DELAY_SO): $(patsubst %.c,$(BUILD)/obj/bs/%.o,$(DELAY_TGT_SRCS) $(DELAY_PURE_SRCS) $(BS_DELAY_COMMON))
	@mkdir -p $(@D)
	$(CC) -shared -pthread -o $@ $^ -lm

.PHONY: install-backend
install-backend: $(BS_DELAY_SO)
	mkdir -p /usr/lib/tgt/backing-store
	install -m 0644 $(BS_DELAY_SO) /usr/lib/tgt/backing-store/.bs_delay.so.new
	mv -f /usr/lib/tgt/backing-store/.bs_delay.so.new /usr/lib/tgt/backing-store/bs_delay.so
