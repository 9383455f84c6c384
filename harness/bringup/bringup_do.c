/* up, status, selector set, delay set as the commands do them
 * (bringup_do.h). */
#include "harness/bringup/bringup_do.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/machine.h"
#include "common/units.h"
#include "harness/bringup/bringup_status.h"
#include "harness/bringup/calib.h"
#include "harness/bringup/lock.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void on_signal(int sig)
{
	(void)sig;
	sp_bringup_interrupted = 1;
}


int sp_do_exit_code(int ret)
{
	if (ret == -EEXIST || ret == -EADDRINUSE)
		return SP_EXIT_USAGE;
	if (ret == -EINTR)
		return SP_EXIT_RUNTIME;
	return sp_exit_from_errno(ret);
}

static void random_tag(char *tag, size_t len)
{
	unsigned int r = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
			r ^= (unsigned int)clock();
		close(fd);
	}
	snprintf(tag, len, "%04x", r & 0xffff);
}

/* The topology lock for command what; SP_EXIT_RUNTIME (said why) when
 * another slowpath holds it past the wait. */
int sp_do_take_lock(const char *what, int *fd)
{
	char err[SP_BRINGUP_ERRLEN];

	if (!sp_lock_take(NULL, what, SP_LOCK_WAIT_MS, fd, err, sizeof(err)))
		return 0;
	sp_err("%s: %s", what, err);
	return SP_EXIT_RUNTIME;
}

/* Loads the journal; 1 when there is none. */
int sp_do_load_state(struct sp_state *st)
{
	char err[SP_STATE_ERRLEN];
	int ret = sp_state_load(NULL, st, err, sizeof(err));

	if (ret == -ENOENT)
		return 1;
	if (ret) {
		if (ret == -EINVAL)
			sp_err("%s", err);
		else
			sp_err("cannot read %s/%s: %s", sp_state_dir(),
			       SP_STATE_FILE, strerror(-ret));
		return ret;
	}
	return 0;
}

/* The checks of up's options against the topology. */
static int up_checks(const struct sp_topo *topo, const struct sp_up_args *cli)
{
	struct sp_hst_choice hst;
	char err[SP_BRINGUP_ERRLEN];

	if (sp_hst_choice_parse(cli->hst, &hst, err, sizeof(err))) {
		sp_err("up: %s", err);
		return SP_EXIT_USAGE;
	}
	/* a variant's bucket_shift is fixed at load, and built in on uml */
	if (hst.build != SP_HST_BUILD_STOCK && cli->scale > 1) {
		sp_err("up: --hst %s takes no --scale (only the stock build "
		       "is reloaded with a bucket_shift)", cli->hst);
		return SP_EXIT_USAGE;
	}
	if (cli->scale & (cli->scale - 1)) {
		sp_err("up: --scale %lld is not a power of two (1, 2, 4, ...)",
		       (long long)cli->scale);
		return SP_EXIT_USAGE;
	}
	if (cli->serial_base_ns && !topo->servers) {
		sp_err("up: --serial-base is for topologies with servers; %s has "
		       "none", topo->file);
		return SP_EXIT_USAGE;
	}
	if ((cli->transport >= 0 ? cli->transport : (int)topo->transport) ==
	    SP_TRANSPORT_NVME_TCP && (cli->calibrate || cli->serial_base_ns)) {
		sp_err("up: --calibrate and --serial-base are not there yet "
		       "for transport nvme-tcp (docs/nvme.md)");
		return SP_EXIT_USAGE;
	}
	if (cli->calibrate && cli->serial_base_ns > cli->calib_base_ns) {
		sp_err("up: --serial-base %lldns is more than --calibrate-base "
		       "%lldns, the whole base", (long long)cli->serial_base_ns,
		       (long long)cli->calib_base_ns);
		return SP_EXIT_USAGE;
	}
	return 0;
}

static void up_opts(const struct sp_topo *topo, const struct sp_up_args *cli,
		    struct sp_up_opts *o)
{
	struct sp_hst_choice hst;
	enum sp_selector kind;

