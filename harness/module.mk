CLI_SRCS += harness/slowpath.c harness/commands.c harness/probe.c
LIB_SRCS += harness/shares.c
UNIT_TESTS += tests/unit/test_shares.c
# probe: libiscsi client (probe_run.c) plus its pure parts, each tested
LIB_SRCS += harness/probe_run.c harness/probe_opts.c harness/probe_url.c \
	    harness/probe_lat.c harness/probe_data.c harness/probe_report.c
UNIT_TESTS += tests/unit/test_probe_url.c tests/unit/test_probe_lat.c \
	      tests/unit/test_probe_data.c tests/unit/test_probe_report.c
LIB_SRCS += harness/reference.c
CLI_SRCS += harness/reference_cmd.c harness/repro_cmd.c
UNIT_TESTS += tests/unit/test_reference.c
# harness core: diskstats, fio JSON, case results, renderers, report
LIB_SRCS += harness/diskstats.c harness/fio_json.c harness/case_result.c \
	    harness/render_table.c harness/render.c harness/render_plot.c
CLI_SRCS += harness/report.c
UNIT_TESTS += tests/unit/test_diskstats.c tests/unit/test_fio_json.c \
	      tests/unit/test_render.c
# up/down/status/selector/delay: journal, plan, effects behind sp_sys_ops
LIB_SRCS += harness/state.c harness/bringup_plan.c harness/bringup_sys.c \
	    harness/bringup_up.c harness/bringup_down.c \
	    harness/bringup_status.c harness/bringup_live.c
CLI_SRCS += harness/bringup_cmd.c
UNIT_TESTS += tests/unit/test_state.c tests/unit/test_bringup.c \
	      tests/unit/test_bringup_live.c
# reproduction of the 2020 tables: published against measured
LIB_SRCS += harness/repro_compare.c harness/repro_plan.c
UNIT_TESTS += tests/unit/test_repro_compare.c tests/unit/test_repro_plan.c
# run: fio matrices on the topology that is up (docs/run.md)
LIB_SRCS += harness/run_matrix.c harness/run_fio.c harness/run_loop.c \
	    harness/run_exec.c harness/run_reload.c
CLI_SRCS += harness/run_cmd.c
UNIT_TESTS += tests/unit/test_run_matrix.c tests/unit/test_run_fio.c \
	      tests/unit/test_run_loop.c
# make topology-equal3|skew4|u10 [UP_ARGS='--selector hst'] and
# topology-down: natively when root and the kernel stack are here (the
# lab guest counts), otherwise they say how to run them in the lab.
TOPOLOGIES_UP := topology-equal3 topology-skew4 topology-u10
.PHONY: $(TOPOLOGIES_UP) topology-down
$(TOPOLOGIES_UP) topology-down: $(SLOWPATH)
	@if ! $(SLOWPATH) doctor --quiet --native; then \
		echo "$@: no root or no kernel stack (SCSI, dm-multipath, netem) here;" \
		     "'$(SLOWPATH) doctor' says what is missing." >&2; \
		echo "Run it in the lab: $(SLOWPATH) lab run -- make $@ [more commands]," \
		     "or inside '$(SLOWPATH) lab shell'." >&2; \
		exit 2; \
	fi
	@if [ $@ = topology-down ]; then $(SLOWPATH) down; \
	else $(SLOWPATH) up $(@:topology-%=%) $(UP_ARGS) && $(SLOWPATH) status; fi
# make bench-harness [BENCH_RUNTIME=S]: run's own time per case beyond fio
.PHONY: bench-harness
bench-harness: $(BUILD)/bench/run_bench
	$(BUILD)/bench/run_bench $(or $(BENCH_RUNTIME),2)
$(BUILD)/bench/run_bench: $(BUILD)/obj/harness/run_bench.o $(LIBSLOWPATH)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LIBSLOWPATH) $(LDLIBS)

# Numbers, not a test: the delay store against bs_rdwr, table into
# docs/bench-backend.md. A few minutes; needs root.
.PHONY: bench-backend
bench-backend: $(BUILD)/slowpath $(BUILD)/tgt-backend/bs_delay.so
	bash mk/bench-backend.sh
UNIT_TESTS += tests/unit/test_probe_run.c
WRAP_test_probe_run := $(foreach s,iscsi_create_context iscsi_destroy_context \
	iscsi_set_log_fn iscsi_set_log_level iscsi_set_targetname \
	iscsi_set_session_type iscsi_set_header_digest iscsi_set_timeout \
	iscsi_set_noautoreconnect iscsi_get_error iscsi_get_fd \
	iscsi_which_events iscsi_connect_sync iscsi_login_sync \
	iscsi_logout_sync iscsi_testunitready_sync iscsi_readcapacity16_sync \
	scsi_datain_unmarshall scsi_free_scsi_task iscsi_read16_task \
	iscsi_write16_task iscsi_service poll,-Wl,--wrap=$(s))
