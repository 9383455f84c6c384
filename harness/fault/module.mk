# Faults on one path of a topology that is up (slowpath fault, run
# --fault): the spec grammar and the effects behind sp_sys_ops.
LIB_SRCS += harness/fault/fault.c harness/fault/fault_apply.c \
	    harness/fault/fault_own.c harness/fault/fault_do.c \
	    harness/fault/fault_nvme.c
UNIT_TESTS += tests/unit/harness/fault/test_fault.c \
	      tests/unit/harness/fault/test_fault_apply.c \
	      tests/unit/harness/fault/test_fault_own.c \
	      tests/unit/harness/fault/test_fault_nvme.c
# their sp_sys_ops mock is the bring-up tests' (harness/bringup/module.mk)
MOCKS_harness/fault/test_fault_apply += $(BRINGUP_MOCK)
MOCKS_harness/fault/test_fault_own += $(BRINGUP_MOCK)
MOCKS_harness/fault/test_fault_nvme += $(BRINGUP_MOCK)
