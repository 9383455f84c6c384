/* The running lab's control protocol (slowpath lab start): frames on the
 * virtio-serial port between the host's `slowpath` and the guest's
 * `slowpath lab agent`. Pure encode/decode only: the guest is a machine
 * the host trusts no more than a file a user names, so every length,
 * type and string is checked here, and lab_ctl.c does the I/O.
 *
 * A frame is an 8-byte header, 'S' 'P' TYPE 0 and a big-endian 32-bit
 * payload length, then the payload. One session: the host sends one
 * REQ, then SIG frames at will; the guest answers OUT/ERR stream bytes,
 * FILE/DATA for what the command wrote into its output folders, and
 * one EXIT. A session may instead ask for what an interrupted command
 * left (KEPT_ASK): the guest answers a KEPT frame per kept result, each
 * followed by its FILE/DATA, then EXIT; the host drops each result it
 * wrote whole with another KEPT_ASK. On the uml lab the port is a
 * console line relayed by a supervisor, which says a host's going with
 * GONE (a line never hangs up). */
#ifndef SP_LAB_FRAME_H
#define SP_LAB_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define SP_LAB_FRAME_HDR 8
/* Far above any request or chunk we send; a bigger length is hostile. */
#define SP_LAB_FRAME_MAX (256u << 10)
/* The virtio-serial port's name in the guest. */
#define SP_LAB_PORT_CTL "sp.ctl"

enum sp_lab_frame_type {
	SP_LAB_F_REQ = 'R',	/* host: struct sp_lab_req, encoded */
	SP_LAB_F_SIG = 'K',	/* host: one byte, SIGINT/SIGTERM/SIGHUP */
	SP_LAB_F_OUT = 'O',	/* guest: the command's stdout bytes */
	SP_LAB_F_ERR = 'E',	/* guest: its stderr bytes */
	SP_LAB_F_FILE = 'F',	/* guest: u32 root<<16|mode, a relative path */
	SP_LAB_F_DATA = 'D',	/* guest: bytes of the file FILE opened */
	SP_LAB_F_EXIT = 'X',	/* guest: u32 exit code 0..255, the end */
	SP_LAB_F_KEPT_ASK = 'P', /* host: 'L' send kept results, 'D' id drop one */
	SP_LAB_F_KEPT = 'G',	/* guest: one kept result: id, start, roots */
	/* uml lab only, empty: from its supervisor (lab_umlsup.c), the
	 * host went away, as a virtio port's hang-up says on qemu; from
	 * the agent, it has no session (at start, and after each GONE) */
	SP_LAB_F_GONE = 'H',
};

/* 1 when type is one of the above. */
int sp_lab_frame_type_ok(int type);
/* A decoded frame as GONE: 1 a GONE, 0 another type, -EBADMSG a GONE
 * with a payload (nothing sends one). */
int sp_lab_frame_gone(int type, size_t len);

/* The header for a payload of len bytes: 0, -EINVAL (bad type) or
 * -EMSGSIZE (len over SP_LAB_FRAME_MAX). */
int sp_lab_frame_header(int type, size_t len,
			unsigned char hdr[SP_LAB_FRAME_HDR]);

/* Bytes in, whole frames out. */
struct sp_lab_dec {
	unsigned char *buf;
	size_t len, cap;
	size_t consumed;	/* of buf, by the frames already returned */
	size_t last;		/* bytes of the frame returned last, or 0 */
};

void sp_lab_dec_init(struct sp_lab_dec *d);
void sp_lab_dec_free(struct sp_lab_dec *d);
/* Appends n bytes: 0 or -ENOMEM. */
int sp_lab_dec_feed(struct sp_lab_dec *d, const void *data, size_t n);
/* The next whole frame: 1 with *type, *payload (inside d's buffer,
 * valid until the next feed/next call) and *len; 0 when more bytes are
 * needed; -EBADMSG (bad magic, reserved byte or type) or -EMSGSIZE
 * (length over SP_LAB_FRAME_MAX), after which the stream is lost. */
int sp_lab_dec_next(struct sp_lab_dec *d, int *type,
		    const unsigned char **payload, size_t *len);
/* Puts the frame sp_lab_dec_next returned last back, to be returned
 * again (the agent hands a new host's first frame to its serve loop):
 * 0, or -EINVAL when there is none to put back. */
int sp_lab_dec_unget(struct sp_lab_dec *d);
/* Bytes held that are not a whole frame yet: at end of stream, a
 * truncated frame. */
size_t sp_lab_dec_pending(const struct sp_lab_dec *d);

