/* tgtd's management socket spoken in-process: the tgtadm command lines
 * slowpath runs, read as tgtadm reads them (tgt usr/tgtadm.c) into the
 * request tgtadm would send, then sent to /var/run/tgtd/socket.PORT.
 * A started process costs a uml guest ~35 ms of the host's CPU and a
 * TCG guest more, and `up` ran nine tgtadm per path (docs/lab.md); a
 * CHAP password on an argv is also readable by every local user.
 *
 * The argv stays the interface (the mocks of sp_sys_ops see it); the
 * parse is pure and knows only the options slowpath uses, anything else
 * (-ENOTSUP) is left to the tgtadm program. The wire half
 * (tgt_mgmt_wire.c) is built against tgt's own tgtadm.h. */
#ifndef SP_TGT_MGMT_H
#define SP_TGT_MGMT_H

#include <stddef.h>
#include <stdint.h>

/* tgtd's own limit on a request's text (usr/mgmt.c MAX_MGT_BUFSIZE) */
#define SP_TGT_PARAMS_MAX 8192
#define SP_TGT_LLD_MAX 64	/* TGT_LLD_NAME_LEN */

enum sp_tgt_mode { SP_TGT_SYSTEM, SP_TGT_TARGET, SP_TGT_LU, SP_TGT_ACCOUNT };
enum sp_tgt_op {
	SP_TGT_NEW, SP_TGT_DELETE, SP_TGT_SHOW, SP_TGT_BIND, SP_TGT_UPDATE
};

struct sp_tgt_req {
	unsigned int port;	/* -C: the control port */
	enum sp_tgt_mode mode;
	enum sp_tgt_op op;
	char lld[SP_TGT_LLD_MAX];
	int32_t tid;		/* -1: none given */
	uint64_t lun;		/* UINT64_MAX: none given */
	int force;
	int outgoing;		/* an account's direction */
	/* "key=value,..." as tgtadm builds it, NUL-terminated */
	char params[SP_TGT_PARAMS_MAX];
};

/* argv (argv[0] "tgtadm", NULL-terminated) into r. 0; -ENOTSUP for an
 * option, mode or operation not spoken here (run tgtadm instead);
 * -EINVAL for a number that is not one or a missing value; -ENOSPC
 * when the text would not fit. */
int sp_tgt_req_parse(const char *const *argv, struct sp_tgt_req *r);

/* r to the tgtd of r->port: sock_base ("/var/run/tgtd/socket" for the
 * real one) with ".PORT". The answer's text goes to out (NUL-terminated,
 * truncated; NULL: dropped). A system delete also waits, as tgtadm does,
 * until tgtd has closed its socket. Returns what tgtadm would exit
 * with: 0, or > 0 with msg saying why (tgtd's refusal, no tgtd there,
 * no answer within timeout_ms). */
int sp_tgt_mgmt_send(const char *sock_base, const struct sp_tgt_req *r,
		     char *out, size_t outlen, char *msg, size_t msglen,
		     unsigned int timeout_ms);

/* argv as tgtadm would run it, in-process: -ENOTSUP when argv is not
 * for tgtadm or asks what the parse does not speak; else as
 * sp_tgt_mgmt_send to tgtd's real socket. */
int sp_tgt_mgmt_run(const char *const *argv, char *out, size_t outlen,
		    char *msg, size_t msglen, unsigned int timeout_ms);

#endif
