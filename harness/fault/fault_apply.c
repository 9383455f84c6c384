/* Path faults made real and undone: each HOW through struct sp_sys_ops
 * (signals, ip link, netem, the delay store's ctl file, bring-up's own
 * tgtd start), journaled BEFORE it is done so `down` and `fault PATH
 * restore` find it even after a crash. See fault.h and docs/faults.md. */
#include "harness/fault/fault_apply.h"
#include "harness/bringup/bringup_status.h"
#include "harness/fault/fault_nvme.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TGTD_GONE_WAIT_MS 5000
#define TGTD_START_WAIT_S 60
/* iscsid logs in again within seconds of a path coming back; a minute
 * covers a TCG guest's slowest */
#define RUNNING_WAIT_MS 60000

/* Who sets a fault, unique on this machine: our PID and the time, so
 * a `fault --for` can tell its own fault from one set after it. */
static void new_fault_id(char *buf, size_t len)
{
	static unsigned int serial;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(buf, len, "%x.%llx.%x", (unsigned int)getpid(),
		 (unsigned long long)ts.tv_sec * 1000000000ULL +
			 (unsigned long long)ts.tv_nsec, serial++);
}

static int record_fault(const char *dir, struct sp_state_path *p,
			const char *how, const char *spec, char *err,
			size_t errlen)
{
	char line[384], id[SP_STATE_FAULT_IDLEN] = "";
	int ret;

	if (how)
		new_fault_id(id, sizeof(id));
	ret = sp_state_fmt_fault_id(p->index, how, id, spec, line,
				    sizeof(line));

	if (ret)
		return sp_errf(err, errlen, ret, "path %s: fault '%s' does not "
			       "fit the journal", p->label, spec ? spec : "");
	ret = sp_bringup_record(dir, line, err, errlen);
	if (ret)
		return ret;
	snprintf(p->fault_how, sizeof(p->fault_how), "%s", how ? how : "");
	snprintf(p->fault_spec, sizeof(p->fault_spec), "%s",
		 how && spec ? spec : "");
	snprintf(p->fault_id, sizeof(p->fault_id), "%s", id);
	return 0;
}

/* The tgtd up journaled for p, still that process in p's namespace. */
static int tgtd_ours(const struct sp_sys_ops *ops,
		     const struct sp_state_path *p)
{
	return p->tgtd_pid > 1 &&
	       sp_bringup_pid_ours(ops, p->tgtd_pid, p->tgtd_start, "tgtd",
				   p->netns);
}

static int signal_tgtd(const struct sp_sys_ops *ops,
		       const struct sp_state_path *p, int sig, char *err,
		       size_t errlen)
{
	int ret;

	if (!tgtd_ours(ops, p))
		return sp_errf(err, errlen, -ESRCH, "path %s: tgtd %d is not "
			       "the one up started (gone, or its PID reused): "
			       "nothing signalled", p->label, (int)p->tgtd_pid);
	ret = ops->kill(ops->ctx, p->tgtd_pid, sig);
	return ret ? sp_errf(err, errlen, ret, "path %s: signal %d to tgtd %d:"
			     " %s", p->label, sig, (int)p->tgtd_pid,
			     strerror(-ret)) : 0;
}

/* The initiator's end of the path: what a failed port looks like from
 * the host (its carrier goes, the route with it). */
static int link_set(const struct sp_sys_ops *ops,
		    const struct sp_state_path *p, int down, char *err,
		    size_t errlen)
{
	int ret = ops->net->link_set(ops->net->ctx, NULL, p->host_if, !down);

	return ret ? sp_errf(err, errlen, ret, "path %s: link %s %s: %s",
			     p->label, p->host_if, down ? "down" : "up",
			     strerror(-ret)) : 0;
}

/* Every packet lost both ways: the target's end keeps its delay and
 * loses all, the host's end loses all. */
