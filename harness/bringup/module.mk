# up/down/status/selector/delay: journal, plan, effects behind sp_sys_ops
LIB_SRCS += harness/bringup/state_parse.c harness/bringup/state_file.c \
	    harness/bringup/state_lookup.c \
	    harness/bringup/state_fmt.c harness/bringup/bringup_plan.c \
	    harness/bringup/bringup_sys.c harness/bringup/bringup_up.c \
	    harness/bringup/bringup_down.c harness/bringup/bringup_status.c \
	    harness/bringup/bringup_live.c \
	    harness/bringup/bringup_chap.c harness/bringup/bringup_preflight.c \
	    harness/bringup/bringup_pids.c harness/bringup/bringup_sys_proc.c \
	    harness/bringup/state_compact.c harness/bringup/lock.c \
	    harness/bringup/state_failover.c harness/bringup/bringup_failover.c \
	    harness/bringup/state_nvme.c harness/bringup/bringup_nvme.c \
	    harness/bringup/bringup_nvme_down.c \
	    harness/bringup/nvmet_plan.c harness/bringup/nvmet_sys.c \
	    harness/bringup/nvme_serial.c \
	    harness/bringup/bringup_hst.c harness/bringup/calib.c \
	    harness/bringup/bringup_do.c \
	    harness/bringup/tgt_mgmt.c harness/bringup/tgt_mgmt_wire.c
# tgtd's management socket carries tgt's own struct (tgtadm.h), in the
# gcc build, the unit test and the fuzz build's copy (tests/fuzz)
TGT_WIRE_OBJS := $(BUILD)/obj/harness/bringup/tgt_mgmt_wire.o \
		 $(BUILD)/obj/tests/unit/harness/bringup/test_tgt_mgmt_wire.o
TGT_WIRE_FUZZ_OBJ := $(BUILD)/fuzz/obj/harness/bringup/tgt_mgmt_wire.o
$(TGT_WIRE_OBJS): SP_CFLAGS += -isystem $(TGT_SRC_DIR)/usr
$(TGT_WIRE_FUZZ_OBJ): FUZZ_CFLAGS += -isystem $(TGT_SRC_DIR)/usr
$(TGT_WIRE_OBJS) $(TGT_WIRE_FUZZ_OBJ): $(TGT_SRC_DIR)/.slowpath-version
UNIT_TESTS += tests/unit/harness/bringup/test_state.c \
	      tests/unit/harness/bringup/test_bringup.c \
	      tests/unit/harness/bringup/test_bringup_live.c \
	      tests/unit/harness/bringup/test_bringup_sys.c \
	      tests/unit/harness/bringup/test_bringup_chap.c \
	      tests/unit/harness/bringup/test_bringup_down.c \
	      tests/unit/harness/bringup/test_lock.c \
	      tests/unit/harness/bringup/test_bringup_scale.c \
	      tests/unit/harness/bringup/test_calib.c \
	      tests/unit/harness/bringup/test_nvmet.c
# the mock system of sp_sys_ops, one copy for every test that uses it
BRINGUP_MOCK := tests/unit/harness/bringup/bringup_mock.c tests/unit/harness/bringup/bringup_mock_kernel.c \
		tests/unit/harness/bringup/bringup_mock_files.c
$(foreach t,test_bringup test_bringup_live test_bringup_down \
	    test_bringup_scale test_bringup_chap,\
	$(eval MOCKS_harness/bringup/$(t) += $(BRINGUP_MOCK)))
# make topology-equal3|skew4|u10 [UP_ARGS='--selector hst'] [TRANSPORT=nvme-tcp] and
# topology-down: natively when root and the kernel stack are here (the
# lab guest counts), otherwise in the running lab (slowpath lab start).
# With no lab running, an up starts one and leaves it up (stopping it
# would take the topology with it); a down has nothing to take down.
TOPOLOGIES_UP := topology-equal3 topology-skew4 topology-u10
.PHONY: $(TOPOLOGIES_UP) topology-down
$(TOPOLOGIES_UP) topology-down: $(SLOWPATH)
	@if ! $(SLOWPATH) doctor --quiet --native && \
	    ! $(SLOWPATH) lab status --quiet; then \
		if [ $@ = topology-down ]; then \
			echo "$@: no lab is running, so no topology is up"; exit 0; \
		fi; \
		echo "$@: this host lacks the kernel stack; starting the lab" \
		     "(it stays up: '$(SLOWPATH) lab stop' ends it)"; \
		if [ -z "$$SLOWPATH_LAB_DIR" ]; then $(MAKE) -s lab || exit $$?; fi; \
		$(SLOWPATH) lab start || exit $$?; \
	fi; \
	if [ $@ = topology-down ]; then $(SLOWPATH) down; \
	else $(SLOWPATH) up $(@:topology-%=%) $(if $(TRANSPORT),--transport $(TRANSPORT)) \
		$(UP_ARGS) && $(SLOWPATH) status; fi
