/* The request of tgt_mgmt.c on tgtd's management socket: tgt's own
 * struct tgtadm_req and the text after it, then struct tgtadm_rsp and
 * its text back, as tgtadm does it (usr/tgtadm.c ipc_mgmt_req). Built
 * against the headers of exactly the installed tgt (mk/tgt-source.sh),
 * so the layout is tgtd's. */
#include "harness/bringup/tgt_mgmt.h"

#include <errno.h>
#include <poll.h>
#include <scsi/scsi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <tgtadm.h>

static void say(char *msg, size_t len, const char *fmt, const char *a,
		unsigned int port, int err)
{
	if (msg && len)
		snprintf(msg, len, fmt, a, port, strerror(err));
}

static int sock_path(const char *base, unsigned int port,
		     struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	int n = snprintf(a->sun_path, sizeof(a->sun_path), "%s.%u", base,
			 port);

	return n < 0 || (size_t)n >= sizeof(a->sun_path) ? -ENAMETOOLONG : 0;
}

/* what tgtd's refusals mean, for the message (tgtadm_error.h) */
static const char *refusal(uint32_t err)
{
	switch (err) {
	case TGTADM_NO_DRIVER: return "no such driver (lld)";
	case TGTADM_NO_TARGET: return "no such target";
	case TGTADM_NO_LUN: return "no such logical unit";
	case TGTADM_TARGET_EXIST: return "the target exists already";
	case TGTADM_LUN_EXIST: return "the logical unit exists already";
	case TGTADM_ACL_EXIST: return "that initiator is bound already";
	case TGTADM_USER_EXIST: return "the account exists already";
	case TGTADM_NO_USER: return "no such account";
	case TGTADM_INVALID_REQUEST: return "an invalid request";
	case TGTADM_UNKNOWN_PARAM: return "an unknown parameter";
	case TGTADM_TARGET_ACTIVE: return "the target has sessions";
	case TGTADM_UNSUPPORTED_OPERATION: return "an unsupported operation";
	default: return "refused";
	}
}

/* a connected socket with both directions bounded by timeout_ms, or
 * -errno */
static int connect_tgtd(const char *base, unsigned int port,
			unsigned int timeout_ms)
{
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (timeout_ms % 1000) * 1000 };
	struct sockaddr_un a;
	int fd, ret = sock_path(base, port, &a);

	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* all of len, over short transfers and signals; a closed peer is
 * -EPIPE */