	memset(o, 0, sizeof(*o));
	if (cli->selector && !sp_selector_by_short(cli->selector, &kind)) {
		o->has_selector = 1;
		sp_dm_selector_init(&o->sel, kind);
		o->sel.base_weight = cli->base_weight;
		o->sel.threshold_multiplier = cli->threshold_multiplier;
	}
	if (cli->mechanism >= 0) {
		o->has_mech = 1;
		o->mech = (enum sp_mech)cli->mechanism;
	}
	if (cli->transport >= 0) {
		o->has_transport = 1;
		o->transport = (enum sp_transport)cli->transport;
	}
	o->not_serial = cli->not_serial;
	o->scale = (uint64_t)cli->scale;
	o->serial_base_ns = cli->serial_base_ns;
	/* up_checks parsed it */
	if (!sp_hst_choice_parse(cli->hst, &hst, NULL, 0)) {
		o->hst_build = (enum sp_hst_build)hst.build;
		o->hst_skew_ns = hst.skew_ns;
	}
	o->unit_ns = cli->unit_ns;
	if (!o->unit_ns && sp_machine_emulated_cost() && topo->lab_unit_ns > 0)
		o->unit_ns = topo->lab_unit_ns;
	o->tgtd_wait_s = (unsigned int)cli->tgtd_wait_s;
	o->disk_wait_s = (unsigned int)cli->disk_wait_s;
	random_tag(o->tag, sizeof(o->tag));
}

/* Under the topology lock, with nothing up yet. */
static int up_bring(const struct sp_topo *topo, const struct sp_up_args *cli)
{
	static struct sp_state existing;
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN];
	int ret, lock;
	int64_t t0;

	if (sp_do_take_lock("up", &lock))
		return SP_EXIT_RUNTIME;
	ret = sp_do_load_state(&existing);
	if (ret <= 0) {
		if (!ret)
			sp_err("topology %s is already up (tag %s): 'slowpath "
			       "down' first", existing.topology, existing.tag);
		sp_lock_release(NULL, lock);
		return ret < 0 ? SP_EXIT_RUNTIME : SP_EXIT_USAGE;
	}
	up_opts(topo, cli, &o);
	sp_catch_stop_signals(on_signal);
	t0 = sp_now_ns();
	ret = sp_bringup_up(&sp_sys_real, topo, &o, sp_state_dir(), err,
			    sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("up %s: %s", topo->name, err);
		return sp_do_exit_code(ret);
	}
	sp_info("%s is up in %.1f s ('slowpath status')", topo->name,
		(double)(sp_now_ns() - t0) / 1e9);
	return 0;
}

static int up_calibrate(const struct sp_up_args *cli)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN];
	struct sp_calib_opts co = {
		.base_ns = cli->calib_base_ns - cli->serial_base_ns,
		.rounds = (unsigned int)cli->calib_rounds,
		.runtime_s = (unsigned int)cli->calib_runtime_s,
	};
	int ret;

	/* exact time: nothing to converge on, the residual is
	 * checked once (docs/lab.md, "The uml engine") */
	if (sp_machine_exact_time()) {
		co.rounds = 1;
		co.tolerance = SP_CALIB_EXACT_TOLERANCE;
	}
	if (sp_do_load_state(&st))
		return SP_EXIT_RUNTIME;
	ret = sp_bringup_calibrate(&sp_sys_real, &st, &co,
				   sp_state_dir(), err, sizeof(err));
	if (ret && ret != -ERANGE) {
		sp_err("up --calibrate: %s", err);
		return SP_EXIT_RUNTIME;
	}
	if (ret)
		sp_warn("up --calibrate: %s (residuals in 'slowpath "
			"status'; cases will be flagged)", err);
	return 0;
}

/* What fio is to be pointed at: the map, or nvme-tcp's namespace disk. */
static void print_device(const struct sp_topo *topo)
{
	static struct sp_state st;

	if (!sp_do_load_state(&st) && st.transport == SP_TRANSPORT_NVME_TCP)
		printf("/dev/%s\n", st.head);
	else
		printf("/dev/mapper/%s\n", topo->map_name);
}

int sp_do_up(const char *topology, const struct sp_up_args *cli, int check_only)
{
	static struct sp_topo topo;
	char err[SP_BRINGUP_ERRLEN];
	int ret;

	ret = sp_topo_load(topology, &topo, err, sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return sp_exit_from_errno(ret) == SP_EXIT_ENV ? SP_EXIT_USAGE
							      : sp_do_exit_code(ret);
	}
	ret = up_checks(&topo, cli);
	if (ret)
		return ret;
	if (check_only)
		return SP_EXIT_OK;
	if (geteuid() != 0) {
		sp_err("up: needs root (namespaces, tgtd, iSCSI, device-mapper)");
		return SP_EXIT_ENV;
	}
	ret = up_bring(&topo, cli);
	if (!ret && cli->calibrate)
		ret = up_calibrate(cli);
	if (ret)
		return ret;
	print_device(&topo);
	return SP_EXIT_OK;
}

