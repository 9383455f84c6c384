/* The delay store's I/O workers. They run rdwr's request function and
 * hand finished commands back to tgtd's main loop on a done list, poking
 * an eventfd unless the main loop is polling anyway (bs_delay.c). tgt's
 * own bs_thread pool completes commands straight from its workers, which
 * leaves no point at which to hold a finished one; hence a pool of our
 * own. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "list.h"
#include "util.h"
#include "tgtd.h"
#include "log.h"

#include "common/units.h"
#include "tgt-backend/bs_delay.h"

static void run_io(struct delay_lu *d, struct delay_req *req)
{
	if (req->cmd && req->fail)
		delay_fail_cmd(req);
	else if (req->cmd)	/* NULL: a calibration hand-off */
		d->io_fn(req->cmd);
}

static void *io_worker(void *arg)
{
	struct delay_lu *d = arg;
	struct delay_req *req;
	sigset_t set;
	uint64_t one = 1;

	/* tgtd takes SIGUSR2 through a signalfd; keep it off this thread. */
	sigfillset(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (;;) {
		pthread_mutex_lock(&d->lock);
		while (list_empty(&d->pending) && !d->stopping) {
			d->idle_workers++;
			pthread_cond_wait(&d->cond, &d->lock);
			d->idle_workers--;
		}
		if (list_empty(&d->pending)) {
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
		req = list_first_entry(&d->pending, struct delay_req, link);
		list_del(&req->link);
		d->pending_len--;
		pthread_mutex_unlock(&d->lock);

		req->t_io_start = sp_now_ns();
		run_io(d, req);

		pthread_mutex_lock(&d->lock);
		list_add_tail(&req->link, &d->done);
		pthread_mutex_unlock(&d->lock);
		/* A polling main loop looks at done itself; service() pairs
		 * this fence with its own when it stops polling. */
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load(&d->main_polling))
			continue;
		if (write(d->done_fd, &one, sizeof(one)) < 0)
			eprintf("bs_delay: cannot wake the main loop: %m\n");
	}
}

int delay_pool_start(struct delay_lu *d)
{
	int i, ret;

	if (d->opts.io == DELAY_IO_INLINE)
		return 0;
	d->workers = calloc((size_t)nr_iothreads, sizeof(*d->workers));
	if (!d->workers)
		return -ENOMEM;
	for (i = 0; i < nr_iothreads; i++) {
		ret = pthread_create(&d->workers[i], NULL, io_worker, d);
		if (ret)
			return -ret;
		d->nr_workers++;
	}
	return 0;
}

void delay_pool_stop(struct delay_lu *d)
{
	int i;

	pthread_mutex_lock(&d->lock);
	d->stopping = 1;
	pthread_mutex_unlock(&d->lock);
	pthread_cond_broadcast(&d->cond);
	for (i = 0; i < d->nr_workers; i++)
		pthread_join(d->workers[i], NULL);
	free(d->workers);
	d->workers = NULL;
	d->nr_workers = 0;
}

void delay_pool_queue(struct delay_lu *d, struct delay_req *req, int64_t now_ns)
{
	d->in_io++;
	req->t_queued = now_ns;
	if (d->opts.io == DELAY_IO_INLINE) {
		/* done at once; the main loop takes it in its next round,
		 * never from inside tgt's submit */
		req->t_io_start = now_ns;
		run_io(d, req);
		list_add_tail(&req->link, &d->done);
		tgt_add_sched_event(&d->poll_ev);
		return;
	}
	pthread_mutex_lock(&d->lock);
	/* More sleeping workers than queued commands: this one waits for
	 * a wake-up, not for a busy worker. */
	req->cold = (size_t)d->idle_workers > d->pending_len;
	list_add_tail(&req->link, &d->pending);
	d->pending_len++;
	pthread_mutex_unlock(&d->lock);
	pthread_cond_signal(&d->cond);
}

void delay_pool_take(struct delay_lu *d, struct list_head *into)
{
	pthread_mutex_lock(&d->lock);
	list_splice_init(&d->done, into);
	pthread_mutex_unlock(&d->lock);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* What handing a command to a worker costs when the workers are busy,
 * measured once: hand-offs to a worker idle for CALIB_IDLE_NS, as
 * between the commands of an undelayed LUN at qd 1. Only what a worker
 * that slept through a hold costs beyond this is taken off the delay.
 * Runs in tgtd's main loop at LUN creation, before any command. */
#define CALIB_ROUNDS 9
#define CALIB_IDLE_NS 50000

void delay_pool_calibrate(struct delay_lu *d)
{
	int64_t sample[CALIB_ROUNDS], until;
	struct pollfd pfd = { .fd = d->done_fd, .events = POLLIN };
	struct delay_req *req;
	uint64_t n;
	int i;
	LIST_HEAD(back);

	/* no hand-off to measure */
	if (d->opts.io == DELAY_IO_INLINE)
		return;
	for (i = 0; i < CALIB_ROUNDS; i++) {
		req = calloc(1, sizeof(*req));
		if (!req)
			break;
		/* Spin, not sleep: a sleep here overshoots by the very
		 * wake-up cost being measured. */
		until = sp_now_ns() + CALIB_IDLE_NS;
		while (sp_now_ns() < until)
			;
		delay_pool_queue(d, req, sp_now_ns());
		/* A wake-up lost here must not hang LUN creation: the
		 * request then comes back later, and take_done frees it. */
		if (poll(&pfd, 1, 1000) != 1 || read(d->done_fd, &n, sizeof(n)) < 0)
			break;
		delay_pool_take(d, &back);
		list_del(&req->link);
		d->in_io--;
		sample[i] = req->t_io_start - req->t_queued;
		free(req);
	}
	if (i < CALIB_ROUNDS) {
		eprintf("bs_delay: hand-off calibration incomplete\n");
		return;
	}
	qsort(sample, CALIB_ROUNDS, sizeof(sample[0]), cmp_i64);
	d->warm_dispatch_ns = sample[CALIB_ROUNDS / 2];
	d->dispatch_ns = d->warm_dispatch_ns;
}
