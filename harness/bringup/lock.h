/* One lock for everything that changes the topology (up, down, run,
 * selector set, delay set): a flock on STATE/lock, so a `down` cannot
 * pull the journal out from under an `up` that is still creating. The
 * kernel drops it when its holder dies, also by SIGKILL, so a dead
 * holder never blocks anyone. */
#ifndef SP_LOCK_H
#define SP_LOCK_H

#include <stddef.h>

#define SP_LOCK_FILE "lock"
/* How long a second command waits for the first before giving up. */
#define SP_LOCK_WAIT_MS 5000

/* Takes the lock in dir (NULL: sp_state_dir()) for command what ("up"),
 * waiting up to wait_ms, and records "PID what" in it. 0 with *fd, or
 * -EWOULDBLOCK with err "another slowpath (pid N: up) is working on
 * the topology", or -errno. */
int sp_lock_take(const char *dir, const char *what, unsigned int wait_ms,
		 int *fd, char *err, size_t errlen);
/* Releases it; the lock file goes too when no journal is left (a
 * waiter that opened it notices and takes the new one). */
void sp_lock_release(const char *dir, int fd);

#endif
