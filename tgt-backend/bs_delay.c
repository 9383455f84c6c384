/* tgt backing store "delay": rdwr's file I/O, with every command held
 * for a configured time before or after its I/O. The hold costs no
 * thread: held commands sit in a per-LUN deadline queue served from
 * tgtd's main loop, by a timerfd armed early by its own learned lateness
 * and by polling for the last stretch (wakeup.h), and every command is
 * completed from the main loop only, as tgt requires. The I/O runs on a
 * pool of our own (delay_pool.c). See docs/backend.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "list.h"
#include "util.h"
#include "tgtd.h"
#include "scsi.h"
#include "log.h"

#include "common/log.h"
#include "common/opttab.h"
#include "common/units.h"
#include "tgt-backend/bs_delay.h"

static struct backingstore_template *rdwr_bst;

static inline struct delay_lu *DELAY_LU(struct scsi_lu *lu)
{
	/* rdwr's bs_thread_info first (BS_THREAD_I assumes it sits right
	 * after the scsi_lu), ours after it. */
	return (struct delay_lu *)((char *)BS_THREAD_I(lu) +
				   sizeof(struct bs_thread_info));
}

static void complete(struct delay_lu *d, struct delay_req *req, int64_t now)
{
	struct scsi_cmd *cmd = req->cmd;

	sp_lat_add(d->lat, now - req->t_submit);
	free(req);
	d->completed++;
	target_cmd_io_done(cmd, scsi_get_result(cmd));
}

/* A held command's time is up. */
static void release(struct delay_lu *d, struct delay_req *req, int64_t now)
{
	if (req->io_done)
		complete(d, req, now);
	else
		delay_pool_queue(d, req, now);
}

static void arm_timer(struct delay_lu *d, int64_t at_ns, int64_t now_ns)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = at_ns / SP_NSEC_PER_SEC;
	its.it_value.tv_nsec = at_ns % SP_NSEC_PER_SEC;
	if (timerfd_settime(d->timer_fd, TFD_TIMER_ABSTIME, &its, NULL)) {
		eprintf("bs_delay: timerfd_settime: %m\n");
		/* Poll rather than lose the held commands. */
		tgt_add_sched_event(&d->poll_ev);
		return;
	}
	d->timer_at_ns = at_ns;
	d->timer_set_ns = now_ns;
	d->timer_arms++;
}

static int take_done(struct delay_lu *d, int64_t now);

/* Releases every held command that is due at now (the clock its handler
 * read: on the exact-time lab every read costs the guest time), then
 * sees to the next deadline: the timer for far ones, polling from the
 * main loop for those closer than the timer's lateness (wakeup.h). Every
 * handler ends here. */
static void service(struct delay_lu *d, int64_t now)
{
	struct delayq_item *item;
	int64_t arm_at = 0;

	if (d->in_service)	/* a completion re-entered through tgt */
		return;
	d->in_service = 1;
again:
	/* Released release_early_ns ahead: what the last releases were late
	 * by, the loop being busy with other events when a deadline came. */
	while ((item = delayq_pop_expired(&d->queue, now + d->release_early_ns))) {
		int64_t late = now - item->deadline_ns;

		wake_ewma_update(&d->release_early_ns, late + d->release_early_ns);
		if (d->release_early_ns > RELEASE_EARLY_MAX_NS)
			d->release_early_ns = RELEASE_EARLY_MAX_NS;
		d->released++;
		d->release_late_ns += late;
		release(d, container_of(item, struct delay_req, item), now);
	}
	item = delayq_peek(&d->queue);
	switch (wake_plan(&d->wake, d->opts.poll_max_ns, item != NULL,
			  item ? item->deadline_ns - d->release_early_ns : 0,
			  now, d->timer_at_ns, &arm_at)) {
	case WAKE_POLL:
		d->polls++;
		atomic_store(&d->main_polling, 1);
		tgt_add_sched_event(&d->poll_ev);
		goto out;
	case WAKE_ARM:
		arm_timer(d, arm_at, now);
		break;
	case WAKE_IDLE:
	case WAKE_KEEP:
		break;
	}
	/* No more polling: from here on workers must wake us, and what one
	 * finished while we were still polling is taken now. */
	if (atomic_exchange(&d->main_polling, 0)) {
		atomic_thread_fence(memory_order_seq_cst);
		now = sp_now_ns();
		if (take_done(d, now))
			goto again;
	}
out:
	d->in_service = 0;
	delay_ctl_stats_changed(d);
}

