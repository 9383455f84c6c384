/* The effects behind `slowpath run`: the live selector reload (through
 * the bring-up's journaled sp_bringup_selector_set), /proc/diskstats,
 * and fio as a child in its own process group, so the terminal's
 * Ctrl-C reaches only us and we decide how fio stops. */
#include "harness/run/run_exec.h"

#include "common/file.h"
#include "common/log.h"
#include "common/units.h"
#include "harness/bringup/bringup.h"
#include "harness/fault/fault_apply.h"
#include "harness/measure/timeline.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

/* Blocks SIGINT and SIGTERM during the reload (in process through
 * libdevmapper, dm/dm_dev.c): a child (modprobe) inherits the mask, and
 * a Ctrl-C cannot leave the map between its load and its resume; the
 * signal reaches our handler when the reload is over. */
static int exec_selector_set(void *ctx, const struct sp_dm_selector *sel)
{
	struct sp_run_exec *x = ctx;
	char err[SP_BRINGUP_ERRLEN];
	sigset_t block, old;
	int ret;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (sp_selector_family(sel->kind) == SP_SEL_FAMILY_NVME)
		ret = sp_bringup_iopolicy_set(&sp_sys_real, x->st, sel->kind,
					      x->state_dir, err, sizeof(err));
	else
		ret = sp_bringup_selector_set(&sp_sys_real, x->st, sel,
					      x->state_dir, err, sizeof(err));
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret)
		sp_err("selector %s: %s", sp_selector_short_name(sel->kind), err);
	return ret;
}

/* The map's status at 10 Hz, in process (dm/dm_dev.c): an exec costs
 * about a second in the lab. */
static int exec_dm_status(void *ctx, char **text)
{
	struct sp_run_exec *x = ctx;
	char buf[4096];
	int ret;

	/* no map over nvme-tcp paths: exec_path_states samples them */
	if (x->st->transport == SP_TRANSPORT_NVME_TCP)
		return -ENOTSUP;
	ret = sp_sys_real.dm->status(sp_sys_real.dm->ctx, x->st->map_name,
				     buf, sizeof(buf));

	if (ret)
		return ret;
	*text = strdup(buf);
	return *text ? 0 : -ENOMEM;
}

/* An nvme-tcp path's state at 10 Hz: two sysfs reads per path, its
 * controller's state and its hidden disk's ANA state (timeline.h). A
 * text not read stays "" (the path then reads '-', or by the other). */
static void exec_path_states(void *ctx, size_t n,
			     struct sp_tl_path_view *views)
{
	struct sp_run_exec *x = ctx;
	char ctrl[32], path[160], cs[32], ana[32];
	size_t i;

	for (i = 0; i < n && i < x->st->npaths; i++) {
		const char *disk = x->st->paths[i].disk;

		cs[0] = ana[0] = '\0';
		if (!sp_tl_nvme_ctrl_of(disk, ctrl, sizeof(ctrl))) {
			snprintf(path, sizeof(path), "/sys/class/nvme/%s/state",
				 ctrl);
			if (sp_sys_real.read_file(sp_sys_real.ctx, path, cs,
						  sizeof(cs)))
				cs[0] = '\0';
			snprintf(path, sizeof(path), "/sys/block/%s/ana_state",
				 disk);
			if (sp_sys_real.read_file(sp_sys_real.ctx, path, ana,
						  sizeof(ana)))
				ana[0] = '\0';
		}
		views[i].state = sp_tl_nvme_state(cs, ana);
		views[i].n_sel = 0;
	}
}

/* Faults are journaled and may restart a tgtd: like the reload, not to
 * be cut in half by a Ctrl-C, which the loop sees right after. */
static void block_signals(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, old);
}

