/* Per-LUN state of the delay store, shared by bs_delay.c (the tgt
 * template, the I/O workers and the deadline timer) and delay_ctl.c (the
 * control directory: ctl file and stats file). Needs tgt's headers. */
#ifndef SP_BS_DELAY_H
#define SP_BS_DELAY_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "list.h"
#include "tgtd.h"
#include "target.h"
#include "bs_thread.h"

#include "common/lat_hist.h"
#include "common/opttab.h"

#include "tgt-backend/delay_fault.h"
#include "tgt-backend/delay_opts.h"
#include "tgt-backend/delayq.h"
#include "tgt-backend/delay_servers.h"
#include "tgt-backend/jitter.h"
#include "tgt-backend/wakeup.h"

/* Timer lateness assumed until measured: what a VM showed for 1 ms. */
#define WAKE_INITIAL_LATE_NS 80000
/* A command is never released earlier than this before its deadline. */
#define RELEASE_EARLY_MAX_NS 50000

struct delay_lu {
	struct scsi_lu *lu;
	struct delay_opts opts;
	char *opts_text;		/* owns the strings opts points into */
	struct jitter_rng rng;
	struct jitter_rng err_rng;	/* error_rate's draws (delay_fault.h) */
	struct list_head held;		/* hold=1: commands not yet started */
	struct delayq queue;
	struct delay_servers servers;	/* with service=: the serial stage */
	request_func_t *io_fn;		/* rdwr's request function */

	/* I/O workers: take from pending, put on done, poke done_fd. */
	pthread_t *workers;
	int nr_workers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct list_head pending;
	struct list_head done;
	int stopping;
	int idle_workers;		/* waiting on cond */
	size_t pending_len;
	int64_t dispatch_ns;		/* EWMA: queued -> started, sleeping worker */
	int64_t warm_dispatch_ns;	/* the same for a busy one (calibrated) */
	int done_fd;			/* eventfd */
	atomic_int main_polling;	/* workers need not poke done_fd */
	int timer_fd;			/* wakes the loop for the earliest held command */
	int64_t timer_at_ns;		/* what it is armed for; 0: not armed */
	int64_t timer_set_ns;		/* when it was armed */
	struct wake_model wake;		/* how late the timer fires */
	struct event_data poll_ev;	/* polls the last stretch of a wait */
	int in_service;		/* service() is on the stack */

	/* control directory */
	char dir[DELAY_CTL_DIR_MAX + 1];
	int made_dir;
	int inotify_fd;
	int stats_timer_fd;
	int stats_armed;
	int64_t stats_written_ns;

	/* counters, main loop only */
	uint64_t submitted, delayed, completed, queued_max, in_io;
	uint64_t timer_arms, timer_fires, polls;
	uint64_t released;
	int64_t release_late_ns;	/* sum over released: late (+) or early (-) */
	int64_t release_early_ns;	/* EWMA: how late releases were, less this */
	uint64_t errors_injected, held_now, held_total;
	uint64_t ctl_lines, ctl_errors;
	char ctl_last[288];
	/* every command's latency, submission to completion: the file
	 * `hist` beside stats (common/lat_hist.h) */
	struct sp_lat_hist *lat;
};

/* One command while it is ours. */
struct delay_req {
	struct delayq_item item;
	struct list_head link;		/* on pending or done */
	struct scsi_cmd *cmd;		/* NULL: a calibration hand-off */
	int64_t delay_ns;
	int when;			/* when= at submission */
	int io_done;
	int cold;			/* handed to a sleeping worker */
	int fail;			/* error_rate chose it: no I/O, sense */
	int sense;			/* enum delay_sense, when fail */
	int64_t t_submit;		/* handed to the store (hist) */
	int64_t t_queued, t_io_start;
};

/* delay_pool.c: the I/O workers (none with io=inline: queue then does
 * the I/O itself and schedules poll_ev). queue hands a command over at
 * now_ns; take moves every finished one onto `into`; calibrate measures
 * a warm hand-off into warm_dispatch_ns. */
int delay_pool_start(struct delay_lu *d);
void delay_pool_stop(struct delay_lu *d);
void delay_pool_queue(struct delay_lu *d, struct delay_req *req, int64_t now_ns);
void delay_pool_take(struct delay_lu *d, struct list_head *into);
void delay_pool_calibrate(struct delay_lu *d);

/* bs_delay.c: applies one ctl line (same grammar as bsopts) whole or
 * not at all; err says why not. */
int delay_apply_line(struct delay_lu *d, char *line, char *err, size_t errlen);

/* bs_delay.c: a command error_rate chose, failed in place of its I/O
 * (a worker calls it, as rdwr fails one from its workers). */
void delay_fail_cmd(struct delay_req *req);

/* delay_ctl.c */
int delay_ctl_open(struct delay_lu *d);
void delay_ctl_close(struct delay_lu *d);
/* The counters changed: rewrite stats now or within stats_interval. */
void delay_ctl_stats_changed(struct delay_lu *d);

#endif
