/* The libiscsi side of the probe: log in, READ CAPACITY(16), then keep
 * qd READ(16)/WRITE(16) commands outstanding from a poll() loop, timing
 * each one from submit to completion callback. */
#include "harness/probe/probe.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "common/log.h"
#include "common/units.h"
#include "harness/probe/probe_data.h"
#include "harness/probe/probe_url.h"

#define PROBE_DEFAULT_IOS 1000

struct probe_slot {
	struct probe_ctx *ctx;
	int64_t t0;
	uint64_t addr;
	unsigned char *wbuf;
};

struct probe_ctx {
	const struct probe_opts *o;
	struct probe_result *res;
	struct probe_url url;
	struct iscsi_context *iscsi;
	struct probe_plan plan;
	struct probe_lat lat;
	struct probe_slot *slots;
	uint32_t blocksize;
	int writing;
	uint64_t submitted, max_ios;
	int64_t deadline, t_first, t_last;
	int inflight;
	int failed;		/* first -errno; stops submission */
	int closing;		/* tearing down: callbacks only free */
};

static void libiscsi_to_hook(int level, const char *msg)
{
	(void)level;
	sp_debug("libiscsi: %s", msg);
}

static int want_more(struct probe_ctx *c)
{
	if (c->failed || c->closing)
		return 0;
	if (c->o->stop && *c->o->stop) {
		c->res->interrupted = 1;
		return 0;
	}
	if (c->max_ios && c->submitted >= c->max_ios)
		return 0;
	if (c->deadline && sp_now_ns() >= c->deadline)
		return 0;
	return 1;
}

static void io_done(struct iscsi_context *iscsi, int status,
		    void *command_data, void *private_data);

static void submit(struct probe_ctx *c, struct probe_slot *s)
{
	uint32_t len = (uint32_t)c->o->bs;
	struct scsi_task *task;
	uint64_t lba;

	if (!want_more(c))
		return;
	s->addr = probe_plan_next(&c->plan);
	lba = s->addr / c->blocksize;
	if (c->writing)
		probe_pattern_fill(s->wbuf, len, (uint64_t)c->o->pattern,
				   s->addr);
	s->t0 = sp_now_ns();
	if (c->writing)
		task = iscsi_write16_task(c->iscsi, c->url.lun, lba, s->wbuf,
					  len, (int)c->blocksize, 0, 0, 0, 0, 0,
					  io_done, s);
	else
		task = iscsi_read16_task(c->iscsi, c->url.lun, lba, len,
					 (int)c->blocksize, 0, 0, 0, 0, 0,
					 io_done, s);
	if (!task) {
		sp_err("%s: cannot queue a command: %s", c->o->url,
		       iscsi_get_error(c->iscsi));
		c->failed = -EIO;
		return;
	}
	if (!c->submitted)
		c->t_first = s->t0;
	c->submitted++;
	c->inflight++;
}

static void account_read(struct probe_ctx *c, struct probe_slot *s,
			 struct scsi_task *task)
{
	const unsigned char *data = task->datain.data;
	size_t len = task->datain.size > 0 ? (size_t)task->datain.size : 0;

	if (len != c->o->bs || !data) {
		sp_err("%s: read at byte %llu returned %zu bytes, not %llu",
		       c->o->url, (unsigned long long)s->addr, len,
		       (unsigned long long)c->o->bs);
		c->failed = -EIO;
		return;
	}
	c->res->checksum += probe_io_checksum(data, len, s->addr);
	if (c->o->verify &&
	    !probe_pattern_check(data, len, (uint64_t)c->o->pattern, s->addr)) {
		if (!c->res->verify_mismatches++)
			c->res->first_mismatch = s->addr;
	}
}

