/* `up --calibrate`: the controller and the loop around it; see calib.h. */
#include "harness/bringup/calib.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "harness/measure/fio_json.h"
#include "common/machine.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double sp_calib_residual(const struct sp_calib_path *p)
{
	if (p->target_ns <= 0 || p->measured_ns < 0)
		return 0;
	return (double)p->measured_ns / (double)p->target_ns - 1;
}

size_t sp_calib_step(struct sp_calib_path *p, size_t n, double tol,
		     int *changed)
{
	size_t i, off = 0;
	int64_t next;

	for (i = 0; i < n; i++) {
		changed[i] = 0;
		if (p[i].measured_ns < 0 ||
		    fabs(sp_calib_residual(&p[i])) <= tol)
			continue;
		off++;
		next = p[i].injected_ns + p[i].target_ns - p[i].measured_ns;
		if (next < 0)
			next = 0;	/* the own cost alone is over target */
		if (next > SP_DELAY_MAX_NS)
			next = SP_DELAY_MAX_NS;
		changed[i] = next != p[i].injected_ns;
		p[i].injected_ns = next;
	}
	return off;
}

unsigned int sp_calib_runtime_s(int64_t target_ns, unsigned int min_s)
{
	double s = ceil(SP_CALIB_SAMPLES * (double)target_ns / 1e9);

	if (s < min_s)
		s = min_s;
	return s > SP_CALIB_RUNTIME_MAX ? SP_CALIB_RUNTIME_MAX : (unsigned int)s;
}

/* One fio over the paths idx[0..n) at once, each long enough for its
 * p50 to rest on SP_CALIB_SAMPLES I/Os (so at most 30 s: well inside
 * the 120 s a tool may run). */
static int measure_some(const struct sp_sys_ops *ops, const struct sp_state *st,
			const size_t *idx, size_t n_idx, unsigned int runtime_s,
			struct sp_calib_path *cp, char *err, size_t errlen)
{
	static char out[1 << 20];
	static char names[SP_TOPO_MAX_PATHS][32], files[SP_TOPO_MAX_PATHS][48];
	static char rts[SP_TOPO_MAX_PATHS][32];
	const char *argv[16 + 3 * SP_TOPO_MAX_PATHS];
	struct sp_fio_result r;
	size_t i, n = 0;
	int ret;

	argv[n++] = "fio";
	argv[n++] = "--output-format=json";
	/* on exact time the TSC fio picks by default ignores simulated time */
	if (sp_machine_exact_time())
		argv[n++] = "--clocksource=clock_gettime";
	argv[n++] = "--ioengine=libaio";
	argv[n++] = "--direct=1";
	argv[n++] = "--rw=randread";
	argv[n++] = "--bs=4k";
	argv[n++] = "--iodepth=1";
	argv[n++] = "--time_based";
	for (i = 0; i < n_idx; i++) {
		const struct sp_state_path *p = &st->paths[idx[i]];

		snprintf(names[i], sizeof(names[i]), "--name=p%u", p->index);
		snprintf(files[i], sizeof(files[i]), "--filename=/dev/%s",
			 p->disk);
		snprintf(rts[i], sizeof(rts[i]), "--runtime=%u",
			 sp_calib_runtime_s(cp[idx[i]].target_ns, runtime_s));
		argv[n++] = names[i];
		argv[n++] = files[i];
		argv[n++] = rts[i];
	}
	argv[n] = NULL;
	ret = ops->run(ops->ctx, argv, out, sizeof(out));
	if (ret)
		return sp_errf(err, errlen, -EIO, "calibration: fio failed "
			     "(exit %d): %s", ret, ops->last_error ?
			     ops->last_error(ops->ctx) : "");
	ret = sp_fio_parse(out, "calibration fio", &r);
	if (ret)
		return sp_errf(err, errlen, ret, "calibration: fio's output "
			     "is not its JSON");
	if (r.n_jobs != n_idx)
		ret = sp_errf(err, errlen, -EIO, "calibration: fio ran %zu "
			    "jobs for %zu paths", r.n_jobs, n_idx);
	for (i = 0; !ret && i < n_idx; i++) {
		double p50 = r.jobs[i].dir[SP_FIO_READ].clat_p50_us;

		if (p50 <= 0)
			ret = sp_errf(err, errlen, -EIO, "calibration: no p50 "
				    "for path %s", st->paths[idx[i]].label);
		cp[idx[i]].measured_ns = (int64_t)llround(p50 * 1000);
	}
	sp_fio_result_free(&r);
	return ret;
}

/* The p50 at iodepth 1 of every path that wants one (want[i]): as many
 * together as ask at most SP_CALIB_TOGETHER_IOPS between them, which
 * costs the CPU nothing that shows (scaled delays of 100s of ms); a
 * path that asks more is measured alone. u10 at k = 64 is 3 fio runs
 * instead of 10. */
