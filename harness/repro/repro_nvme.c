/* reproduce nvme-latency-2025's run (repro_nvme.h): nvme2 up with numa
 * on its slow path, numa then the other policies in read, write and rw,
 * down, the MiB/s scored as ratios against the published table. Every
 * effect goes through struct sp_repro_ops. */
#include "harness/repro/repro_nvme.h"

#include "common/log.h"
#include "harness/repro/repro_run.h"
#include "topologies/topo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "numa,rr" or "numa,rr,qd"; missing says why qd is not there */
static void policies(const char *kernel, char *sel, size_t len,
		     char *missing, size_t mlen)
{
	int qd = sp_nvref_kernel_has_qd(kernel);

	snprintf(sel, len, qd > 0 ? "numa,rr,qd" : "numa,rr");
	if (qd <= 0)
		snprintf(missing, mlen, "queue-depth: not in this kernel (%s): "
			 "it came with 6.11 (make lab KERNEL=6.12); adaptive: "
			 "not merged", kernel);
	else
		snprintf(missing, mlen, "adaptive: not merged (a kernel built "
			 "with its patches: make lab KERNEL=...)");
}

/* MiB/s of every case into t; the slow (first) path's share of each
 * said, since the published numa was its path's alone */
static int measured(const struct sp_repro_ops *ops, const char *out,
		    struct sp_nvref_table *t)
{
	struct sp_case_result *cases = NULL;
	size_t i, p, n = 0;
	char line[160];
	int ret = ops->load_cases(ops->ctx, out, &cases, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		const struct sp_case_result *c = &cases[i];
		int pol = sp_nvref_pol_parse(c->selector);
		int rw = sp_nvref_rw_parse(c->rw);
		uint64_t ios[SP_CASE_MAX_PATHS], all = 0;

		if (pol < 0 || rw < 0)
			continue;
		t->mibps[rw][pol] = (c->fio.dir[SP_FIO_READ].bw_kib +
				     c->fio.dir[SP_FIO_WRITE].bw_kib) / 1024;
		sp_case_path_ios(c, ios);
		for (p = 0; p < c->n_paths; p++)
			all += ios[p];
		if (!all || !c->n_paths)
			continue;
		snprintf(line, sizeof(line), "%s %s: %.2f MiB/s, path 1 (the "
			 "slow one) took %.1f %% of the I/Os", c->selector,
			 c->rw, t->mibps[rw][pol],
			 100.0 * (double)ios[0] / (double)all);
		ops->say(ops->ctx, line);
	}
	free(cases);
	return n ? 0 : -ENODATA;
}

/* numa keeps the first path of the head's list, the first whose
 * namespace scan finished, not the first connected: at the file's
 * delays the fast path's scan (round trips of 1 ms, not 31) wins. The
 * published numa, half of rr, ran on the slow path; so the topology
 * comes up at a thousandth of its delays (microseconds: path 1,
 * connected first, is scanned first) and each path then gets its own.
 * 0 or -errno, said. */
static int up_numa_on_first(const struct sp_repro_ops *ops,
			    const char *topology)
{
	static struct sp_topo t;
	struct sp_topo_resolved_path rp[SP_TOPO_MAX_PATHS];
	struct sp_repro_up up = { .topology = topology, .scale = 1 };
	char err[SP_TOPO_ERRLEN];
	size_t i;

	if (sp_topo_load(topology, &t, err, sizeof(err)) ||
	    sp_topo_resolve(&t, 0, rp, err, sizeof(err))) {
		sp_err("reproduce nvme-latency-2025: %s", err);
		return -EINVAL;
	}
	if (t.transport != SP_TRANSPORT_NVME_TCP || t.npaths != 2 ||
	    t.servers) {
		sp_err("reproduce nvme-latency-2025: %s: want 2 paths with "
		       "transport = nvme-tcp and servers = 0 (the published "
		       "+30 ms was latency)", t.file);
		return -EINVAL;
	}
	up.unit_ns = t.unit_ns / 1000 > 1000 ? t.unit_ns / 1000 : 1000;
	if (ops->up(ops->ctx, &up))
		return -EIO;
	for (i = 0; i < t.npaths; i++)
		if (ops->delay_set(ops->ctx, rp[i].label, rp[i].read_delay_ns)) {
			ops->down(ops->ctx);
			return -EIO;
		}
	return 0;
}

static int write_score(const char *out, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/score.txt", out) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	/* a new file, never over one there or through a link */
	f = sp_repro_fopen_new(path);
	if (!f || fputs(text, f) < 0) {
		if (f)
			fclose(f);
		return -errno;
	}
	return fclose(f) ? -errno : 0;
}

int sp_repro_nvme_do(const struct sp_repro_ops *ops,
		     const struct sp_repro_nvme_opts *o,
		     const struct sp_nvref_table *pub, const char *out,
		     char *text, size_t len)
{
	char sel[32], missing[256], iod[24];
	char numa_out[PATH_MAX + 8], rest_out[PATH_MAX + 8];
	struct sp_repro_run run = { .rw = "read,write,rw" };
	struct sp_nvref_table meas;
	int ret;

	policies(o->kernel, sel, sizeof(sel), missing, sizeof(missing));
	snprintf(iod, sizeof(iod), "%lld", (long long)o->iodepth);
	if ((size_t)snprintf(numa_out, sizeof(numa_out), "%s/numa", out) >=
	    sizeof(numa_out) ||
	    (size_t)snprintf(rest_out, sizeof(rest_out), "%s/rest", out) >=
	    sizeof(rest_out))
		return -ENAMETOOLONG;
	ret = up_numa_on_first(ops, o->topology);
	if (ret)
		return ret;
	/* numa first: after rr it would keep whichever path rr used last
	 * (6.1 does not clear the current path on an iopolicy change) */
	run.selectors = "numa";
	run.iodepths = iod;
	run.ios = o->ios;
	run.out = numa_out;
	ret = ops->run(ops->ctx, &run);
	run.selectors = sel + strlen("numa,");
	run.out = rest_out;
	if (!ret)
		ret = ops->run(ops->ctx, &run);
	if (ops->down(ops->ctx) && !ret)
		ret = -EIO;
	sp_nvref_init(&meas);
	if (!ret)
		ret = measured(ops, numa_out, &meas);
	if (!ret)
		ret = measured(ops, rest_out, &meas);
	if (ret) {
		sp_err("reproduce nvme-latency-2025: %s", strerror(-ret));
		return ret;
	}
	if (sp_nvref_report(pub, &meas, missing, text, len))
		sp_warn("reproduce: the score did not fit its buffer");
	ret = write_score(out, text);
	if (ret)
		sp_err("reproduce: %s/score.txt: %s", out, strerror(-ret));
	return ret;
}