static void io_done(struct iscsi_context *iscsi, int status,
		    void *command_data, void *private_data)
{
	struct probe_slot *s = private_data;
	struct probe_ctx *c = s->ctx;
	struct scsi_task *task = command_data;
	int64_t now = sp_now_ns();

	c->inflight--;
	if (c->closing) {
		if (task)
			scsi_free_scsi_task(task);
		return;
	}
	c->t_last = now;
	if (status != SCSI_STATUS_GOOD) {
		if (!c->res->errors)
			sp_err("%s: %s at byte %llu failed: %s", c->o->url,
			       c->writing ? "write" : "read",
			       (unsigned long long)s->addr,
			       iscsi_get_error(iscsi));
		c->res->errors++;
		c->failed = -EIO;
	} else {
		if (probe_lat_add(&c->lat, now - s->t0))
			c->failed = -ENOMEM;
		c->res->ios++;
		c->res->bytes += c->o->bs;
		if (!c->writing)
			account_read(c, s, task);
	}
	if (task)
		scsi_free_scsi_task(task);
	submit(c, s);
}

/* libiscsi keeps the socket error to itself; one plain connect() of our
 * own finds why the portal did not answer. -errno, or -EPROTO when it
 * does answer to us. */
static int tcp_diagnose(const struct probe_url *u, int timeout_s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	struct pollfd pfd;
	char port[8];
	int fd, ret, soerr = 0;
	socklen_t len = sizeof(soerr);

	snprintf(port, sizeof(port), "%d", u->port);
	if (getaddrinfo(u->host, port, &hints, &ai))
		return -EDESTADDRREQ;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		freeaddrinfo(ai);
		return ret;
	}
	ret = connect(fd, ai->ai_addr, ai->ai_addrlen) ? -errno : 0;
	freeaddrinfo(ai);
	if (ret == -EINPROGRESS) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, timeout_s * 1000) <= 0)
			ret = -ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) || soerr)
			ret = soerr ? -soerr : -errno;
		else
			ret = 0;
	}
	close(fd);
	return ret ? ret : -EPROTO;
}

/* A fresh session starts with a UNIT ATTENTION (power on / bus reset)
 * that would fail the first real command; TEST UNIT READY takes it. */
static int clear_unit_attentions(struct probe_ctx *c)
{
	struct scsi_task *task;
	int tries, good;

	for (tries = 0; tries < 5; tries++) {
		task = iscsi_testunitready_sync(c->iscsi, c->url.lun);
		if (!task) {
			sp_err("%s: TEST UNIT READY to LUN %d failed: %s",
			       c->url.portal, c->url.lun,
			       iscsi_get_error(c->iscsi));
			return -ECONNREFUSED;
		}
		good = task->status == SCSI_STATUS_GOOD;
		if (!good && task->status == SCSI_STATUS_CHECK_CONDITION &&
		    task->sense.key == SCSI_SENSE_UNIT_ATTENTION) {
			scsi_free_scsi_task(task);
			continue;
		}
		if (!good && task->status == SCSI_STATUS_CHECK_CONDITION &&
		    task->sense.ascq == SCSI_SENSE_ASCQ_LOGICAL_UNIT_NOT_SUPPORTED)
			sp_err("%s: target %s has no LUN %d", c->url.portal,
			       c->url.iqn, c->url.lun);
		else if (!good)
			sp_err("%s: LUN %d of %s is not ready: %s",
			       c->url.portal, c->url.lun, c->url.iqn,
			       iscsi_get_error(c->iscsi));
		scsi_free_scsi_task(task);
		return good ? 0 : -ECONNREFUSED;
	}
	sp_err("%s: LUN %d of %s keeps reporting UNIT ATTENTION",
	       c->url.portal, c->url.lun, c->url.iqn);
	return -ECONNREFUSED;
}

static int set_chap(struct probe_ctx *c)
{
	char secret[PROBE_CHAP_SECRET_MAX], err[512];
	int ret;

	if (!c->o->chap_user)
		return 0;
	ret = probe_chap_secret_read(c->o->chap_secret_file, secret,
				     sizeof(secret), err, sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return ret;
	}
	ret = iscsi_set_initiator_username_pwd(c->iscsi, c->o->chap_user,
					       secret);
	explicit_bzero(secret, sizeof(secret));
	if (ret) {
		sp_err("cannot set the CHAP user '%s': %s", c->o->chap_user,
		       iscsi_get_error(c->iscsi));
		return -EINVAL;
	}
	return 0;
}

