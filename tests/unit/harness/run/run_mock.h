/* The scripted system behind sp_run_ops that test_run_loop.c and
 * test_run_watch.c drive `slowpath run` with; compiled once
 * (run_mock.c) and linked into both (MOCKS_<test> in
 * harness/run/module.mk).
 *
 * Two clocks. run_mock_init: every look at the clock moves it 1 ms, fio
 * ends at the first wait, diskstats' counters grow by 2048 reads per
 * path per snapshot. run_mock_init_timed: the clock moves only when the
 * loop waits, fio runs fio_ms of it, and two paths (sda = p1, sdb = p2)
 * do 1 I/O per ms each while healthy; a path under a fault completes
 * nothing and the map fails it 300 ms later, takes it back 200 ms after
 * the restore (run_mock_fault_ops adds the fault and dm status ops). */
#ifndef SP_TEST_RUN_MOCK_H
#define SP_TEST_RUN_MOCK_H

#include <stdint.h>

#include "common/log.h"
#include "harness/run/run_loop.h"

struct run_mock {
	char log[8192];		/* what happened, " " between */
	int timed;		/* run_mock_init_timed's clock */
	int64_t clock;
	int running, fio_runs, reloads, snapshots, waits;
	int jobs;		/* fio runs on a composed job file */
	int any_device;		/* fio may read other than slowpath-t's map */
	char more_disks[256];	/* untimed: disks counted as sda, " " between */
	char *fio_json;		/* what fio prints */
	int fio_status;		/* timed: fio's exit status */
	const char *fio_err;	/* timed: fio's stderr */
	char argv_seen[8192];	/* every fio command line, "|" between */
	char argv[1024];	/* the last fio command line */
	/* untimed: events at the Nth fio or reload, 1-based; 0 never */
	int interrupt_at_fio, fail_fio_at, fail_reload_at;
	int fail_sel_restore;	/* setting queue-length (the restore) fails */
	/* timed */
	int64_t fio_t0, fio_ms;
	int interrupt_at_ms;	/* since fio started; 0 never */
	int fail_apply, fail_restore;
	int64_t broken_since[2], fixed_at[2];	/* -1: never */
	uint64_t ios[2];
	int64_t last_ms;
};

/* m cleared, fio's JSON from tests/fixtures (SRCDIR), sp_run_interrupted 0 */
void run_mock_init(struct run_mock *m);
void run_mock_init_timed(struct run_mock *m, int64_t fio_ms);
/* Appends one formatted word to m->log. */
void run_mock_log(struct run_mock *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* selector_set, diskstats, fio_start/wait/stop, now_ns */
struct sp_run_ops run_mock_ops(struct run_mock *m);
/* those and dm_status, fault_apply, fault_flap, fault_restore */
struct sp_run_ops run_mock_fault_ops(struct run_mock *m);
/* run_mock_fault_ops with nvme-tcp's per-path states instead of a map
 * status (the same failures, no selector args) */
struct sp_run_ops run_mock_nvme_ops(struct run_mock *m);

/* st,hst x randread x 4k x iodepth 1, one job, 1 MiB each */
void run_mock_plan(struct sp_run_plan *p);

/* A fresh folder /tmp/NAME.XXXXXX (static storage), and its removal. */
char *run_mock_tmpdir(const char *name);
void run_mock_rmtree(const char *dir);
/* A log hook that says nothing. */
void run_mock_quiet(enum sp_log_level l, const char *msg, void *ctx);

#endif
