/* CHAP on a topology's targets: `up` makes one random user and secret
 * per topology, binds them to every path's target (beside the address
 * ACL) and gives them to the initiator before login. The secret lives
 * only in a root-only file of the state directory and in the argv of a
 * few short tgtadm/iscsiadm runs (docs/up-down.md says why and what
 * that leaves open); never in the journal or a log. */
#ifndef SP_BRINGUP_CHAP_H
#define SP_BRINGUP_CHAP_H

#include <stddef.h>

#include "harness/bringup/bringup.h"

#define SP_CHAP_SECRET_FILE "chap-secret"
/* iscsid wants 12 to 16 characters at least; tgt takes up to 255 */
#define SP_CHAP_SECRET_CHARS 24
#define SP_CHAP_SECRET_MAX 256

/* n - 1 characters of [A-Za-z0-9] from getrandom(2), NUL-terminated.
 * 0 or -errno. */
int sp_bringup_chap_random(char *buf, size_t n);

/* DIR/chap-secret */
void sp_bringup_chap_file(const char *dir, char *buf, size_t len);

/* A new user (into st->chap_user) and secret, the journal line naming
 * the user written to fd first, then the secret into the state
 * directory: mode 0600, through a fresh O_EXCL|O_NOFOLLOW file renamed
 * into place, and only when dir is ours and not writable by others.
 * 0 or -errno with err. */
int sp_bringup_chap_setup(int fd, const char *dir, struct sp_state *st,
			  char *secret, size_t slen, char *err,
			  size_t errlen);

/* The account on one path's tgtd and its binding to the target. */
int sp_bringup_chap_target(const struct sp_sys_ops *ops,
			   const struct sp_state_path *p, const char *user,
			   const char *secret, char *err, size_t errlen);

/* Removes the secret file; 0 when it is gone (or never was). */
int sp_bringup_chap_remove(const char *dir);

#endif