/* A command for the guest. */
struct sp_lab_req {
	uint16_t rows, cols;	/* the host's terminal, 0 when none */
	char *cwd;		/* absolute */
	char **argv;		/* NULL-terminated, at least one */
	char **env;		/* NULL-terminated "NAME=VALUE"s */
	/* absolute folders whose new files come back to the host */
	char **sync;
	/* storage behind the pointers above, when decoded */
	char *blob;
};

#define SP_LAB_REQ_MAX_ITEMS 4096

/* Payload of a REQ; *out malloc'd. 0, -EINVAL (no argv, cwd or a sync
 * folder not absolute), -EMSGSIZE (over SP_LAB_FRAME_MAX), -ENOMEM. */
int sp_lab_req_encode(const struct sp_lab_req *r, unsigned char **out,
		      size_t *len);
/* The reverse; r is filled with pointers into r->blob (free with
 * sp_lab_req_free). 0 or -EBADMSG for anything malformed: unterminated
 * string, unknown tag, no or two cwds, no argv, relative paths, too
 * many items. */
int sp_lab_req_decode(const unsigned char *p, size_t len,
		      struct sp_lab_req *r);
void sp_lab_req_free(struct sp_lab_req *r);

/* FILE payload: relpath under the request's sync folder number root,
 * created with mode's 0777 bits. 0, -EINVAL (path not acceptable, root
 * over 0xffff), -ENOMEM. */
int sp_lab_file_encode(unsigned int root, uint32_t mode, const char *relpath,
		       unsigned char **out, size_t *len);
/* 0 with root, mode (0777 bits) and a malloc'd path; -EBADMSG (mode
 * bits beyond 0777, bad path), -ENOMEM. The caller checks root against
 * its request. */
int sp_lab_file_decode(const unsigned char *p, size_t len,
		       unsigned int *root, uint32_t *mode, char **relpath);

/* A path the guest may name under an output folder: 1..16 components
 * separated by single '/', each 1..255 characters of [A-Za-z0-9._+-]
 * starting with a letter or digit (so never "." or ".."), not absolute,
 * at most 1024 bytes. */
int sp_lab_relpath_ok(const char *path);

/* EXIT payload. */
void sp_lab_exit_encode(int code, unsigned char out[4]);
int sp_lab_exit_decode(const unsigned char *p, size_t len, int *code);

/* KEPT_ASK payload: op SP_LAB_KEPT_LIST (no id) or SP_LAB_KEPT_DROP
 * (the id of a result the host wrote whole). Encode: the length (1 or
 * 5), or -EINVAL for another op. Decode: 0, or -EBADMSG for an unknown
 * op, a length that does not fit it, or id 0. */
enum { SP_LAB_KEPT_LIST = 'L', SP_LAB_KEPT_DROP = 'D' };
int sp_lab_kept_ask_encode(int op, uint32_t id, unsigned char out[5]);
int sp_lab_kept_ask_decode(const unsigned char *p, size_t len, int *op,
			   uint32_t *id);

/* A result kept in the guest: the folders an interrupted command was
 * to send back (FILE's root numbers index them) and when it started. */
#define SP_LAB_KEPT_MAX_ROOTS 4
struct sp_lab_kept {
	uint32_t id;		/* never 0 */
	int64_t started;	/* epoch seconds */
	char *roots[SP_LAB_KEPT_MAX_ROOTS + 1];	/* absolute, NULL-ended */
	char *blob;		/* storage of roots, when decoded */
};
/* KEPT payload: u32 id, u64 start, then each root NUL-terminated.
 * 0, -EINVAL (id 0, no root, too many, one not absolute or longer
 * than PATH_MAX), -ENOMEM. */
int sp_lab_kept_encode(const struct sp_lab_kept *k, unsigned char **out,
		       size_t *len);
/* The reverse, k's roots pointing into k->blob (sp_lab_kept_free): 0,
 * -EBADMSG (short, id 0, no or too many roots, one relative, empty,
 * too long or unterminated), -ENOMEM. */
int sp_lab_kept_decode(const unsigned char *p, size_t len,
		       struct sp_lab_kept *k);
void sp_lab_kept_free(struct sp_lab_kept *k);

/* The host's folder name for a kept root: its last component when that
 * is a name sp_lab_relpath_ok takes, else "root"; with n > 1, "-n"
 * after it (two roots of one name). out: at least NAME_MAX + 1. */
void sp_lab_kept_name(const char *root, unsigned int n, char *out, size_t len);

#endif
