/* reproduce's real effects: the bringup, fault and run rooms reached
 * as `slowpath up`, `delay set`, `run` and `down` reach them once their
 * options are parsed (harness/bringup/bringup_do.h,
 * harness/fault/fault_do.h, harness/run/run_do.h), so a reproduction
 * prints and writes what the user's commands would, without an argv in
 * between. */
#include "common/file.h"
#include "common/log.h"
#include "harness/bringup/bringup_do.h"
#include "harness/bringup/state.h"
#include "harness/cli/repro_cli.h"
#include "harness/fault/fault_do.h"
#include "harness/run/run_do.h"
#include "harness/run/run_exec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* the most `up --scale` takes */
#define REPRO_SCALE_MAX (1ULL << 30)

static int real_up(void *ctx, const struct sp_repro_up *u)
{
	const struct sp_repro_real_ctx *rc = ctx;
	struct sp_up_args cli;

	if (!u->scale || u->scale > REPRO_SCALE_MAX)
		return -EINVAL;
	sp_cli_up_defaults(&cli);
	cli.unit_ns = u->unit_ns;
	cli.scale = (int64_t)u->scale;
	cli.calibrate = u->calibrate;
	if (u->calibrate)
		cli.calib_base_ns = u->calib_base_ns;
	cli.serial_base_ns = u->serial_base_ns;
	/* HST's build is up's, so every run of the topology names it */
	if (rc)
		cli.hst = rc->hst;
	/* the command's lines after ours, as on a terminal */
	fflush(stdout);
	return sp_do_up(u->topology, &cli, 0) ? -EIO : 0;
}

static int real_delay_set(void *ctx, const char *path, int64_t delay_ns)
{
	(void)ctx;
	fflush(stdout);
	return sp_do_delay_set(path, delay_ns, -1) ? -EIO : 0;
}

static int real_run(void *ctx, const struct sp_repro_run *r)
{
	struct sp_run_cli cli;

	(void)ctx;
	memset(&cli, 0, sizeof(cli));
	sp_opt_set_defaults(sp_run_cli_table, &cli);
	cli.selectors = r->selectors;
	cli.rw = r->rw;
	cli.iodepth = r->iodepths;
	cli.timeline = r->timeline;
	cli.warmup_s = r->warmup_s;
	if (r->ios > 0)
		cli.ios = r->ios;
	else if (r->runtime_s > 0)
		cli.runtime_s = r->runtime_s;
	cli.out = r->out;
	cli.hst = r->hst;
	fflush(stdout);
	return sp_do_run(&cli, r->ios > 0 || r->runtime_s > 0, 0) ? -EIO : 0;
}

static int real_down(void *ctx)
{
	(void)ctx;
	fflush(stdout);
	return sp_do_down() ? -EIO : 0;
}

static int real_calib_miss(void *ctx, double bound, char *label, size_t len,
			   double *residual)
{
	static struct sp_state st;
	char err[256];
	int worst;

	(void)ctx;
	if (sp_state_load(NULL, &st, err, sizeof(err))) {
		sp_err("reproduce: %s", err);
		return -EIO;
	}
	worst = sp_state_calib_worst(&st, bound);
	if (worst < 0)
		return 0;
	snprintf(label, len, "%s", st.paths[worst].label);
	*residual = sp_state_calib_residual(&st.paths[worst]);
	return 1;
}

static int real_load_cases(void *ctx, const char *dir,
			   struct sp_case_result **cases, size_t *n)
{
	(void)ctx;
	return sp_case_load_dir(dir, cases, n);
}

static void real_sleep_s(void *ctx, unsigned int seconds)
{
	(void)ctx;
	sleep(seconds);
}

static int real_uptime_s(void *ctx, double *s)
{
	char text[64];

	(void)ctx;
	if (sp_file_read_prefix("/proc/uptime", text, sizeof(text)) ||
	    sscanf(text, "%lf", s) != 1 || !(*s >= 0))
		return -EIO;
	return 0;
}

/* on stdout, as the user's commands print theirs */
static void real_say(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s\n", line);
}

const struct sp_repro_ops sp_repro_real_ops = {
	.up = real_up,
	.delay_set = real_delay_set,
	.run = real_run,
	.down = real_down,
	.calib_miss = real_calib_miss,
	.load_cases = real_load_cases,
	.cpustat = sp_run_real_cpustat,
	.sleep_s = real_sleep_s,
	.uptime_s = real_uptime_s,
	.say = real_say,
};