static int measure(const struct sp_sys_ops *ops, const struct sp_state *st,
		   unsigned int runtime_s, const int *want,
		   struct sp_calib_path *cp, char *err, size_t errlen)
{
	size_t idx[SP_TOPO_MAX_PATHS], n = 0, i;
	double rate = 0;
	int ret = 0;

	for (i = 0; !ret && i <= st->npaths; i++) {
		double r = i < st->npaths ?
			   1e9 / (double)(cp[i].target_ns > 0 ? cp[i].target_ns : 1) : 0;

		if (i < st->npaths && !want[i])
			continue;
		if (n && (i == st->npaths || rate + r > SP_CALIB_TOGETHER_IOPS)) {
			ret = measure_some(ops, st, idx, n, runtime_s, cp, err,
					   errlen);
			n = 0;
			rate = 0;
		}
		if (i < st->npaths) {
			idx[n++] = i;
			rate += r;
		}
	}
	return ret;
}

static int64_t planned_ns(const struct sp_state_path *p)
{
	return (p->read_ns > p->write_ns ? p->read_ns : p->write_ns) +
	       p->netem_ns;
}

static int journal(const struct sp_state *st, const char *dir,
		   const struct sp_calib_path *cp)
{
	char line[128];
	size_t i;
	int fd, ret = sp_state_open_append(dir, &fd);

	for (i = 0; !ret && i < st->npaths; i++) {
		struct sp_state_path p = st->paths[i];

		p.calib_target_ns = cp[i].target_ns;
		p.calib_measured_ns = cp[i].measured_ns;
		ret = sp_state_fmt_calib(&p, line, sizeof(line));
		if (!ret)
			ret = sp_state_append(fd, line);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

int sp_bringup_calibrate(const struct sp_sys_ops *ops, struct sp_state *st,
			 const struct sp_calib_opts *o, const char *state_dir,
			 char *err, size_t errlen)
{
	struct sp_calib_path cp[SP_TOPO_MAX_PATHS];
	int changed[SP_TOPO_MAX_PATHS], all[SP_TOPO_MAX_PATHS];
	uint64_t k = st->scale ? st->scale : 1;
	double tol = o->tolerance > 0 ? o->tolerance : SP_CALIB_TOLERANCE;
	unsigned int round;
	size_t i, off = st->npaths;
	int ret = 0;

	for (i = 0; i < st->npaths; i++) {
		all[i] = 1;
		/* a serial path's service stays as planned: the delay
		 * after it is what the loop corrects */
		int64_t service = st->paths[i].servers ? st->paths[i].service_ns : 0;

		cp[i].target_ns = (int64_t)k * o->base_ns + planned_ns(&st->paths[i]) +
				  service;
		cp[i].injected_ns = planned_ns(&st->paths[i]);
		cp[i].measured_ns = -1;
		changed[i] = cp[i].target_ns - service != cp[i].injected_ns;
		if (cp[i].target_ns > SP_DELAY_MAX_NS)
			return sp_errf(err, errlen, -ERANGE, "path %s: target "
				     "p50 over 60s", st->paths[i].label);
		cp[i].injected_ns = cp[i].target_ns - service;
	}
	for (round = 0; round < o->rounds && off; round++) {
		for (i = 0; !ret && i < st->npaths; i++)
			if (changed[i])
				ret = sp_bringup_delay_set(ops, st, &st->paths[i],
							   cp[i].injected_ns, -1,
							   state_dir, err, errlen);
		/* a path already within bounds keeps its measurement */
		if (!ret)
			ret = measure(ops, st, o->runtime_s, round ? changed : all,
				      cp, err, errlen);
		if (ret)
			return ret;
		for (i = 0; i < st->npaths; i++)
			sp_info("calibration round %u: path %s injected %.3f ms, "
				"p50 %.3f ms, target %.3f ms (%+.1f %%)",
				round + 1, st->paths[i].label,
				(double)cp[i].injected_ns / 1e6,
				(double)cp[i].measured_ns / 1e6,
				(double)cp[i].target_ns / 1e6,
				100 * sp_calib_residual(&cp[i]));
		off = sp_calib_step(cp, st->npaths, tol, changed);
	}
	for (i = 0; i < st->npaths; i++) {
		st->paths[i].has_calib = 1;
		st->paths[i].calib_target_ns = cp[i].target_ns;
		st->paths[i].calib_measured_ns = cp[i].measured_ns;
	}
	ret = journal(st, state_dir, cp);
	if (ret)
		return sp_errf(err, errlen, ret, "cannot journal the "
			     "calibration: %s", strerror(-ret));
	/* the last step's corrections were never applied: the delays in
	 * force are the ones the journaled residuals were measured with */
	return off ? sp_errf(err, errlen, -ERANGE, "%zu of %zu paths not "
			   "within +-%.0f %% after %u rounds", off, st->npaths,
			   100 * tol, o->rounds) : 0;
}