static void hold(struct delay_lu *d, struct delay_req *req, int64_t deadline_ns)
{
	if (delayq_push(&d->queue, &req->item, deadline_ns)) {
		/* No memory for a bigger heap: serve it undelayed rather
		 * than lose it. */
		eprintf("bs_delay: out of memory, command not delayed\n");
		release(d, req, sp_now_ns());
		return;
	}
	if (delayq_len(&d->queue) > d->queued_max)
		d->queued_max = delayq_len(&d->queue);
}

/* What waking a sleeping worker cost beyond a warm hand-off counts
 * toward the delay, so that the initiator sees its base latency plus the
 * delay, not plus the delay and the cost of the hold: on a VM a worker
 * that slept through a 1 ms hold took 60 us to wake, against 7-11 us when
 * commands flow (docs/backend.md). Waiting for a busy worker is queueing
 * that rdwr has too, and is not taken off. */
static int64_t handoff_excess(const struct delay_lu *d, int64_t handoff_ns,
			      int64_t delay_ns)
{
	int64_t excess = handoff_ns - d->warm_dispatch_ns;

	if (excess < 0)
		return 0;
	return excess < delay_ns ? excess : delay_ns;
}

/* When a command ready at ready_ns is through the LUN's servers:
 * ready_ns itself when there is no serial stage (service=0). */
static int64_t serve(struct delay_lu *d, int64_t ready_ns)
{
	if (d->opts.service_ns <= 0)
		return ready_ns;
	return delay_servers_take(&d->servers, ready_ns, d->opts.service_ns);
}

/* Finished I/O back in the main loop: complete it, or hold it for its
 * service and delay. Returns how many there were. */
static int take_done(struct delay_lu *d, int64_t now)
{
	struct delay_req *req, *next;
	int64_t hold_ns;
	int taken = 0;
	LIST_HEAD(batch);

	delay_pool_take(d, &batch);
	list_for_each_entry_safe(req, next, &batch, link) {
		list_del(&req->link);
		d->in_io--;
		if (!req->cmd) {	/* a late calibration hand-off */
			free(req);
			continue;
		}
		taken++;
		req->io_done = 1;
		if (req->cold)
			wake_ewma_update(&d->dispatch_ns, req->t_io_start - req->t_queued);
		hold_ns = req->when == DELAY_WHEN_AFTER ?
			  serve(d, now) - now + req->delay_ns : 0;
		if (hold_ns > 0)
			hold(d, req, now + hold_ns -
			     (req->cold ? handoff_excess(d, req->t_io_start - req->t_queued,
							 hold_ns) : 0));
		else
			complete(d, req, now);
	}
	return taken;
}

static void io_done_handler(int fd, int events, void *data)
{
	struct delay_lu *d = data;
	uint64_t n;
	int64_t now;

	(void)events;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		eprintf("bs_delay: eventfd read: %m\n");
	now = sp_now_ns();
	take_done(d, now);
	service(d, now);
}

static void timer_handler(int fd, int events, void *data)
{
	struct delay_lu *d = data;
	uint64_t ticks;
	int64_t now;

	(void)events;
	if (read(fd, &ticks, sizeof(ticks)) < 0) {
		if (errno != EAGAIN)
			eprintf("bs_delay: timerfd read: %m\n");
		return;
	}
	now = sp_now_ns();
	if (d->timer_at_ns > 0) {
		d->timer_fires++;
		wake_model_learn(&d->wake, d->timer_at_ns - d->timer_set_ns,
				 now - d->timer_at_ns);
		d->timer_at_ns = 0;
	}
	service(d, now);
}