static int blackhole_set(const struct sp_sys_ops *ops,
			 const struct sp_state_path *p, char *err,
			 size_t errlen)
{
	const struct sp_netem_ops *n = ops->netem;
	struct sp_netem_spec spec;
	int ret;

	sp_bringup_netem_spec(p, &spec);
	if (!spec.delay_ns)
		spec.has = 0;
	spec.has |= SP_NETEM_HAS_LOSS;
	spec.loss_pct = 100;
	ret = n->set(n->ctx, p->netns, p->target_if, &spec, 0);
	if (!ret) {
		memset(&spec, 0, sizeof(spec));
		spec.has = SP_NETEM_HAS_LOSS;
		spec.loss_pct = 100;
		ret = n->set(n->ctx, NULL, p->host_if, &spec, 0);
	}
	return ret ? sp_errf(err, errlen, -EIO, "path %s: netem loss 100%% "
			     "failed: %s", p->label, strerror(-ret)) : 0;
}

static int blackhole_clear(const struct sp_sys_ops *ops,
			   const struct sp_state_path *p, char *err,
			   size_t errlen)
{
	const struct sp_netem_ops *n = ops->netem;
	int ret = n->clear(n->ctx, NULL, p->host_if);

	if (ret && ret != -ENOENT)
		return sp_errf(err, errlen, -EIO, "path %s: clearing netem on "
			       "%s failed: %s", p->label, p->host_if,
			       strerror(-ret));
	/* the target's end back to the path's own netem, or none */
	return sp_bringup_netem_apply(ops, p, err, errlen);
}

static int store_line(const struct sp_sys_ops *ops, const struct sp_state *st,
		      const struct sp_state_path *p, const char *dir,
		      const char *line, const char *want, char *err,
		      size_t errlen)
{
	return sp_bringup_store_ctl(ops, st, p, dir, line, want, err, errlen);
}

static int error_set(const struct sp_sys_ops *ops, const struct sp_state *st,
		     const struct sp_state_path *p, const char *dir,
		     const struct sp_fault *f, char *err, size_t errlen)
{
	char line[128], want[96];

	snprintf(line, sizeof(line), "error_rate=%.17g;error_sense=%s",
		 f->error_rate, f->error_sense);
	/* the stats file prints the rate with %g */
	snprintf(want, sizeof(want), "error_rate=%g\nerror_sense=%s\n",
		 f->error_rate, f->error_sense);
	return store_line(ops, st, p, dir, line, want, err, errlen);
}

/* p's delays times factor, each within the 60 s one command may be
 * held. */
static int slowed(const struct sp_state_path *p, double factor,
		  struct sp_state_path *out, char *err, size_t errlen)
{
	const double max = (double)SP_DELAY_MAX_NS;
	double rd = (double)p->read_ns * factor, wr = (double)p->write_ns * factor;
	double ne = (double)p->netem_ns * factor;
	/* a serial path's delay is mostly its service */
	double sv = p->servers ? (double)p->service_ns * factor : 0;

	*out = *p;
	if (!p->read_ns && !p->write_ns && !p->netem_ns && !sv)
		return sp_errf(err, errlen, -EINVAL, "path %s has no delay to "
			       "multiply", p->label);
	if (rd + (double)p->jitter_ns > max || wr + (double)p->jitter_ns > max ||
	    ne + (double)p->netem_jitter_ns > max || sv > max)
		return sp_errf(err, errlen, -ERANGE, "path %s: its delay x %g "
			       "is over 60s, the most one command may be held",
			       p->label, factor);
	out->read_ns = (int64_t)rd;
	out->write_ns = (int64_t)wr;
	out->netem_ns = (int64_t)ne;
	if (p->servers)
		out->service_ns = (int64_t)sv;
	return 0;
}

static int wait_tgtd_gone(const struct sp_sys_ops *ops,
			  const struct sp_state_path *p)
{
	int i;

	for (i = 0; i < TGTD_GONE_WAIT_MS / 100; i++) {
		if (!tgtd_ours(ops, p))
			return 0;
		ops->sleep_ms(ops->ctx, 100);
	}
	return -ETIMEDOUT;
}

