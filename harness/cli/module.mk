# Every `slowpath SUBCOMMAND`: option tables and exit codes over the
# libraries of the other rooms. Nothing outside cli/ includes cli/.
CLI_SRCS += harness/cli/slowpath.c harness/cli/commands.c \
	    harness/cli/probe_cmd.c harness/cli/reference_cmd.c \
	    harness/cli/repro_cmd.c harness/cli/repro_real.c harness/cli/repro_bio_cmd.c \
	    harness/cli/repro_nvme_cmd.c \
	    harness/cli/report_cmd.c \
	    harness/cli/bringup_cmd.c harness/cli/run_cmd.c \
	    harness/cli/topo_cmd.c harness/cli/netem_cmd.c \
	    harness/cli/lab_cmd.c harness/cli/doctor_cmd.c \
	    harness/cli/selector_cmd.c \
	    harness/cli/fault_cmd.c