static int connect_lun(struct probe_ctx *c, int *logged_in)
{
	struct scsi_readcapacity16 *rc16;
	struct scsi_task *task;
	int ret;

	c->iscsi = iscsi_create_context(c->o->initiator);
	if (!c->iscsi) {
		sp_err("cannot create an iSCSI context for initiator '%s'",
		       c->o->initiator);
		return -ENOMEM;
	}
	iscsi_set_log_fn(c->iscsi, libiscsi_to_hook);
	iscsi_set_log_level(c->iscsi, 1);
	iscsi_set_targetname(c->iscsi, c->url.iqn);
	iscsi_set_session_type(c->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(c->iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	iscsi_set_timeout(c->iscsi, (int)c->o->timeout_s);
	/* A silent reconnect would hide a broken path and its latency. */
	iscsi_set_noautoreconnect(c->iscsi, 1);
	ret = set_chap(c);
	if (ret)
		return ret;
	/* Three steps rather than iscsi_full_connect_sync so the one
	 * message says which of them failed. */
	if (iscsi_connect_sync(c->iscsi, c->url.portal)) {
		sp_debug("libiscsi: %s", iscsi_get_error(c->iscsi));
		ret = tcp_diagnose(&c->url, (int)c->o->timeout_s);
		if (ret == -EDESTADDRREQ)
			sp_err("cannot connect to %s: host '%s' does not resolve",
			       c->url.portal, c->url.host);
		else
			sp_err("cannot connect to %s: %s", c->url.portal,
			       strerror(-ret));
		return -ECONNREFUSED;
	}
	if (iscsi_login_sync(c->iscsi)) {
		sp_err("cannot log in to %s at %s: %s", c->url.iqn,
		       c->url.portal, iscsi_get_error(c->iscsi));
		return -ECONNREFUSED;
	}
	*logged_in = 1;
	ret = clear_unit_attentions(c);
	if (ret)
		return ret;
	task = iscsi_readcapacity16_sync(c->iscsi, c->url.lun);
	if (!task || task->status != SCSI_STATUS_GOOD ||
	    !(rc16 = scsi_datain_unmarshall(task))) {
		sp_err("%s: LUN %d of %s does not answer READ CAPACITY(16): %s",
		       c->url.portal, c->url.lun, c->url.iqn,
		       iscsi_get_error(c->iscsi));
		if (task)
			scsi_free_scsi_task(task);
		return -ECONNREFUSED;
	}
	c->blocksize = rc16->block_length;
	c->res->block_size = rc16->block_length;
	c->res->capacity_bytes = (rc16->returned_lba + 1) * rc16->block_length;
	scsi_free_scsi_task(task);
	if (!c->blocksize) {
		sp_err("%s: the LUN reports a block size of 0", c->o->url);
		return -EIO;
	}
	return 0;
}

/* The region can only be checked against the LUN once we know it. */
static int plan_region(struct probe_ctx *c)
{
	const struct probe_opts *o = c->o;
	uint64_t cap = c->res->capacity_bytes, size;

	if (o->bs % c->blocksize || o->offset % c->blocksize) {
		sp_err("%s: bs %llu and offset %llu must be multiples of the "
		       "LUN's block size %u", o->url,
		       (unsigned long long)o->bs,
		       (unsigned long long)o->offset, c->blocksize);
		return -EINVAL;
	}
	if (o->offset >= cap) {
		sp_err("%s: offset %llu is beyond the LUN's %llu bytes",
		       o->url, (unsigned long long)o->offset,
		       (unsigned long long)cap);
		return -EINVAL;
	}
	size = o->size ? o->size : cap - o->offset;
	if (size > cap - o->offset) {
		sp_err("%s: offset %llu + size %llu is beyond the LUN's %llu "
		       "bytes", o->url, (unsigned long long)o->offset,
		       (unsigned long long)size, (unsigned long long)cap);
		return -EINVAL;
	}
	size -= size % o->bs;
	if (!size) {
		sp_err("%s: no room for one %llu-byte I/O at offset %llu",
		       o->url, (unsigned long long)o->bs,
		       (unsigned long long)o->offset);
		return -EINVAL;
	}
	probe_plan_init(&c->plan, o->offset, size, o->bs,
			o->rw == PROBE_RANDREAD || o->rw == PROBE_RANDWRITE,
			(uint64_t)o->pattern);
	return 0;
}

static int alloc_slots(struct probe_ctx *c)
{
	int64_t i;

	c->slots = calloc((size_t)c->o->qd, sizeof(*c->slots));
	if (!c->slots)
		return -ENOMEM;
	for (i = 0; i < c->o->qd; i++) {
		c->slots[i].ctx = c;
		if (c->writing && !(c->slots[i].wbuf = malloc(c->o->bs)))
			return -ENOMEM;
	}
	return 0;
}

static int event_loop(struct probe_ctx *c)
{
	struct pollfd pfd;
	int n, timeout_ms;
	int64_t left;

	while (c->inflight > 0) {
		pfd.fd = iscsi_get_fd(c->iscsi);
		pfd.events = (short)iscsi_which_events(c->iscsi);
		pfd.revents = 0;
		/* Wake at least once a second so libiscsi can expire
		 * commands, and at the deadline to stop submitting. */
		timeout_ms = pfd.events ? 1000 : 100;
		if (c->deadline) {
			left = (c->deadline - sp_now_ns()) / SP_NSEC_PER_MSEC;
			if (left >= 0 && left < timeout_ms)
				timeout_ms = (int)left + 1;
		}
		n = poll(&pfd, 1, timeout_ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sp_err("%s: poll: %s", c->o->url, strerror(errno));
			return -errno;
		}
		if (iscsi_service(c->iscsi, n > 0 ? pfd.revents : 0) < 0) {
			sp_err("%s: connection lost: %s", c->o->url,
			       iscsi_get_error(c->iscsi));
			return -EIO;
		}
		if (c->o->stop && *c->o->stop)
			c->res->interrupted = 1;
	}
	return 0;
}

static void finish(struct probe_ctx *c)
{
	struct probe_result *r = c->res;

	probe_lat_summarize(&c->lat, &r->lat);
	r->elapsed_ns = r->ios ? c->t_last - c->t_first : 0;
	if (r->elapsed_ns > 0) {
		double secs = (double)r->elapsed_ns / SP_NSEC_PER_SEC;

		r->iops = (double)r->ios / secs;
		r->mib_s = (double)r->bytes / secs / (1024.0 * 1024.0);
	}
}

static void teardown(struct probe_ctx *c, int logged_in)
{
	int64_t i;

	c->closing = 1;
	if (c->iscsi) {
		if (logged_in)
			iscsi_logout_sync(c->iscsi);
		iscsi_destroy_context(c->iscsi);
	}
	if (c->slots) {
		for (i = 0; i < c->o->qd; i++)
			free(c->slots[i].wbuf);
		free(c->slots);
	}
	probe_lat_free(&c->lat);
}

int probe_run(const struct probe_opts *o, struct probe_result *res)
{
	struct probe_ctx c;
	char err[SP_OPT_ERRLEN];
	int64_t i;
	int ret, logged_in = 0;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.res = res;
	probe_lat_init(&c.lat);
	ret = probe_opts_validate(o, err, sizeof(err));
	if (!ret)
		ret = probe_url_parse(o->url, &c.url, err, sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return ret;
	}
	c.writing = o->rw == PROBE_WRITE || o->rw == PROBE_RANDWRITE;
	c.max_ios = (uint64_t)o->ios;
	if (!c.max_ios && !o->time_ns)
		c.max_ios = PROBE_DEFAULT_IOS;

	ret = connect_lun(&c, &logged_in);
	if (ret)
		goto out;
	ret = plan_region(&c);
	if (!ret)
		ret = alloc_slots(&c);
	if (ret)
		goto out;
	if (o->time_ns)
		c.deadline = sp_now_ns() + o->time_ns;
	for (i = 0; i < o->qd; i++)
		submit(&c, &c.slots[i]);
	ret = event_loop(&c);
	if (ret)
		logged_in = 0;	/* the session is gone; logout would wait */
	if (!ret)
		ret = c.failed;
	if (!ret && res->interrupted)
		ret = -EINTR;
	finish(&c);
out:
	teardown(&c, logged_in);
	return ret;
}