static int xfer_all(int fd, void *buf, size_t len, int sending)
{
	char *p = buf;

	while (len) {
		ssize_t n = sending ? send(fd, p, len, MSG_NOSIGNAL)
				    : recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_all(int fd, const void *buf, size_t len)
{
	return xfer_all(fd, (void *)buf, len, 1);
}

static int recv_all(int fd, void *buf, size_t len)
{
	return xfer_all(fd, buf, len, 0);
}

static void encode(const struct sp_tgt_req *r, size_t text_len,
		   struct tgtadm_req *w)
{
	static const enum tgtadm_mode modes[] = {
		[SP_TGT_SYSTEM] = MODE_SYSTEM, [SP_TGT_TARGET] = MODE_TARGET,
		[SP_TGT_LU] = MODE_DEVICE, [SP_TGT_ACCOUNT] = MODE_ACCOUNT,
	};
	static const enum tgtadm_op ops[] = {
		[SP_TGT_NEW] = OP_NEW, [SP_TGT_DELETE] = OP_DELETE,
		[SP_TGT_SHOW] = OP_SHOW, [SP_TGT_BIND] = OP_BIND,
		[SP_TGT_UPDATE] = OP_UPDATE,
	};

	memset(w, 0, sizeof(*w));
	w->mode = modes[r->mode];
	w->op = ops[r->op];
	memcpy(w->lld, r->lld, sizeof(w->lld) < sizeof(r->lld) ?
	       sizeof(w->lld) : sizeof(r->lld));
	w->len = (uint32_t)(sizeof(*w) + text_len);
	w->tid = r->tid;
	w->lun = r->lun;
	w->device_type = TYPE_DISK;
	w->ac_dir = r->outgoing ? ACCOUNT_TYPE_OUTGOING : ACCOUNT_TYPE_INCOMING;
	w->force = (uint32_t)r->force;
}

/* the answer's text into out, the rest of it read and dropped */
static int read_text(int fd, uint32_t len, char *out, size_t outlen)
{
	char sink[512];
	size_t kept = 0;
	int ret = 0;

	while (!ret && len) {
		size_t room = out && kept + 1 < outlen ? outlen - 1 - kept : 0;
		size_t n = room ? room : sizeof(sink);

		n = n < len ? n : len;
		ret = recv_all(fd, room ? out + kept : sink, n);
		kept += room ? n : 0;
		len -= (uint32_t)n;
	}
	if (out && outlen)
		out[kept] = '\0';
	return ret;
}

/* tgtadm's wait after a system delete: until tgtd's socket refuses */
static int wait_gone(const char *base, unsigned int port,
		     unsigned int timeout_ms)
{
	unsigned int waited;

	for (waited = 0; waited <= timeout_ms; waited += 100) {
		int fd = connect_tgtd(base, port, 100);

		if (fd < 0)
			return fd == -ECONNREFUSED || fd == -ENOENT ? 0 : fd;
		close(fd);
		poll(NULL, 0, 100);
	}
	return -ETIMEDOUT;
}

static int exchange(int fd, const struct sp_tgt_req *r, char *out,
		    size_t outlen, uint32_t *tgt_err)
{
	size_t text_len = r->params[0] ? strlen(r->params) + 1 : 0;
	struct tgtadm_req w;
	struct tgtadm_rsp rsp;
	int ret;

	encode(r, text_len, &w);
	ret = send_all(fd, &w, sizeof(w));
	if (!ret && text_len)
		ret = send_all(fd, r->params, text_len);
	if (!ret)
		ret = recv_all(fd, &rsp, sizeof(rsp));
	if (ret)
		return ret;
	*tgt_err = rsp.err;
	if (rsp.err != TGTADM_SUCCESS || rsp.len < sizeof(rsp))
		return 0;
	return read_text(fd, rsp.len - (uint32_t)sizeof(rsp), out, outlen);
}

int sp_tgt_mgmt_send(const char *sock_base, const struct sp_tgt_req *r,
		     char *out, size_t outlen, char *msg, size_t msglen,
		     unsigned int timeout_ms)
{
	uint32_t tgt_err = TGTADM_SUCCESS;
	int fd, ret;

	if (out && outlen)
		out[0] = '\0';
	if (msg && msglen)
		msg[0] = '\0';
	fd = connect_tgtd(sock_base, r->port, timeout_ms);
	if (fd < 0) {
		say(msg, msglen, "cannot reach tgtd at %s.%u: %s", sock_base,
		    r->port, -fd);
		return -fd;
	}
	ret = exchange(fd, r, out, outlen, &tgt_err);
	close(fd);
	if (ret) {
		say(msg, msglen, "no answer from tgtd at %s.%u: %s", sock_base,
		    r->port, -ret);
		return -ret;
	}
	if (tgt_err != TGTADM_SUCCESS) {
		if (msg && msglen)
			snprintf(msg, msglen, "tgtd on control port %u: %s "
				 "(tgtadm error %u)", r->port,
				 refusal(tgt_err), tgt_err);
		return (int)tgt_err;
	}
	if (r->mode != SP_TGT_SYSTEM || r->op != SP_TGT_DELETE)
		return 0;
	ret = wait_gone(sock_base, r->port, timeout_ms);
	if (ret)
		say(msg, msglen, "tgtd at %s.%u did not go: %s", sock_base,
		    r->port, -ret);
	return -ret;
}

int sp_tgt_mgmt_run(const char *const *argv, char *out, size_t outlen,
		    char *msg, size_t msglen, unsigned int timeout_ms)
{
	struct sp_tgt_req *r;
	int ret;

	if (!argv[0] || strcmp(argv[0], "tgtadm"))
		return -ENOTSUP;
	r = malloc(sizeof(*r));	/* 8 KiB of text */
	if (!r)
		return -ENOTSUP;
	ret = sp_tgt_req_parse(argv, r);
	if (!ret)
		ret = sp_tgt_mgmt_send(TGT_IPC_NAMESPACE, r, out, outlen, msg,
				       msglen, timeout_ms);
	free(r);
	return ret < 0 ? -ENOTSUP : ret;
}
