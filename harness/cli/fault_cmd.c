/* slowpath fault PATH HOW [--for D] [--rate R] [--sense S] [--period P]
 * [--factor F] and slowpath fault PATH restore: the thin CLI over
 * harness/fault/fault.h. With --for it waits, toggling a flap, and then
 * restores, also on SIGINT/SIGTERM. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/opttab.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "harness/bringup/bringup.h"
#include "harness/bringup/lock.h"
#include "harness/cli/commands.h"
#include "harness/fault/fault_apply.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fault_cli {
	const char *for_, *rate, *sense, *period, *factor;
};

#define F(f) offsetof(struct fault_cli, f)
static const struct sp_opt fault_table[] = {
	{ .name = "for", .type = SP_OPT_STR, .offset = F(for_),
	  .help = "wait this long (e.g. 20s), then restore; without it the "
	  "fault stays until 'slowpath fault PATH restore' or down" },
	{ .name = "rate", .type = SP_OPT_STR, .offset = F(rate),
	  .help = "error: share of commands failed, above 0 and at most 1 "
	  "(default 1)" },
	{ .name = "sense", .type = SP_OPT_STR, .offset = F(sense),
	  .help = "error: medium (03/11/00), not-ready (02/04/00), aborted "
	  "(0b/00/00) or hardware (04/44/00); default medium" },
	{ .name = "period", .type = SP_OPT_STR, .offset = F(period),
	  .help = "flap: each down and each up lasts this (default 5s)" },
	{ .name = "factor", .type = SP_OPT_STR, .offset = F(factor),
	  .help = "slow: the path's delay times this (default 10)" },
	SP_OPT_END,
};
#undef F

static volatile sig_atomic_t stop_waiting;

static void on_signal(int sig)
{
	(void)sig;
	stop_waiting = 1;
}

static void usage(FILE *out)
{
	char help[2048];

	sp_opt_help_argv(fault_table, help, sizeof(help));
	fprintf(out, "usage: slowpath fault PATH HOW [--for DURATION] [--rate R] "
		"[--sense S] [--period P] [--factor F]\n"
		"       slowpath fault PATH restore\n"
		"PATH is a path's label, number or disk. HOW: hang (the target "
		"stops answering),\nreset (its tgtd killed, started again on "
		"restore), blackhole (every packet lost),\ndown (the link), "
		"error (the store fails commands), flap (down/up every period),\n"
		"slow (the delay times factor). See docs/faults.md.\noptions:\n%s",
		help);
}

/* The words of the command line as one spec, each value one word. */
static int build_spec(const char *path, const char *how,
		      const struct fault_cli *c, char *buf, size_t len)
{
	const char *keys[] = { "for", "rate", "sense", "period", "factor" };
	const char *vals[] = { c->for_, c->rate, c->sense, c->period,
			       c->factor };
	struct sp_strbuf o = SP_STRBUF(buf, len);
	size_t i;

	if (strpbrk(path, " \t\n=") || strpbrk(how, " \t\n=")) {
		sp_err("fault: '%s %s': a path or HOW is one word", path, how);
		return -EINVAL;
	}
	sp_strbuf_printf(&o, "path=%s how=%s", path, how);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!vals[i])
			continue;
		if (!*vals[i] || strpbrk(vals[i], " \t\n=")) {
			sp_err("fault: --%s '%s' is not one value", keys[i],
			       vals[i]);
			return -EINVAL;
		}
		sp_strbuf_printf(&o, " %s=%s", keys[i], vals[i]);
	}
	if (o.overflow) {
		sp_err("fault: arguments too long");
		return -EINVAL;
	}
	return 0;
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

int cmd_fault(int argc, char **argv)
{
	static struct sp_state st;
	struct fault_cli cli = { 0 };
	struct sp_fault f;
	char spec[512], err[SP_BRINGUP_ERRLEN], id[SP_STATE_FAULT_IDLEN];
	int next, ret, lock;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		usage(stderr);
		return SP_EXIT_USAGE;
	}
	ret = sp_opt_parse_argv(fault_table, &cli, argc, argv, 3, &next, err,
				sizeof(err));
	if (ret || next != argc) {
		if (ret)
			sp_err("fault: %s", err);
		else
			sp_err("fault: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (build_spec(argv[1], argv[2], &cli, spec, sizeof(spec)))
		return SP_EXIT_USAGE;
	if (sp_fault_parse(spec, &f, err, sizeof(err))) {
		sp_err("fault: %s", err);
		return SP_EXIT_USAGE;
	}
	if (sp_cli_args_only)
		return SP_EXIT_OK;
	if (f.how == SP_FAULT_FLAP && cli.for_ == NULL)
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
	if (!sp_state_find_path(&st, f.path)) {
		sp_lock_release(NULL, lock);
		sp_err("fault: topology %s has no path '%s'", st.topology,
		       f.path);
		return SP_EXIT_USAGE;
	}
	ret = sp_fault_apply(&sp_sys_real, &st, &f, err, sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("fault: %s", err);
		return exit_code(ret);
	}
	if (f.how == SP_FAULT_RESTORE || !f.for_ns)
		return SP_EXIT_OK;
	/* the id the journal gave our fault: the end undoes that one only */
	snprintf(id, sizeof(id), "%s", sp_state_find_path(&st, f.path)->fault_id);
	return wait_then_restore(&f, id);
}
