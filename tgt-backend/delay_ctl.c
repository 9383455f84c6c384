/* The delay store's control directory, one per LUN:
 *   ctl    write "delay=5ms;jitter=1ms" (the bsopts grammar, one or more
 *          lines); applied from tgtd's main loop when the writer closes
 *          the file, to commands submitted from then on
 *   stats  key=value lines: settings and counters, replaced atomically
 *          (sp_file_write_atomic_opt) at most every stats_interval
 *          while commands flow, and at once after every ctl write
 *   hist   every command's latency so far (common/lat_hist.h), written
 *          with stats
 * The directory is ctl=DIR, or /run/slowpath/tgtd-<control port>/
 * <tid>-<lun> by default. See docs/backend.md. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "list.h"
#include "util.h"
#include "tgtd.h"
#include "log.h"

#include "common/file.h"
#include "common/log.h"
#include "common/units.h"
#include "tgt-backend/bs_delay.h"

#define CTL_MAX_BYTES 4096

extern short control_port;

static int mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* hist beside stats, in the same pass: a reader that sees stats'
 * counters settle sees every command's latency in hist too. */
static void write_hist(struct delay_lu *d)
{
	char path[PATH_MAX], *buf;
	size_t need;
	int ret;

	if (!d->lat)
		return;
	need = sp_lat_format(d->lat, NULL, 0);
	buf = malloc(need + 1);
	if (!buf)
		return;
	sp_lat_format(d->lat, buf, need + 1);
	snprintf(path, sizeof(path), "%s/hist", d->dir);
	ret = sp_file_write_atomic_opt(path, buf, need, 0644, SP_FILE_NOSYNC);
	free(buf);
	if (ret) {
		errno = -ret;
		eprintf("bs_delay: cannot write %s/hist: %m\n", d->dir);
	}
}

static void write_stats(struct delay_lu *d)
{
	char buf[2048], path[PATH_MAX];
	size_t n;
	int ret;

	n = (size_t)snprintf(buf, sizeof(buf), "tid=%d\nlun=%" PRIu64 "\n",
			     d->lu->tgt->tid, d->lu->lun);
	n += delay_opts_format(&d->opts, buf + n, sizeof(buf) - n);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n,
		"submitted=%" PRIu64 "\ndelayed=%" PRIu64 "\ncompleted=%" PRIu64 "\n"
		"queued=%zu\nqueued_max=%" PRIu64 "\nin_io=%" PRIu64 "\n"
		"released=%" PRIu64 "\nrelease_late_ns=%" PRId64 "\nrelease_early_ns=%" PRId64 "\n"
		"timer_arms=%" PRIu64 "\ntimer_fires=%" PRIu64 "\npolls=%" PRIu64 "\n"
		"timer_lead_1ms_ns=%" PRId64 "\ndispatch_ns=%" PRId64 "\nwarm_dispatch_ns=%" PRId64 "\n"
		"served=%" PRIu64 "\nserver_wait_ns=%" PRId64 "\n"
		"errors_injected=%" PRIu64 "\nheld=%" PRIu64 "\nheld_total=%" PRIu64 "\n"
		"ctl_lines=%" PRIu64 "\nctl_errors=%" PRIu64 "\nctl_last=%s\n",
		d->submitted, d->delayed, d->completed, delayq_len(&d->queue),
		d->queued_max, d->in_io, d->released, d->release_late_ns, d->release_early_ns,
		d->timer_arms, d->timer_fires, d->polls,
		wake_model_lead(&d->wake, 1000000, d->opts.poll_max_ns), d->dispatch_ns, d->warm_dispatch_ns,
		d->servers.served, d->servers.waited_ns,
		d->errors_injected, d->held_now, d->held_total,
		d->ctl_lines, d->ctl_errors, d->ctl_last);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	snprintf(path, sizeof(path), "%s/stats", d->dir);
	/* tgtd's loop must not wait on a disk for a file nobody keeps */
	ret = sp_file_write_atomic_opt(path, buf, n, 0644, SP_FILE_NOSYNC);
	if (ret) {
		errno = -ret;
		eprintf("bs_delay: cannot write %s/stats: %m\n", d->dir);
	}
	write_hist(d);
	d->stats_written_ns = sp_now_ns();
}

static void set_stats_timer(struct delay_lu *d, int64_t at_ns)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = at_ns / SP_NSEC_PER_SEC;
	its.it_value.tv_nsec = at_ns % SP_NSEC_PER_SEC;
	if (timerfd_settime(d->stats_timer_fd, TFD_TIMER_ABSTIME, &its, NULL))
		eprintf("bs_delay: timerfd_settime: %m\n");
}

