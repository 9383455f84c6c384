/* The uml lab supervisor's relay: see lab_umlrelay.h. */
#include "lab/lab_umlrelay.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int buf_frame(struct sp_lab_relay_buf *b, int type, const void *p, size_t n)
{
	unsigned char *q = realloc(b->p, b->len + SP_LAB_FRAME_HDR + n);

	if (!q)
		return -ENOMEM;
	b->p = q;
	if (sp_lab_frame_header(type, n, q + b->len))
		return -EINVAL;
	if (n)
		memcpy(q + b->len + SP_LAB_FRAME_HDR, p, n);
	b->len += SP_LAB_FRAME_HDR + n;
	return 0;
}

/* Writes what b holds as far as fd takes it: 0, or -errno. */
static int buf_flush(struct sp_lab_relay_buf *b, int fd)
{
	ssize_t w;

	while (b->off < b->len) {
		w = send(fd, b->p + b->off, b->len - b->off, MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (w < 0)
			return -errno;
		b->off += (size_t)w;
	}
	b->len = b->off = 0;
	return 0;
}

static void buf_drop(struct sp_lab_relay_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void sp_lab_relay_init(struct sp_lab_relay *r, int gfd,
		       void (*wake)(void *ctx), void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->gfd = gfd;
	r->cfd = -1;
	r->wake = wake;
	r->ctx = ctx;
	sp_lab_dec_init(&r->gdec);
	sp_lab_dec_init(&r->cdec);
}

void sp_lab_relay_free(struct sp_lab_relay *r)
{
	if (r->cfd >= 0)
		close(r->cfd);
	r->cfd = -1;
	sp_lab_dec_free(&r->gdec);
	sp_lab_dec_free(&r->cdec);
	buf_drop(&r->to_guest);
	buf_drop(&r->to_host);
}

int sp_lab_relay_quiet(const struct sp_lab_relay *r)
{
	return r->cfd < 0 && r->idle && !r->to_guest.len;
}

void sp_lab_relay_take_host(struct sp_lab_relay *r, int cfd)
{
	r->cfd = cfd;
	sp_lab_dec_init(&r->cdec);
}

static void wake(struct sp_lab_relay *r)
{
	if (r->wake)
		r->wake(r->ctx);
}

int sp_lab_relay_host_gone(struct sp_lab_relay *r)
{
	if (r->cfd >= 0)
		close(r->cfd);
	r->cfd = -1;
	buf_drop(&r->to_host);
	sp_lab_dec_free(&r->cdec);
	if (r->idle)
		return 0;
	wake(r);
	return buf_frame(&r->to_guest, SP_LAB_F_GONE, NULL, 0);
}

/* The host's bytes: whole frames but GONE on to the guest. 0, or
 * -ENOMEM. */
static int from_host(struct sp_lab_relay *r)
{
	unsigned char buf[65536];
	const unsigned char *pl;
	ssize_t got = recv(r->cfd, buf, sizeof(buf), 0);
	size_t n;
	int type, ret;

	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (got <= 0)
		return sp_lab_relay_host_gone(r);
	if (sp_lab_dec_feed(&r->cdec, buf, (size_t)got))
		return -ENOMEM;
	while ((ret = sp_lab_dec_next(&r->cdec, &type, &pl, &n)) == 1) {
		if (type == SP_LAB_F_GONE)
			continue;
		wake(r);
		r->idle = 0;
		if (buf_frame(&r->to_guest, type, pl, n))
			return -ENOMEM;
	}
	/* a host that speaks no frames is dropped, as the agent would */
	return ret < 0 ? sp_lab_relay_host_gone(r) : 0;
}

/* The guest's frames to the host; its GONE ends the session. */
static int from_guest(struct sp_lab_relay *r)
{
	unsigned char buf[65536];
	const unsigned char *pl;
	ssize_t got = recv(r->gfd, buf, sizeof(buf), 0);
	size_t n;
	int type, ret;

	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (got <= 0)
		return -EPIPE;
	if (sp_lab_dec_feed(&r->gdec, buf, (size_t)got))
		return -ENOMEM;
	while ((ret = sp_lab_dec_next(&r->gdec, &type, &pl, &n)) == 1) {
		ret = sp_lab_frame_gone(type, n);
		if (ret < 0)
			return -EPROTO;
		if (ret) {
			r->idle = 1;
			continue;
		}
		if (r->cfd >= 0 && buf_frame(&r->to_host, type, pl, n))
			return -ENOMEM;
	}
	return ret < 0 ? -EPROTO : 0;
}

void sp_lab_relay_events(const struct sp_lab_relay *r, short *guest, short *host)
{
	/* one side's bytes are read only once the other took the last */
	*guest = (short)((r->to_host.len ? 0 : POLLIN) |
			 (r->to_guest.len ? POLLOUT : 0));
	*host = (short)((r->to_guest.len ? 0 : POLLIN) |
			(r->to_host.len ? POLLOUT : 0));
}

int sp_lab_relay_round(struct sp_lab_relay *r, short guest_revents,
		       short host_revents)
{
	int ret = 0;

	if (guest_revents & POLLOUT)
		ret = buf_flush(&r->to_guest, r->gfd);
	if (!ret && guest_revents & (POLLIN | POLLHUP | POLLERR))
		ret = from_guest(r);
	if (!ret && r->cfd >= 0 && host_revents & POLLOUT &&
	    buf_flush(&r->to_host, r->cfd))
		ret = sp_lab_relay_host_gone(r);
	if (!ret && r->cfd >= 0 && host_revents & (POLLIN | POLLHUP | POLLERR))
		ret = from_host(r);
	return ret;
}