/* The effect of f on p, the journal already saying so. */
static int do_apply(const struct sp_sys_ops *ops, struct sp_state *st,
		    struct sp_state_path *p, const char *dir,
		    const struct sp_fault *f, char *err, size_t errlen)
{
	struct sp_state_path next;
	int ret;

	switch (f->how) {
	case SP_FAULT_HANG:
		if (!strcmp(st->bstype, "delay"))
			return store_line(ops, st, p, dir, "hold=1", "\nhold=1\n",
					  err, errlen);
		return signal_tgtd(ops, p, SIGSTOP, err, errlen);
	case SP_FAULT_RESET:
		ret = signal_tgtd(ops, p, SIGKILL, err, errlen);
		if (!ret && wait_tgtd_gone(ops, p))
			ret = sp_errf(err, errlen, -ETIMEDOUT, "path %s: tgtd "
				      "%d outlived SIGKILL", p->label,
				      (int)p->tgtd_pid);
		return ret;
	case SP_FAULT_BLACKHOLE:
		return blackhole_set(ops, p, err, errlen);
	case SP_FAULT_DOWN:
	case SP_FAULT_FLAP:
		return link_set(ops, p, 1, err, errlen);
	case SP_FAULT_ERROR:
		return error_set(ops, st, p, dir, f, err, errlen);
	case SP_FAULT_SLOW:
		ret = slowed(p, f->slow_factor, &next, err, errlen);
		return ret ? ret : sp_bringup_delay_apply(ops, st, &next, dir,
							  err, errlen);
	case SP_FAULT_ANA:
		return sp_fault_ana_set(ops, p, f->ana_state, err, errlen);
	default:
		return sp_errf(err, errlen, -EINVAL, "no such fault");
	}
}

/* The undo of how on p; what is already undone is fine. */
static int do_undo(const struct sp_sys_ops *ops, struct sp_state *st,
		   struct sp_state_path *p, const char *dir,
		   enum sp_fault_how how, char *err, size_t errlen)
{
	switch (how) {
	case SP_FAULT_HANG:
		if (!strcmp(st->bstype, "delay"))
			return store_line(ops, st, p, dir, "hold=0", "\nhold=0\n",
					  err, errlen);
		/* a tgtd gone meanwhile has nothing left to continue */
		return tgtd_ours(ops, p) ? signal_tgtd(ops, p, SIGCONT, err,
						       errlen) : 0;
	case SP_FAULT_RESET:
		if (tgtd_ours(ops, p))
			return 0;	/* the kill never happened */
		return sp_bringup_tgtd_restart(ops, st, p, dir,
					       TGTD_START_WAIT_S, err, errlen);
	case SP_FAULT_BLACKHOLE:
		return blackhole_clear(ops, p, err, errlen);
	case SP_FAULT_DOWN:
	case SP_FAULT_FLAP:
		return link_set(ops, p, 0, err, errlen);
	case SP_FAULT_ERROR:
		return store_line(ops, st, p, dir, "error_rate=0",
				  "\nerror_rate=0\n", err, errlen);
	case SP_FAULT_SLOW:
		/* the journal never took the slowed delays */
		return sp_bringup_delay_apply(ops, st, p, dir, err, errlen);
	case SP_FAULT_ANA:
		return sp_fault_ana_set(ops, p, SP_FAULT_ANA_UP_STATE, err,
					errlen);
	default:
		return 0;
	}
}

/* dm-multipath fails a path and never takes it back by itself:
 * multipathd's checker would, and the testbed runs none. So once a
 * path's fault is undone and its SCSI device runs again (iscsid logged
 * in again), a path the map failed is reinstated here. 0 also when the
 * map never failed it. */
