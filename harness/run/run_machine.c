/* The machine a case runs on, for its record: /proc/stat (the guest's,
 * in the lab, whose CPU the emulator spends on every I/O), native or
 * lab, the historical-service-time build /sys shows, the kernel. */
#include "harness/run/run_exec.h"

#include "harness/bringup/bringup.h"

#include "common/file.h"
#include "common/machine.h"
#include "lab/hst_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int sp_run_real_cpustat(void *ctx, char **text)
{
	(void)ctx;
	return sp_file_read("/proc/stat", SP_FILE_TEXT_MAX, text, NULL);
}

void sp_run_real_env_info(void *ctx, struct sp_case_env *env)
{
	struct sp_hst_info info;
	struct utsname u;
	char skew[32];

	(void)ctx;
	snprintf(env->mode, sizeof(env->mode), "%s",
		 sp_machine_in_lab() ? "lab" : "native");
	snprintf(env->engine, sizeof(env->engine), "%s", sp_machine_engine());
	snprintf(env->time, sizeof(env->time), "%s", sp_machine_time());
	snprintf(env->patches, sizeof(env->patches), "%s",
		 sp_machine_in_lab() && getenv("SLOWPATH_LAB_PATCHES") ?
		 getenv("SLOWPATH_LAB_PATCHES") : "");
	if (sp_bringup_hst_loaded(&sp_sys_real, &info) ||
	    sp_hst_info_label(&info, env->hst, sizeof(env->hst)))
		snprintf(env->hst, sizeof(env->hst), "not loaded");
	/* hst-5.8's skew whenever the kernel has it; which build a case
	 * ran the run loop knows */
	env->has_hst_skew = !sp_file_read_prefix(SP_HST58_SYS_SKEW, skew,
						 sizeof(skew)) &&
		!sp_hst_skew_parse(skew, &env->hst_skew_ns);
	if (!uname(&u))
		snprintf(env->kernel, sizeof(env->kernel), "%.63s", u.release);
}