static void poll_handler(struct event_data *ev)
{
	int64_t now = sp_now_ns();

	take_done(ev->data, now);
	service(ev->data, now);
}

static int is_write(struct scsi_cmd *cmd)
{
	switch (cmd->scb[0]) {
	case SYNCHRONIZE_CACHE:
	case SYNCHRONIZE_CACHE_16:
		return 1;
	}
	return scsi_get_data_dir(cmd) == DATA_WRITE ||
	       scsi_get_data_dir(cmd) == DATA_BIDIRECTIONAL;
}

void delay_fail_cmd(struct delay_req *req)
{
	const struct delay_sense_code *c = delay_sense_code(req->sense);

	if (!c)
		c = delay_sense_code(DELAY_SENSE_MEDIUM);
	/* tgt's stores fail a command this way: sense, CHECK CONDITION */
	sense_data_build(req->cmd, c->key, (uint16_t)(c->asc << 8 | c->ascq));
	scsi_set_result(req->cmd, SAM_STAT_CHECK_CONDITION);
}

/* A command's way through the store once it may start at now: its
 * delay, its fault, then held or handed to a worker. */
static void dispatch(struct delay_lu *d, struct delay_req *req, int64_t now)
{
	struct scsi_cmd *cmd = req->cmd;
	int64_t base, hold_ns;

	req->when = d->opts.when;
	base = is_write(cmd) ? d->opts.write_delay_ns : d->opts.read_delay_ns;
	req->delay_ns = jitter_delay_ns(&d->rng, d->opts.dist, base,
					d->opts.jitter_ns);
	req->fail = delay_fault_decide(&d->err_rng, d->opts.error_rate);
	req->sense = d->opts.error_sense;
	if (req->fail)
		d->errors_injected++;
	if (req->delay_ns > 0 || d->opts.service_ns > 0)
		d->delayed++;
	hold_ns = req->when == DELAY_WHEN_BEFORE ?
		  serve(d, now) - now + req->delay_ns : 0;
	if (hold_ns > 0) {
		/* Released early by what waking a worker usually costs. */
		hold(d, req, now + hold_ns -
		     handoff_excess(d, d->dispatch_ns, hold_ns));
		service(d, now);
	} else {
		delay_pool_queue(d, req, now);
		delay_ctl_stats_changed(d);
	}
}

static int bs_delay_cmd_submit(struct scsi_cmd *cmd)
{
	struct delay_lu *d = DELAY_LU(cmd->dev);
	struct delay_req *req = calloc(1, sizeof(*req));
	int64_t now;

	if (!req)
		return -ENOMEM;
	/* the one clock reading of the submission: hist's start, and
	 * dispatch's now */
	now = sp_now_ns();
	req->t_submit = now;
	req->cmd = cmd;
	req->item.pos = DELAYQ_NOT_QUEUED;
	d->submitted++;
	set_cmd_async(cmd);
	if (d->opts.hold) {
		/* a hung target: nothing starts until hold=0 */
		list_add_tail(&req->link, &d->held);
		d->held_now++;
		d->held_total++;
		delay_ctl_stats_changed(d);
		return 0;
	}
	dispatch(d, req, now);
	return 0;
}

/* hold=0: what was held starts now, in the order it came. */
static void release_held(struct delay_lu *d)
{
	struct delay_req *req, *next;
	int64_t now = sp_now_ns();
	LIST_HEAD(batch);

	list_splice_init(&d->held, &batch);
	d->held_now = 0;
	list_for_each_entry_safe(req, next, &batch, link) {
		list_del(&req->link);
		dispatch(d, req, now);
	}
}

static void seed_rng(struct delay_lu *d)
{
	if (d->opts.seed < 0)
		d->opts.seed = (sp_now_ns() ^ ((int64_t)getpid() << 20) ^
				(int64_t)d->lu->lun) & ((1LL << 53) - 1);
	jitter_seed(&d->rng, (uint64_t)d->opts.seed);
	jitter_seed(&d->err_rng, delay_fault_seed((uint64_t)d->opts.seed));
}