static int reinstate(const struct sp_sys_ops *ops, const struct sp_state *st,
		     const struct sp_state_path *p, int wait_ms, char *err,
		     size_t errlen)
{
	static char out[8192];
	static struct sp_status s;
	char path[128], state[32] = "", dev[32], msg[64];
	size_t i, k = (size_t)(p - st->paths);
	int waited, ret;

	/* native multipath takes a path back by itself once its controller
	 * is live and its ANA state usable again */
	if (st->transport == SP_TRANSPORT_NVME_TCP || !p->has_disk ||
	    !st->map_name[0])
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/device/state", p->disk);
	for (waited = 0;; waited += 200) {
		if (!ops->read_file(ops->ctx, path, state, sizeof(state)) &&
		    !strncmp(state, "running", 7))
			break;
		if (!wait_ms)
			return 0;	/* nothing of ours to wait for */
		if (waited >= wait_ms)
			return sp_errf(err, errlen, -ETIMEDOUT, "path %s: %s is "
				       "still '%.*s' %d s after the fault was "
				       "undone; 'slowpath fault %s restore' "
				       "again reinstates it once it runs",
				       p->label, p->disk,
				       (int)strcspn(state, "\n"), state,
				       wait_ms / 1000, p->label);
		ops->sleep_ms(ops->ctx, 200);
	}
	ret = ops->dm->status(ops->dm->ctx, st->map_name, out, sizeof(out));
	if (ret)
		return sp_errf(err, errlen, -EIO, "path %s: the status of %s: "
			       "%s", p->label, st->map_name, strerror(-ret));
	memset(&s, 0, sizeof(s));
	s.st = st;
	for (i = 0; i < st->npaths; i++)
		snprintf(s.paths[i].dm_state, sizeof(s.paths[i].dm_state),
			 "undef");
	sp_status_parse_dm(&s, out);
	if (strcmp(s.paths[k].dm_state, "failed"))
		return 0;
	snprintf(dev, sizeof(dev), "%u:%u", p->major, p->minor);
	snprintf(msg, sizeof(msg), "reinstate_path %s", dev);
	ret = ops->dm->message(ops->dm->ctx, st->map_name, msg);
	if (ret)
		return sp_errf(err, errlen, -EIO, "path %s: reinstating %s in %s:"
			       " %s", p->label, dev, st->map_name,
			       strerror(-ret));
	sp_info("path %s: %s reinstated in %s", p->label, dev, st->map_name);
	/* no_path_retry N's timeout turns queueing off for good once it
	 * fires; multipathd turns it back on when a path returns */
	if (sp_initiator_queues(&st->init) &&
	    (ret = ops->dm->message(ops->dm->ctx, st->map_name,
				    "queue_if_no_path")))
		sp_warn("%s: queue_if_no_path not turned back on: %s",
			st->map_name, strerror(-ret));
	return 0;
}

int sp_fault_apply_in(const struct sp_sys_ops *ops, struct sp_state *st,
		      const char *dir, const struct sp_fault *f, char *err,
		      size_t errlen)
{
	struct sp_state_path *p;
	char spec[192], uerr[256];
	int ret;

	if (f->how == SP_FAULT_RESTORE)
		return sp_fault_restore_in(ops, st, dir, f->path, err, errlen);
	if (!st->complete)
		return sp_errf(err, errlen, -EINVAL, "topology %s is not fully "
			       "up; run 'slowpath down'", st->topology);
	p = sp_state_find_path(st, f->path);
	if (!p)
		return sp_errf(err, errlen, -ENOENT, "topology %s has no path "
			       "'%s'", st->topology, f->path);
	if (p->fault_how[0])
		return sp_errf(err, errlen, -EBUSY, "path %s already has a %s "
			       "fault: 'slowpath fault %s restore' first",
			       p->label, p->fault_how, p->label);
	ret = sp_fault_transport_check(st, p, f->how, err, errlen);
	if (ret)
		return ret;
	if ((f->how == SP_FAULT_ERROR) && strcmp(st->bstype, "delay"))
		return sp_errf(err, errlen, -ENOTSUP, "path %s: error faults "
			       "come from the delay store; this topology runs "
			       "on tgt's %s", p->label, st->bstype);
	if (f->how == SP_FAULT_SLOW) {
		struct sp_state_path next;

		ret = slowed(p, f->slow_factor, &next, err, errlen);
		if (ret)
			return ret;
	}
	ret = sp_fault_format(f, spec, sizeof(spec));
	if (ret)
		return sp_errf(err, errlen, ret, "path %s: fault does not fit "
			       "the journal", p->label);
	/* journaled first: a crash from here on leaves what to undo */
	ret = record_fault(dir, p, sp_fault_how_name(f->how), spec, err,
			   errlen);
	if (ret)
		return ret;
	ret = do_apply(ops, st, p, dir, f, err, errlen);
	if (!ret) {
		sp_info("path %s: %s", p->label, spec);
		return 0;
	}
	/* half a fault helps nobody: undo what may have happened */
	if (do_undo(ops, st, p, dir, f->how, uerr, sizeof(uerr)))
		sp_warn("path %s: undoing the failed %s: %s", p->label,
			sp_fault_how_name(f->how), uerr);
	else
		record_fault(dir, p, NULL, NULL, uerr, sizeof(uerr));
	return ret;
}

