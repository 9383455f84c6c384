/* slowpath fault and slowpath down once parsed (fault_do.h). */
#include "harness/fault/fault_do.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/units.h"
#include "harness/bringup/bringup_do.h"
#include "harness/bringup/lock.h"
#include "harness/fault/fault_apply.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_waiting;

static void on_signal(int sig)
{
	(void)sig;
	stop_waiting = 1;
}

static int exit_code(int ret)
{
	if (ret == -EBUSY || ret == -EINVAL || ret == -ERANGE)
		return SP_EXIT_USAGE;
	return sp_exit_from_errno(ret);
}

/* The journal, under the lock; 1 when no topology is up. */
static int load(struct sp_state *st, int *lock)
{
	char err[SP_BRINGUP_ERRLEN];
	int ret;

	if (sp_lock_take(NULL, "fault", SP_LOCK_WAIT_MS, lock, err,
			 sizeof(err))) {
		sp_err("fault: %s", err);
		return -EBUSY;
	}
	ret = sp_state_load(NULL, st, err, sizeof(err));
	if (!ret)
		return 0;
	sp_lock_release(NULL, *lock);
	if (ret == -ENOENT)
		return 1;
	sp_err("fault: %s", ret == -EINVAL ? err : strerror(-ret));
	return ret;
}

/* The end of --for: our own fault undone, only ours, waiting a while
 * for a busy lock rather than leaving it in place. */
static int restore_own(const char *path, const char *id)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN];
	int ret = sp_fault_end_own(&sp_sys_real, &st, NULL, path, id,
				   SP_FAULT_END_WAIT_MS, err, sizeof(err));

	if (ret == -ESTALE) {
		sp_info("fault: %s", err);
		return SP_EXIT_OK;
	}
	if (ret) {
		sp_err("fault: restore %s: %s", path, err);
		return ret == -EWOULDBLOCK ? SP_EXIT_RUNTIME : exit_code(ret);
	}
	return SP_EXIT_OK;
}

/* Still our flap? A down or restore meanwhile ends it. */
static int still_flapping(const char *path, const char *id,
			  struct sp_state *st)
{
	char err[SP_STATE_ERRLEN];
	struct sp_state_path *p;

	if (sp_state_load(NULL, st, err, sizeof(err)))
		return 0;
	p = sp_state_find_path(st, path);
	return p && !strcmp(p->fault_how, "flap") && !strcmp(p->fault_id, id);
}

/* --for: sleeps until the time is over or a signal, toggling a flap's
 * link every period; then restores. */
static int wait_then_restore(const struct sp_fault *f, const char *id)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN];
	int64_t t0 = sp_now_ns(), next = t0 + f->flap_period_ns;
	int down = 1;

	sp_catch_stop_signals(on_signal);
	while (!stop_waiting && sp_now_ns() - t0 < f->for_ns) {
		usleep(50000);
		if (f->how != SP_FAULT_FLAP || sp_now_ns() < next)
			continue;
		next += f->flap_period_ns;
		if (!still_flapping(f->path, id, &st))
			break;
		down = !down;
		if (sp_fault_flap_tick(&sp_sys_real, &st, f, down, err,
				       sizeof(err)))
			sp_warn("fault: flap: %s", err);
	}
	if (stop_waiting)
		sp_info("fault: interrupted after %.1f s; restoring",
			(double)(sp_now_ns() - t0) / 1e9);
	return restore_own(f->path, id);
}

int sp_do_fault(const struct sp_fault *f, int for_given)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN], id[SP_STATE_FAULT_IDLEN];
	int ret, lock;

	if (f->how == SP_FAULT_FLAP && !for_given)
		sp_info("fault: no --for: the link stays down until restored "
			"(only --for toggles it)");
	if (geteuid() != 0) {
		sp_err("fault: needs root (signals, links, netem, the store)");
		return SP_EXIT_ENV;
	}
	ret = load(&st, &lock);
	if (ret) {
		if (ret > 0)
			sp_err("fault: no topology is up");
		return ret > 0 ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
	}
	if (!sp_state_find_path(&st, f->path)) {
		sp_lock_release(NULL, lock);
		sp_err("fault: topology %s has no path '%s'", st.topology,
		       f->path);
		return SP_EXIT_USAGE;
	}
	ret = sp_fault_apply(&sp_sys_real, &st, f, err, sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("fault: %s", err);
		return exit_code(ret);
	}
	if (f->how == SP_FAULT_RESTORE || !f->for_ns)
		return SP_EXIT_OK;
	/* the id the journal gave our fault: the end undoes that one only */
	snprintf(id, sizeof(id), "%s", sp_state_find_path(&st, f->path)->fault_id);
	return wait_then_restore(f, id);
}

int sp_do_down(void)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN];
	int ret, none, lock;
	int64_t t0 = sp_now_ns();

	if (geteuid() != 0) {
		sp_err("slowpath down needs root");
		return SP_EXIT_ENV;
	}
	/* a holder that died let go of it; a live one is named */
	if (sp_do_take_lock("down", &lock))
		return SP_EXIT_RUNTIME;
	none = sp_do_load_state(&st);
	if (none < 0)
		sp_warn("the state is unreadable; sweeping by name only");
	signal(SIGINT, SIG_IGN);	/* half a teardown helps nobody */
	/* faults first: a held store or a stopped tgtd would stall the
	 * logout; down's own sweep still continues a stopped tgtd */
	if (!none && sp_fault_restore_all(&sp_sys_real, &st, sp_state_dir(),
					  err, sizeof(err)))
		sp_warn("down: undoing a fault: %s (going on)", err);
	ret = sp_bringup_down(&sp_sys_real, none ? NULL : &st, sp_state_dir(),
			      err, sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("down: %s", err);
		return sp_do_exit_code(ret);
	}
	sp_info("down in %.1f s%s", (double)(sp_now_ns() - t0) / 1e9,
		none ? " (nothing was recorded as up)" : "");
	return SP_EXIT_OK;
}