/* A ctl line: parsed like bsopts, applied whole or not at all. */
int delay_apply_line(struct delay_lu *d, char *line, char *err, size_t errlen)
{
	int64_t old_seed = d->opts.seed, old_servers = d->opts.servers;
	int was_held = d->opts.hold;
	int ret = delay_opts_parse(&d->opts, line, DELAY_OPTS_RUNTIME, err, errlen);

	if (!ret && d->opts.seed != old_seed)
		seed_rng(d);
	/* commands already in service keep their release times */
	if (!ret && d->opts.servers != old_servers)
		delay_servers_init(&d->servers, (int)d->opts.servers);
	if (!ret && was_held && !d->opts.hold)
		release_held(d);
	return ret;
}

/* rdwr keeps its request function to itself, but bs_thread_open
 * stores it where we can read it: open rdwr's pool once, take the
 * function, close the pool. */
static request_func_t *borrow_rdwr_io_fn(struct scsi_lu *lu)
{
	struct bs_thread_info *info = BS_THREAD_I(lu);
	request_func_t *fn;

	if (rdwr_bst->bs_init(lu, NULL) != TGTADM_SUCCESS)
		return NULL;
	fn = info->request_fn;
	rdwr_bst->bs_exit(lu);
	memset(info, 0, sizeof(*info));
	return fn;
}

static void bs_delay_exit(struct scsi_lu *lu);

static tgtadm_err bs_delay_init(struct scsi_lu *lu, char *bsopts)
{
	struct delay_lu *d = DELAY_LU(lu);
	char err[SP_OPT_ERRLEN];
	int ret;

	memset(d, 0, sizeof(*d));
	d->lu = lu;
	d->done_fd = d->timer_fd = d->inotify_fd = d->stats_timer_fd = -1;
	INIT_LIST_HEAD(&d->pending);
	INIT_LIST_HEAD(&d->done);
	INIT_LIST_HEAD(&d->held);
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	snprintf(d->ctl_last, sizeof(d->ctl_last), "none");

	delay_opts_defaults(&d->opts);
	d->opts_text = strdup(bsopts ? bsopts : "");
	if (!d->opts_text)
		goto nomem;
	if (delay_opts_parse(&d->opts, d->opts_text, DELAY_OPTS_CREATE, err,
			     sizeof(err))) {
		sp_err("bs_delay: tid %d lun %" PRIu64 ": bsopts: %s",
		       lu->tgt->tid, lu->lun, err);
		bs_delay_exit(lu);
		return TGTADM_INVALID_REQUEST;
	}
	seed_rng(d);
	delay_servers_init(&d->servers, (int)d->opts.servers);
	wake_model_init(&d->wake, WAKE_INITIAL_LATE_NS);
	tgt_init_sched_event(&d->poll_ev, poll_handler, d);
	d->lat = calloc(1, sizeof(*d->lat));
	if (!d->lat || delayq_init(&d->queue, 256))
		goto nomem;
	d->io_fn = borrow_rdwr_io_fn(lu);
	if (!d->io_fn)
		goto nomem;

	d->done_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->done_fd < 0 || d->timer_fd < 0)
		goto fail_errno;
	if (tgt_event_add(d->done_fd, EPOLLIN, io_done_handler, d)) {
		close(d->done_fd);
		d->done_fd = -1;
		goto fail_errno;
	}
	if (tgt_event_add(d->timer_fd, EPOLLIN, timer_handler, d)) {
		close(d->timer_fd);
		d->timer_fd = -1;
		goto fail_errno;
	}
	ret = delay_pool_start(d);
	if (ret) {
		errno = -ret;
		goto fail_errno;
	}
	delay_pool_calibrate(d);
	ret = delay_ctl_open(d);
	if (ret) {
		sp_err("bs_delay: tid %d lun %" PRIu64 ": control directory %s: %s",
		       lu->tgt->tid, lu->lun, d->dir, strerror(-ret));
		bs_delay_exit(lu);
		return TGTADM_INVALID_REQUEST;
	}
	eprintf("bs_delay: tid %d lun %" PRIu64 ": read_delay %lldns write_delay %lldns "
		"jitter %lldns %s seed %lld when=%s, control directory %s\n",
		lu->tgt->tid, lu->lun, (long long)d->opts.read_delay_ns,
		(long long)d->opts.write_delay_ns, (long long)d->opts.jitter_ns,
		delay_dist_name(d->opts.dist), (long long)d->opts.seed,
		delay_when_name(d->opts.when), d->dir);
	return TGTADM_SUCCESS;

