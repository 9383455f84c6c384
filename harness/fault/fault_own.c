/* The end of a `fault PATH HOW --for D`: its own fault undone, and
 * only that. Between its apply and its end the path may have been
 * restored and faulted again by someone else (the journal's id says
 * whose fault it is), and the topology lock may be busy for a while
 * (a selector set, a delay set): waiting for it is bounded, and giving
 * up says so, since the fault then stays. See fault.h. */
#include "harness/fault/fault_apply.h"
#include "harness/bringup/lock.h"

#include "common/log.h"
#include "common/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* between two tries for a busy lock */
#define LOCK_RETRY_MS 1000

int sp_fault_restore_own(const struct sp_sys_ops *ops, struct sp_state *st,
			 const char *dir, const char *path, const char *id,
			 char *err, size_t errlen)
{
	struct sp_state_path *p = sp_state_find_path(st, path);

	if (!p)
		return sp_errf(err, errlen, -ENOENT, "topology %s has no path "
			       "'%s'", st->topology, path);
	if (!p->fault_how[0])
		return sp_errf(err, errlen, -ESTALE, "path %s has no fault any "
			       "more (restored meanwhile): nothing to undo",
			       p->label);
	if (!id || !*id || strcmp(p->fault_id, id))
		return sp_errf(err, errlen, -ESTALE, "path %s now has a %s "
			       "fault that another command set ('%s'): left in "
			       "place", p->label, p->fault_how, p->fault_spec);
	return sp_fault_restore_in(ops, st, dir, path, err, errlen);
}

/* The lock, tried every LOCK_RETRY_MS until wait_ms have passed; the
 * waits go through ops, so a test can count them. */
static int take_lock(const struct sp_sys_ops *ops, const char *dir,
		     unsigned int wait_ms, int *fd, char *err, size_t errlen)
{
	unsigned int waited = 0;
	int ret, said = 0;

	for (;;) {
		ret = sp_lock_take(dir, "fault", 0, fd, err, errlen);
		if (ret != -EWOULDBLOCK || waited >= wait_ms)
			return ret;
		if (!said++)
			sp_info("fault: %s; waiting up to %u s to undo the fault",
				err, wait_ms / 1000);
		ops->sleep_ms(ops->ctx, LOCK_RETRY_MS);
		waited += LOCK_RETRY_MS;
	}
}

int sp_fault_end_own(const struct sp_sys_ops *ops, struct sp_state *st,
		     const char *dir, const char *path, const char *id,
		     unsigned int wait_ms, char *err, size_t errlen)
{
	char why[SP_STATE_ERRLEN];
	int fd, ret = take_lock(ops, dir, wait_ms, &fd, why, sizeof(why));

	if (ret)
		return sp_errf(err, errlen, ret, "%s: path %s keeps its fault "
			       "('slowpath fault %s restore' undoes it)", why,
			       path, path);
	ret = sp_state_load(dir, st, why, sizeof(why));
	if (ret == -ENOENT) {
		sp_lock_release(dir, fd);
		return sp_errf(err, errlen, -ESTALE, "no topology is up any "
			       "more: nothing to undo");
	}
	if (ret) {
		sp_lock_release(dir, fd);
		return sp_errf(err, errlen, ret, "%s",
			       ret == -EINVAL ? why : strerror(-ret));
	}
	ret = sp_fault_restore_own(ops, st, dir, path, id, err, errlen);
	sp_lock_release(dir, fd);
	return ret;
}
