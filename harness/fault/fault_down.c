/* slowpath down (fault_down.h). */
#include "harness/fault/fault_down.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/units.h"
#include "harness/bringup/bringup_do.h"
#include "harness/bringup/lock.h"
#include "harness/fault/fault_apply.h"

#include <signal.h>
#include <unistd.h>

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
