# boots: run --kernels, run --jobs and reproduce --jobs, one run in several lab boots
# (docs/run.md): each guest's command line, the merge of their cases,
# the one report. Over harness/run, harness/report and lab/.
LIB_SRCS += harness/boots/boots.c harness/boots/boots_kernels.c \
	    harness/boots/boots_jobs.c harness/boots/boots_repro.c \
	    harness/boots/boots_hstfit.c
UNIT_TESTS += tests/unit/harness/boots/test_boots.c
