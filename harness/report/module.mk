# Presentation of measured cases: text, Markdown, CSV, JSON, gnuplot.
LIB_SRCS += harness/report/render_table.c harness/report/render.c \
	    harness/report/render_plot.c harness/report/render_kernels.c harness/report/render_families.c harness/report/render_timeline.c \
	    harness/report/render_selector.c \
	    harness/report/render_order.c harness/report/render_again.c harness/report/render_lat.c
UNIT_TESTS += tests/unit/harness/report/test_render.c \
	      tests/unit/harness/report/test_render_timeline.c \
	      tests/unit/harness/report/test_result_files.c \
	      tests/unit/harness/report/test_render_order.c
