# Published references and how close a run comes to them.
LIB_SRCS += harness/repro/reference.c harness/repro/serial_fit.c harness/repro/ref_topology.c harness/repro/repro_compare.c \
	    harness/repro/repro_point.c \
	    harness/repro/repro_plan.c harness/repro/ref_cover_letter.c harness/repro/repro_scale.c \
	    harness/repro/repro_unscaled.c harness/repro/repro_scaled.c harness/repro/repro_report.c \
	    harness/repro/repro_record.c harness/repro/repro_do.c harness/repro/repro_fit.c \
	    harness/repro/ref_bio.c harness/repro/repro_bio.c harness/repro/ref_nvme.c \
	    harness/repro/repro_builds.c harness/repro/repro_nvme.c
UNIT_TESTS += tests/unit/harness/repro/test_reference.c \
	      tests/unit/harness/repro/test_ref_topology.c \
	      tests/unit/harness/repro/test_repro_compare.c \
	      tests/unit/harness/repro/test_repro_plan.c \
	      tests/unit/harness/repro/test_ref_cover_letter.c \
	      tests/unit/harness/repro/test_repro_scale.c \
	      tests/unit/harness/repro/test_repro_point.c \
	      tests/unit/harness/repro/test_repro_run.c \
	      tests/unit/harness/repro/test_repro_fit.c \
	      tests/unit/harness/repro/test_ref_bio.c \
	      tests/unit/harness/repro/test_repro_nvme.c
