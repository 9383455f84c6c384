CLI_SRCS += lab/lab_cmd.c lab/lab_proc.c
CLI_SRCS += lab/doctor.c
LIB_SRCS += lab/doctor_check.c
UNIT_TESTS += tests/unit/test_doctor.c
LIB_SRCS += lab/lab_vm.c
UNIT_TESTS += tests/unit/test_lab_vm.c

# The lab VM (docs/lab.md). Both scripts are cheap when nothing changed.
.PHONY: lab hst-module
lab:
	BUILD=$(BUILD) bash lab/prepare.sh

hst-module:
	BUILD=$(BUILD) bash lab/hst-module.sh

.PHONY: bench-lab
bench-lab: $(SLOWPATH) lab
	BUILD=$(BUILD) bash lab/bench.sh
