LIB_SRCS += common/log.c common/units.c common/opttab.c common/exitcodes.c common/strbuf.c common/proc.c common/file.c \
	common/name.c common/outdir.c common/machine.c common/dist.c common/lat_hist.c
UNIT_TESTS += tests/unit/common/test_units.c tests/unit/common/test_opttab.c \
	tests/unit/common/test_proc.c tests/unit/common/test_file.c \
	tests/unit/common/test_name.c tests/unit/common/test_outdir.c
