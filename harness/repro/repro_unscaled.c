/* The unscaled reproduction (repro_run.h): the unit from base1's read
 * service time here, then each published topology up with it, its
 * cases under ST and HST, down. And what both modes share: one run of
 * cases, the warm-up, lines said, paths built. */
#include "harness/repro/repro_run.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void sp_repro_say(const struct sp_repro_ops *ops, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ops->say(ops->ctx, line);
}

int sp_repro_path_printf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sp_vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (ret) {
		sp_err("reproduce: path too long: %s...", buf);
		return -ENAMETOOLONG;
	}
	return 0;
}

FILE *sp_repro_fopen_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0644);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

int64_t sp_repro_warmup_s(const struct sp_repro_opts *o)
{
	if (o->warmup_s >= 0)
		return o->warmup_s;
	return o->exact_time ? 5 : 20;
}

int sp_repro_run_cases(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		       const char *selectors, const char *rw, const char *qds,
		       int64_t runtime_s, int64_t ios, const char *dir)
{
	struct sp_repro_run run = {
		.selectors = selectors, .rw = rw, .iodepths = qds,
		/* the 10 Hz per-path counts give the shares' standard
		 * error by batch means: path choices are not independent
		 * draws */
		.timeline = 1, .warmup_s = sp_repro_warmup_s(o), .out = dir,
	};

	if (!o->full && ios > 0)
		run.ios = ios;
	else if (!o->full)
		run.runtime_s = runtime_s;
	return ops->run(ops->ctx, &run) ? -EIO : 0;
}

/* Mean per-I/O read service time of every path, ms, from saved cases. */
static int measured_base_ms(const struct sp_repro_ops *ops, const char *dir,
			    double *base_ms)
{
	struct sp_case_result *cases = NULL;
	uint64_t reads = 0, ticks = 0;
	size_t n = 0, i, p;
	int ret;

	ret = ops->load_cases(ops->ctx, dir, &cases, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		for (p = 0; p < cases[i].n_paths; p++) {
			reads += cases[i].path[p].v[SP_DS_READS];
			ticks += cases[i].path[p].v[SP_DS_RTICKS];
		}
	}
	free(cases);
	if (!reads)
		return -ENODATA;
	*base_ms = (double)ticks / (double)reads;
	return 0;
}

int sp_repro_unit(const struct sp_repro_ops *ops, const struct sp_reference *ref,
		  const char *out, int64_t *unit_ns)
{
	char dir[PATH_MAX], text[32];
	const struct sp_repro_up up = { .topology = "topologies/base1.ini",
					.scale = 1 };
	const struct sp_repro_run run = { .selectors = "st", .rw = "randread",
					  .iodepths = "1", .runtime_s = 8,
					  .out = dir };
	struct sp_linfit fit;
	double base_ms, unit;
	int ret;

	ret = sp_ref_calibrate(ref, &fit);
	if (ret)
		return ret;
	if (sp_repro_path_printf(dir, sizeof(dir), "%s/calibration", out))
		return -ENAMETOOLONG;
	if (ops->up(ops->ctx, &up))
		return -EIO;
	ret = ops->run(ops->ctx, &run) ? -EIO : measured_base_ms(ops, dir, &base_ms);
	ops->down(ops->ctx);
	if (ret)
		return ret;
	ret = sp_ref_unit_ns(&fit, base_ms * 1e6, &unit);
	if (ret)
		return ret;
	*unit_ns = (int64_t)(unit + 0.5);
	sp_repro_say(ops, "calibration: published %.3f ms + %.3f ms x multiplier "
		     "(r2 %.4f); this setup's base %.3f ms -> unit %s", fit.base,
		     fit.slope, fit.r2, base_ms,
		     sp_format_duration(*unit_ns / 1000 * 1000, text, sizeof(text)));
	return 0;
}

/* unit_ns: in whole microseconds, as the report states it */
static int run_topology(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
			const struct sp_repro_plan *plan, size_t t,
			int64_t unit_ns, const char *out)
{
	const char *topo = sp_repro_topologies[t];
	const struct sp_repro_up up = { .topology = topo, .unit_ns = unit_ns,
					.scale = 1 };
	char qds[64], dir[PATH_MAX];
	int rw, failed = 0;

	if (ops->up(ops->ctx, &up))
		return -EIO;
	for (rw = 0; rw < SP_REF_N_RW && !failed; rw++) {
		if (!sp_repro_plan_iodepths(plan, t, rw, qds, sizeof(qds)))
			continue;
		if (sp_repro_path_printf(dir, sizeof(dir), "%s/runs/%s-%s", out,
					 topo, sp_ref_rw_name(rw))) {
			failed = 1;
			break;
		}
		failed = sp_repro_run_cases(ops, o, "st,hst", sp_ref_rw_name(rw),
					    qds, o->runtime_s, 0, dir) != 0;
	}
	ops->down(ops->ctx);
	return failed ? -EIO : 0;
}

int sp_repro_unscaled(const struct sp_repro_ops *ops, const struct sp_repro_opts *o,
		      const struct sp_repro_plan *plan, int64_t unit_ns,
		      const char *out, char *unit_text, size_t len)
{
	size_t t;
	int ret = 0;

	/* whole microseconds: what `up --unit` reads back exactly */
	sp_format_duration(unit_ns / 1000 * 1000, unit_text, len);
	sp_repro_say(ops, "reproduce: unit %s, %zu points x {ST, HST}, output in %s",
		     unit_text, sp_repro_plan_points(plan), out);
	for (t = 0; t < SP_REPRO_N_TOPOS && !ret; t++) {
		if (sp_repro_plan_has_topology(plan, t))
			ret = run_topology(ops, o, plan, t, unit_ns / 1000 * 1000, out);
	}
	return ret;
}