/* What status prints, into out. An exit code. */
static int status_text(char *out, size_t len)
{
	static struct sp_state st;
	static struct sp_status s;
	int ret;

	ret = sp_do_load_state(&st);
	if (ret < 0)
		return SP_EXIT_RUNTIME;
	if (ret) {
		snprintf(out, len, "no topology is up\n");
		return SP_EXIT_OK;
	}
	sp_status_gather(&sp_sys_real, &st, &s);
	return sp_status_render(&s, out, len) ? SP_EXIT_RUNTIME : SP_EXIT_OK;
}

int sp_do_status(void)
{
	static char out[16384];
	int code = status_text(out, sizeof(out));

	if (!code)
		fputs(out, stdout);
	return code;
}

int sp_do_status_line(char *line, size_t len)
{
	static char out[16384];
	int code = status_text(out, sizeof(out));

	if (!code)
		snprintf(line, len, "%.*s", (int)strcspn(out, "\n"), out);
	return code;
}

/* The lock for command what and the journal of the topology that is up:
 * 0 with the lock held, or an exit code (said; the lock let go). */
static int locked_state(const char *what, struct sp_state *st, int *lock)
{
	int ret;

	if (sp_do_take_lock(what, lock))
		return SP_EXIT_RUNTIME;
	ret = sp_do_load_state(st);
	if (!ret)
		return 0;
	sp_lock_release(NULL, *lock);
	if (ret > 0)
		sp_err("%s: no topology is up", what);
	return ret > 0 ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
}

/* nvme-tcp: the selector as NVMe's iopolicy (rr its round-robin), set
 * and journaled; 1 when the topology is not nvme-tcp or it is a dm
 * selector for the map over the paths' own subsystems. */
static int nvme_selector_set(struct sp_state *st,
			     const struct sp_dm_selector *sel, char *err,
			     size_t len)
{
	enum sp_selector kind = sel->kind;

	if (st->transport != SP_TRANSPORT_NVME_TCP)
		return 1;
	if (sp_selector_for_family(sel->kind, SP_SEL_FAMILY_NVME, &kind) &&
	    st->paths[0].has_solo)
		return 1;
	return sp_bringup_iopolicy_set(&sp_sys_real, st, kind, sp_state_dir(),
				       err, len);
}

int sp_do_selector_set(const struct sp_dm_selector *sel)
{
	static struct sp_state st;
	struct sp_dm_selector want = *sel;
	char err[SP_BRINGUP_ERRLEN];
	int ret, lock;

	ret = locked_state("selector", &st, &lock);
	if (ret)
		return ret;
	ret = nvme_selector_set(&st, sel, err, sizeof(err));
	if (ret == 1) {
		/* HST's build stays the one `up --hst` chose */
		want.hst_build = st.sel.hst_build;
		ret = sp_bringup_selector_set(&sp_sys_real, &st, &want,
					      sp_state_dir(), err, sizeof(err));
	}
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("selector: %s", err);
		return sp_do_exit_code(ret);
	}
	return SP_EXIT_OK;
}

int sp_do_delay_set(const char *path, int64_t rd, int64_t wr)
{
	static struct sp_state st;
	struct sp_state_path *p;
	char err[SP_BRINGUP_ERRLEN];
	int ret, lock;

	ret = locked_state("delay", &st, &lock);
	if (ret)
		return ret;
	p = sp_state_find_path(&st, path);
	if (!p) {
		sp_lock_release(NULL, lock);
		sp_err("delay: topology %s has no path '%s'", st.topology,
		       path);
		return SP_EXIT_USAGE;
	}
	ret = sp_bringup_delay_set(&sp_sys_real, &st, p, rd, wr,
				   sp_state_dir(), err, sizeof(err));
	sp_lock_release(NULL, lock);
	if (ret) {
		sp_err("delay: %s", err);
		return sp_do_exit_code(ret);
	}
	return SP_EXIT_OK;
}