int sp_fault_apply(const struct sp_sys_ops *ops, struct sp_state *st,
		   const struct sp_fault *f, char *err, size_t errlen)
{
	return sp_fault_apply_in(ops, st, sp_state_dir(), f, err, errlen);
}

int sp_fault_flap_tick(const struct sp_sys_ops *ops, struct sp_state *st,
		       const struct sp_fault *f, int down, char *err,
		       size_t errlen)
{
	struct sp_state_path *p = sp_state_find_path(st, f->path);

	if (!p)
		return sp_errf(err, errlen, -ENOENT, "topology %s has no path "
			       "'%s'", st->topology, f->path);
	if (strcmp(p->fault_how, "flap"))
		return sp_errf(err, errlen, -EINVAL, "path %s is not flapping",
			       p->label);
	return link_set(ops, p, down, err, errlen);
}

/* What fault is recorded on p: its spec, else its name alone. */
static int recorded_how(const struct sp_state_path *p, enum sp_fault_how *how)
{
	struct sp_fault f;
	char e[128];

	if (!sp_fault_parse(p->fault_spec, &f, e, sizeof(e))) {
		*how = f.how;
		return 0;
	}
	return sp_fault_how_parse(p->fault_how, how);
}

int sp_fault_restore_in(const struct sp_sys_ops *ops, struct sp_state *st,
			const char *dir, const char *path, char *err,
			size_t errlen)
{
	struct sp_state_path *p = sp_state_find_path(st, path);
	enum sp_fault_how how;
	int ret;

	if (!p)
		return sp_errf(err, errlen, -ENOENT, "topology %s has no path "
			       "'%s'", st->topology, path);
	/* no fault: only a path whose device already runs is taken back */
	if (!p->fault_how[0])
		return reinstate(ops, st, p, 0, err, errlen);
	if (recorded_how(p, &how) || how == SP_FAULT_RESTORE)
		return sp_errf(err, errlen, -EINVAL, "path %s: the journal's "
			       "fault '%s' is not one slowpath knows", p->label,
			       p->fault_how);
	ret = do_undo(ops, st, p, dir, how, err, errlen);
	if (ret)
		return ret;
	sp_info("path %s: %s undone", p->label, p->fault_how);
	ret = record_fault(dir, p, NULL, NULL, err, errlen);
	return ret ? ret : reinstate(ops, st, p, RUNNING_WAIT_MS, err, errlen);
}

int sp_fault_restore(const struct sp_sys_ops *ops, struct sp_state *st,
		     const char *path, char *err, size_t errlen)
{
	return sp_fault_restore_in(ops, st, sp_state_dir(), path, err, errlen);
}

int sp_fault_restore_all(const struct sp_sys_ops *ops, struct sp_state *st,
			 const char *dir, char *err, size_t errlen)
{
	char one[512];
	size_t i;
	int ret, first = 0;

	if (errlen)
		err[0] = '\0';
	for (i = 0; i < st->npaths; i++) {
		char idx[16];

		if (!st->paths[i].fault_how[0])
			continue;
		snprintf(idx, sizeof(idx), "%u", st->paths[i].index);
		ret = sp_fault_restore_in(ops, st, dir, idx, one, sizeof(one));
		if (ret && !first) {
			first = ret;
			snprintf(err, errlen, "%s", one);
		}
	}
	return first;
}