fail_errno:
	eprintf("bs_delay: tid %d lun %" PRIu64 ": setting up: %m\n",
		lu->tgt->tid, lu->lun);
	bs_delay_exit(lu);
	return TGTADM_UNKNOWN_ERR;
nomem:
	bs_delay_exit(lu);
	return TGTADM_NOMEM;
}

/* tgt calls this only once the LUN has no command in flight (it refuses
 * to delete an active LUN, and every command we hold counts as active),
 * so the queue is empty here; anything left would be a bug, and is
 * completed as aborted rather than leaked. */
static void bs_delay_exit(struct scsi_lu *lu)
{
	struct delay_lu *d = DELAY_LU(lu);
	struct delayq_item *item;

	delay_ctl_close(d);
	tgt_remove_sched_event(&d->poll_ev);
	if (d->workers)
		delay_pool_stop(d);
	if (d->timer_fd >= 0) {
		tgt_event_del(d->timer_fd);
		close(d->timer_fd);
	}
	if (d->done_fd >= 0) {
		tgt_event_del(d->done_fd);
		close(d->done_fd);
	}
	while (d->queue.heap && (item = delayq_pop(&d->queue))) {
		struct delay_req *req = container_of(item, struct delay_req, item);

		eprintf("bs_delay: BUG: command %p still held at exit\n", req->cmd);
		free(req);
	}
	delayq_destroy(&d->queue);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d->opts_text);
	d->opts_text = NULL;
	free(d->lat);
	d->lat = NULL;
}

static int bs_delay_open(struct scsi_lu *lu, char *path, int *fd, uint64_t *size)
{
	return rdwr_bst->bs_open(lu, path, fd, size);
}

static void bs_delay_close(struct scsi_lu *lu)
{
	rdwr_bst->bs_close(lu);
}

static struct backingstore_template delay_bst = {
	.bs_name	= "delay",
	.bs_datasize	= sizeof(struct bs_thread_info) + sizeof(struct delay_lu),
	.bs_open	= bs_delay_open,
	.bs_close	= bs_delay_close,
	.bs_init	= bs_delay_init,
	.bs_exit	= bs_delay_exit,
	.bs_cmd_submit	= bs_delay_cmd_submit,
	.bs_oflags_supported = O_SYNC | O_DIRECT,
};

static void log_to_tgtd(enum sp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == SP_LOG_DEBUG) {
		dprintf("%s\n", msg);
		return;
	}
	eprintf("%s\n", msg);
}

__attribute__((visibility("default"))) void register_bs_module(void)
{
	sp_log_set_hook(log_to_tgtd, NULL);
	/* tgtd's main loop runs on this thread and sleeps in epoll until our
	 * timerfds fire: the default 50 us of timer slack would be added to
	 * every delay. */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0))
		eprintf("bs_delay: PR_SET_TIMERSLACK: %m\n");
	rdwr_bst = get_backingstore_template("rdwr");
	if (!rdwr_bst) {
		eprintf("bs_delay: tgtd has no rdwr store to build on; delay not registered\n");
		return;
	}
	/* Same SCSI commands as rdwr: it does the I/O. */
	memcpy(delay_bst.bs_supported_ops, rdwr_bst->bs_supported_ops,
	       sizeof(delay_bst.bs_supported_ops));
	register_backingstore_template(&delay_bst);
}
