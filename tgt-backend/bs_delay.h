/* Per-LUN state of the delay store, shared by bs_delay.c (the tgt
 * template, the I/O workers and the deadline timer) and delay_ctl.c (the
 * control directory: ctl file and stats file). Needs tgt's headers. */
#ifndef SP_BS_DELAY_H
#define SP_BS_DELAY_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "list.h"
#include "tgtd.h"
#include "target.h"
#include "bs_thread.h"

#include "common/opttab.h"

#include "tgt-backend/delay_opts.h"
#include "tgt-backend/delayq.h"
#include "tgt-backend/jitter.h"

struct delay_lu {
	struct scsi_lu *lu;
	struct delay_opts opts;
	char *opts_text;		/* owns the strings opts points into */
	struct jitter_rng rng;
	struct delayq queue;
	request_func_t *io_fn;		/* rdwr's request function */

	/* I/O workers: take from pending, put on done, poke done_fd. */
	pthread_t *workers;
	int nr_workers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct list_head pending;
	struct list_head done;
	int stopping;
	int done_fd;			/* eventfd */
	int timer_fd;			/* deadline of the earliest held command */

	/* control directory */
	char dir[DELAY_CTL_DIR_MAX + 1];
	int made_dir;
	int inotify_fd;
	int stats_timer_fd;
	int stats_armed;
	int64_t stats_written_ns;

	/* counters, main loop only */
	uint64_t submitted, delayed, completed, queued_max, in_io;
	uint64_t ctl_lines, ctl_errors;
	char ctl_last[288];
};

/* bs_delay.c: applies one ctl line (same grammar as bsopts) whole or
 * not at all; err says why not. */
int delay_apply_line(struct delay_lu *d, char *line, char *err, size_t errlen);

/* delay_ctl.c */
int delay_ctl_open(struct delay_lu *d);
void delay_ctl_close(struct delay_lu *d);
/* The counters changed: rewrite stats now or within stats_interval. */
void delay_ctl_stats_changed(struct delay_lu *d);

#endif