void delay_ctl_stats_changed(struct delay_lu *d)
{
	int64_t due;

	if (d->stats_timer_fd < 0 || d->stats_armed)
		return;
	due = d->stats_written_ns + d->opts.stats_interval_ns;
	if (sp_now_ns() >= due) {
		write_stats(d);
		return;
	}
	d->stats_armed = 1;
	set_stats_timer(d, due);
}

static void stats_timer_handler(int fd, int events, void *data)
{
	struct delay_lu *d = data;
	uint64_t ticks;

	(void)events;
	if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	d->stats_armed = 0;
	write_stats(d);
}

static void apply_ctl_file(struct delay_lu *d)
{
	char path[PATH_MAX], err[SP_OPT_ERRLEN];
	char *text, *line, *next;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/ctl", d->dir);
	ret = sp_file_read(path, CTL_MAX_BYTES, &text, &len);
	if (ret == -EFBIG) {
		/* applying a prefix could apply half a line */
		d->ctl_errors++;
		snprintf(d->ctl_last, sizeof(d->ctl_last),
			 "error: over %d bytes", CTL_MAX_BYTES);
		sp_err("bs_delay: tid %d lun %" PRIu64 ": %s: over %d bytes; "
		       "settings unchanged", d->lu->tgt->tid, d->lu->lun, path,
		       CTL_MAX_BYTES);
		write_stats(d);
		return;
	}
	if (ret)
		return;
	if (!len) {
		free(text);
		return;	/* our own truncation, or an empty write */
	}
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line[strcspn(line, "\r#")] = '\0';
		if (!*line)
			continue;
		d->ctl_lines++;
		if (delay_apply_line(d, line, err, sizeof(err))) {
			d->ctl_errors++;
			snprintf(d->ctl_last, sizeof(d->ctl_last), "error: %s", err);
			sp_err("bs_delay: tid %d lun %" PRIu64 ": %s: %s; settings unchanged",
			       d->lu->tgt->tid, d->lu->lun, path, err);
		} else {
			snprintf(d->ctl_last, sizeof(d->ctl_last), "ok");
			sp_info("bs_delay: tid %d lun %" PRIu64 ": %s applied",
				d->lu->tgt->tid, d->lu->lun, path);
		}
	}
	free(text);
	write_stats(d);
}

static void inotify_handler(int fd, int events, void *data)
{
	struct delay_lu *d = data;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;
	int ctl_written = 0;
	char *p;

	(void)events;
	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + len;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && !strcmp(ev->name, "ctl"))
				ctl_written = 1;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (ctl_written)
		apply_ctl_file(d);
}

int delay_ctl_open(struct delay_lu *d)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	if (d->opts.ctl)
		snprintf(d->dir, sizeof(d->dir), "%s", d->opts.ctl);
	else
		snprintf(d->dir, sizeof(d->dir), "/run/slowpath/tgtd-%d/%d-%" PRIu64,
			 control_port, d->lu->tgt->tid, d->lu->lun);
	d->made_dir = stat(d->dir, &st) != 0;
	ret = mkdir_p(d->dir);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/ctl", d->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);

	d->stats_timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->stats_timer_fd < 0)
		return -errno;
	if (tgt_event_add(d->stats_timer_fd, EPOLLIN, stats_timer_handler, d)) {
		close(d->stats_timer_fd);
		d->stats_timer_fd = -1;
		return -ENOMEM;
	}
	d->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->inotify_fd < 0)
		return -errno;
	if (inotify_add_watch(d->inotify_fd, d->dir, IN_CLOSE_WRITE | IN_MOVED_TO) < 0)
		return -errno;
	if (tgt_event_add(d->inotify_fd, EPOLLIN, inotify_handler, d)) {
		close(d->inotify_fd);
		d->inotify_fd = -1;
		return -ENOMEM;
	}
	write_stats(d);
	return 0;
}

void delay_ctl_close(struct delay_lu *d)
{
	char path[PATH_MAX];

	if (d->inotify_fd >= 0) {
		tgt_event_del(d->inotify_fd);
		close(d->inotify_fd);
		d->inotify_fd = -1;
	}
	if (d->stats_timer_fd >= 0) {
		tgt_event_del(d->stats_timer_fd);
		close(d->stats_timer_fd);
		d->stats_timer_fd = -1;
	}
	if (!d->dir[0])
		return;
	snprintf(path, sizeof(path), "%s/ctl", d->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stats", d->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/hist", d->dir);
	unlink(path);
	if (d->made_dir)
		rmdir(d->dir);
	d->dir[0] = '\0';
}