static int exec_fault_apply(void *ctx, const struct sp_fault *f, char *err,
			    size_t errlen)
{
	struct sp_run_exec *x = ctx;
	sigset_t old;
	int ret;

	block_signals(&old);
	ret = sp_fault_apply(&sp_sys_real, x->st, f, err, errlen);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int exec_fault_flap(void *ctx, const struct sp_fault *f, int down,
			   char *err, size_t errlen)
{
	struct sp_run_exec *x = ctx;
	sigset_t old;
	int ret;

	block_signals(&old);
	ret = sp_fault_flap_tick(&sp_sys_real, x->st, f, down, err, errlen);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int exec_fault_restore(void *ctx, const char *path, char *err,
			      size_t errlen)
{
	struct sp_run_exec *x = ctx;
	sigset_t old;
	int ret;

	block_signals(&old);
	ret = sp_fault_restore(&sp_sys_real, x->st, path, err, errlen);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int exec_diskstats(void *ctx, char **text)
{
	int ret;

	(void)ctx;
	ret = sp_file_read("/proc/diskstats", SP_FILE_TEXT_MAX, text, NULL);
	if (ret)
		sp_err("/proc/diskstats: %s", strerror(-ret));
	return ret;
}

/* fio's PID and start time in the journal while it runs, "run idle"
 * after: PDEATHSIG reaches only fio's first process, so a `down` after
 * a SIGKILLed run must find the rest of its group by this. */
static void journal_fio(struct sp_run_exec *x, pid_t pid)
{
	char line[96];
	int fd, ret;

	ret = sp_state_fmt_run(pid, pid > 0 ? sp_bringup_pid_start(
				       &sp_sys_real, pid) : 0,
			       line, sizeof(line));
	if (!ret)
		ret = sp_state_open_append(x->state_dir, &fd);
	if (!ret) {
		ret = sp_state_append(fd, line);
		close(fd);
	}
	if (ret)
		sp_warn("cannot record fio in the state: %s", strerror(-ret));
	x->fio_journaled = pid > 0 && !ret;
}

/* Ctrl-C reaches only us (its own group); it does not outlive a
 * SIGKILLed run (PDEATHSIG); and it takes the signals we may be
 * blocking or ignoring back to their defaults. */
static int exec_fio_start(void *ctx, const char *const *argv)
{
	struct sp_run_exec *x = ctx;
	struct sp_proc_opts o = {
		.flags = SP_PROC_PGROUP | SP_PROC_PDEATHSIG |
			 SP_PROC_DEFAULT_SIGNALS | SP_PROC_CAPTURE_OUT |
			 SP_PROC_CAPTURE_ERR,
		/* a bound only against a runaway; fio's JSON is far less */
		.out_max = 256u << 20,
	};

	int ret;

	if (x->fio.pid > 0)
		return -EBUSY;
	ret = sp_proc_spawn(&x->fio, argv, &o);
	if (!ret)
		journal_fio(x, x->fio.pid);
	return ret;
}

static int exec_fio_wait(void *ctx, unsigned int ms, int *status, char **out,
			 char **errout)
{
	struct sp_run_exec *x = ctx;
	int ret;

	if (x->fio.pid <= 0)
		return -ECHILD;
	ret = sp_proc_pump(&x->fio, (int)ms);
	if (ret == -EINTR)
		return 0;	/* let the loop see the signal */
	if (ret <= 0)
		return ret;
	ret = sp_proc_wait(&x->fio, status);
	if (ret)
		return ret;
	if (x->fio_journaled)
		journal_fio(x, 0);
	*out = sp_proc_take(&x->fio.out);
	*errout = sp_proc_take(&x->fio.err);
	return 1;
}

static void exec_fio_stop(void *ctx)
{
	struct sp_run_exec *x = ctx;

	/* fio finishes its jobs on TERM; KILL if it will not */
	if (x->fio.pid > 0 && sp_proc_kill_group(&x->fio, 5000) == 1)
		sp_warn("fio did not stop in 5 s; killing it");
	sp_proc_release(&x->fio);
	if (x->fio_journaled)
		journal_fio(x, 0);
}

static int64_t exec_now(void *ctx)
{
	(void)ctx;
	return sp_now_ns();
}

/* The store rewrites hist at most every stats_interval (100 ms, as
 * bring-up leaves it) after the last command it completed: this long
 * after, the file holds them all. Free on exact time. */
#define STORE_HIST_SETTLE_NS (150 * SP_NSEC_PER_MSEC)

static void exec_store_hists(void *ctx, size_t n_paths, char **texts)
{
	struct sp_run_exec *x = ctx;
	struct timespec settle = { 0, STORE_HIST_SETTLE_NS };
	char ctl[256], path[300];
	size_t i;

	if (strcmp(x->st->bstype, "delay"))
		return;
	nanosleep(&settle, NULL);
	for (i = 0; i < n_paths && i < x->st->npaths; i++) {
		sp_bringup_ctl_dir(x->state_dir, &x->st->paths[i], ctl, sizeof(ctl));
		snprintf(path, sizeof(path), "%s/hist", ctl);
		/* a store of before hist has none: no latencies, no error */
		if (sp_file_read_opt(path, 1u << 20, SP_FILE_NOFOLLOW, &texts[i], NULL))
			texts[i] = NULL;
	}
}

void sp_run_exec_init(struct sp_run_exec *x, struct sp_state *st,
		      const char *state_dir, struct sp_run_ops *ops)
{
	memset(x, 0, sizeof(*x));
	x->st = st;
	x->state_dir = state_dir;
	sp_proc_init(&x->fio);
	ops->selector_set = exec_selector_set;
	ops->diskstats = exec_diskstats;
	ops->fio_start = exec_fio_start;
	ops->fio_wait = exec_fio_wait;
	ops->fio_stop = exec_fio_stop;
	ops->now_ns = exec_now;
	ops->cpustat = sp_run_real_cpustat;
	ops->env_info = sp_run_real_env_info;
	ops->dm_status = exec_dm_status;
	ops->path_states = st && st->transport == SP_TRANSPORT_NVME_TCP
				   ? exec_path_states : NULL;
	ops->fault_apply = exec_fault_apply;
	ops->fault_flap = exec_fault_flap;
	ops->fault_restore = exec_fault_restore;
	ops->store_hists = exec_store_hists;
	ops->ctx = x;
}

void sp_run_exec_fini(struct sp_run_exec *x)
{
	exec_fio_stop(x);
}

int sp_run_dm_info(const char *map, char *name, size_t namelen, char *uuid,
		   size_t uuidlen, unsigned int *major, unsigned int *minor)
{
	const struct sp_dm_ops *dm = sp_sys_real.dm;
	struct sp_dm_info info;
	int ret = dm->info(dm->ctx, map, &info);

	if (ret) {
		sp_err("map %s: %s", map, ret == -ENXIO ? "not there" :
		       strerror(-ret));
		return ret == -ENXIO ? -ENOENT : ret;
	}
	if ((size_t)snprintf(name, namelen, "%s", info.name) >= namelen ||
	    (size_t)snprintf(uuid, uuidlen, "%s", info.uuid) >= uuidlen) {
		sp_err("map %s: its name or uuid is too long", map);
		return -EINVAL;
	}
	*major = info.major;
	*minor = info.minor;
	return 0;
}
