/* The uml lab supervisor's relay (lab_umlsup.h), apart from processes
 * and signals so that unit tests drive it over socket pairs: one host
 * at a time between the control socket and the guest's console line.
 * A host's bytes go to the guest only as whole frames (a frame half
 * sent by a host that left would swallow the GONE after it), and never
 * its GONE (that word is the supervisor's); the guest's frames go to
 * the host but GONE, which says the agent has no session. */
#ifndef SP_LAB_UMLRELAY_H
#define SP_LAB_UMLRELAY_H

#include "lab/lab_frame.h"

#include <stddef.h>

/* Bytes on their way to one side. */
struct sp_lab_relay_buf {
	unsigned char *p;
	size_t len, off;
};

struct sp_lab_relay {
	int gfd;		/* the guest's line, non-blocking */
	int cfd;		/* the host being served, or -1 */
	int idle;		/* the agent said GONE since it last got a frame */
	struct sp_lab_dec gdec, cdec;	/* the guest's, the host's frames */
	struct sp_lab_relay_buf to_guest, to_host;
	/* called before anything is queued for the guest (it may be
	 * stopped) */
	void (*wake)(void *ctx);
	void *ctx;
};

void sp_lab_relay_init(struct sp_lab_relay *r, int gfd,
		       void (*wake)(void *ctx), void *ctx);
/* Closes the host (not the guest's line), frees the buffers. */
void sp_lab_relay_free(struct sp_lab_relay *r);

/* 1 when no host is served, the agent is idle and nothing is queued
 * for it: a new host may be taken, the guest may be stopped. */
int sp_lab_relay_quiet(const struct sp_lab_relay *r);
/* cfd (non-blocking) becomes the host served. */
void sp_lab_relay_take_host(struct sp_lab_relay *r, int cfd);
/* The host went: closed, what it half sent dropped, GONE queued for the
 * agent unless it had nothing of this host. 0 or -ENOMEM. */
int sp_lab_relay_host_gone(struct sp_lab_relay *r);

/* poll events for the guest's line and the host. */
void sp_lab_relay_events(const struct sp_lab_relay *r, short *guest, short *host);
/* What poll said of them: 0, or an error that ends the lab: -EPROTO
 * (the guest's line carries no frames, or a GONE with a payload),
 * -EPIPE (the guest closed it), -ENOMEM, -errno. A host's errors only
 * drop it. */
int sp_lab_relay_round(struct sp_lab_relay *r, short guest_revents,
		       short host_revents);

#endif
