LIB_SRCS += lab/lab_kept.c lab/lab_fetch.c lab/lab_vm.c lab/lab_uml.c lab/lab_sandbox.c lab/lab_keep.c lab/lab_proc.c lab/doctor_check.c lab/hst_info.c \
	    lab/lab_frame.c lab/lab_ctl.c lab/lab_files.c lab/lab_agent.c lab/lab_agent_walk.c lab/selector_build.c lab/lab_layout.c \
	    lab/lab_engine.c lab/lab_engine_qemu.c lab/lab_engine_uml.c lab/lab_guest.c lab/lab_start.c lab/lab_forward.c lab/lab_umlsup.c lab/lab_umlrelay.c lab/lab_agent_line.c lab/lab_status.c
UNIT_TESTS += tests/unit/lab/test_doctor.c tests/unit/lab/test_lab_vm.c tests/unit/lab/test_lab_uml.c tests/unit/lab/test_lab_keep.c tests/unit/lab/test_lab_sandbox.c tests/unit/lab/test_hst_info.c \
	      tests/unit/lab/test_lab_frame.c tests/unit/lab/test_lab_kept_frame.c tests/unit/lab/test_lab_kept.c tests/unit/lab/test_lab_fetch.c tests/unit/lab/test_lab_ctl.c tests/unit/lab/test_selector_load.c tests/unit/lab/test_lab_agent.c tests/unit/lab/test_lab_layout.c tests/unit/lab/test_lab_engine.c tests/unit/lab/test_lab_forward.c tests/unit/lab/test_lab_umlrelay.c

# The lab VM (docs/lab.md, docs/kernels.md). Both scripts are cheap when
# nothing changed. KERNEL: the kernel series to prepare (6.1, 6.12).
# ENGINE: qemu (Debian's kernel under TCG), uml (the exact-time lab,
# built from the same source, which qemu's preparation brings), or all.
KERNEL ?= 6.1
ENGINE ?= all
.PHONY: lab hst-module
lab:
	@case "$(ENGINE)" in qemu|uml|all) ;; *) echo "make lab: ENGINE='$(ENGINE)': want qemu, uml or all" >&2; exit 1 ;; esac
	BUILD=$(BUILD) KERNEL=$(KERNEL) bash lab/prepare.sh
	@if [ "$(ENGINE)" != qemu ]; then BUILD=$(BUILD) KERNEL=$(KERNEL) bash lab/uml-build.sh; fi

hst-module:
	BUILD=$(BUILD) bash lab/hst-module.sh

# install-backend: its capacity pass runs through our store
.PHONY: bench-lab
bench-lab: $(SLOWPATH) lab install-backend
	BUILD=$(BUILD) bash lab/bench.sh
	SLOWPATH=$(SLOWPATH) bash lab/bench-engines.sh
	SLOWPATH=$(SLOWPATH) bash lab/bench-syscalls.sh

# What an I/O costs the uml guest on the host (wall, CPU, context
# switches) with fio's libaio and io_uring
.PHONY: bench-syscalls
bench-syscalls: $(SLOWPATH) lab install-backend
	SLOWPATH=$(SLOWPATH) bash lab/bench-syscalls.sh

# Our store, netem and dm-delay side by side in one lab boot
# (docs/bench-injectors.md). tgtd loads stores from the host's /usr,
# which the guest sees.
.PHONY: bench-injectors
bench-injectors: $(SLOWPATH) lab install-backend
	BUILD=$(BUILD) bash lab/bench-injectors.sh

# tests/lab/260's probe of the exact-time clock: a task that only reads it
LAB_CLOCK_SPIN := $(BUILD)/tests/lab/clock-spin
ALL_TARGETS += $(LAB_CLOCK_SPIN)
$(LAB_CLOCK_SPIN): tests/lab/clock-spin.c
	@mkdir -p $(@D)
	$(CC) $(SP_CFLAGS) -o $@ $<

# tests/lab/262's probe of the uml kernel's FP state: vector registers
# held across a yield and a fault, by threads of one process and another
LAB_FP_STATE := $(BUILD)/tests/lab/fp-state
ALL_TARGETS += $(LAB_FP_STATE)
$(LAB_FP_STATE): tests/lab/fp-state.c
	@mkdir -p $(@D)
	$(CC) $(SP_CFLAGS) -pthread -o $@ $<

# What a stop of a uml guest's process costs the host, with and without
# the FP state written back (lab/uml-patches.sh, fp-unchanged)
LAB_BENCH_PTRACE := $(BUILD)/lab/bench-ptrace
ALL_TARGETS += $(LAB_BENCH_PTRACE)
$(LAB_BENCH_PTRACE): lab/bench-ptrace.c
	@mkdir -p $(@D)
	$(CC) $(SP_CFLAGS) -o $@ $<

.PHONY: bench-ptrace
bench-ptrace: $(LAB_BENCH_PTRACE)
	$(LAB_BENCH_PTRACE)
