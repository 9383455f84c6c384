# run: fio matrices on the topology that is up (docs/run.md)
LIB_SRCS += harness/run/run_matrix.c harness/run/run_fio.c \
	    harness/run/run_loop.c harness/run/run_target.c harness/run/run_lat.c harness/run/run_exec.c \
	    harness/run/run_machine.c harness/run/run_faults.c \
	    harness/run/run_watch.c harness/run/run_save.c \
	    harness/run/run_do.c
UNIT_TESTS += tests/unit/harness/run/test_run_matrix.c \
	      tests/unit/harness/run/test_run_fio.c \
	      tests/unit/harness/run/test_run_loop.c \
	      tests/unit/harness/run/test_run_watch.c \
	      tests/unit/harness/run/test_run_faults.c
# the scripted system behind sp_run_ops, one copy for both tests
MOCKS_harness/run/test_run_loop += tests/unit/harness/run/run_mock.c
MOCKS_harness/run/test_run_hst += tests/unit/harness/run/run_mock.c
MOCKS_harness/run/test_run_target += tests/unit/harness/run/run_mock.c
MOCKS_harness/run/test_run_watch += tests/unit/harness/run/run_mock.c
# make bench-harness [BENCH_RUNTIME=S]: run's own time per case beyond fio
.PHONY: bench-harness
bench-harness: $(BUILD)/bench/run_bench
	$(BUILD)/bench/run_bench $(or $(BENCH_RUNTIME),2)
$(BUILD)/bench/run_bench: $(BUILD)/obj/harness/run/run_bench.o $(LIBSLOWPATH)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LIBSLOWPATH) $(LDLIBS)

# Numbers, not a test: the delay store against bs_rdwr, table into
# docs/bench-backend.md. A few minutes; needs root.
.PHONY: bench-backend
bench-backend: $(BUILD)/slowpath $(BUILD)/tgt-backend/bs_delay.so install-backend
	bash mk/bench-backend.sh
