# What a case measured: /proc/diskstats deltas, fio's JSON, the case
# model saved as JSON, shares and the comparisons built on them.
LIB_SRCS += harness/measure/diskstats.c harness/measure/fio_json.c \
	    harness/measure/case_result.c harness/measure/case_read.c \
	    harness/measure/shares.c \
	    harness/measure/case_env.c harness/measure/timeline.c \
	    harness/measure/timeline_tsv.c \
	    harness/measure/timeline_metrics.c harness/measure/case_faults.c \
	    harness/measure/timeline_nvme.c \
	    harness/measure/result_file.c
UNIT_TESTS += tests/unit/harness/measure/test_shares.c \
	      tests/unit/harness/measure/test_diskstats.c \
	      tests/unit/harness/measure/test_fio_json.c \
	      tests/unit/harness/measure/test_case_env.c \
	      tests/unit/harness/measure/test_timeline.c \
	      tests/unit/harness/measure/test_timeline_bounds.c
LIB_SRCS += harness/measure/compare.c
UNIT_TESTS += tests/unit/harness/measure/test_compare.c
