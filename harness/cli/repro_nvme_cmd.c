/* `slowpath reproduce nvme-latency-2025`: topologies/nvme2.ini (two
 * nvme-tcp paths, the first 30 ms slower) up, NVMe's iopolicies numa
 * and round-robin (queue-depth where the kernel has it) in read, write
 * and rw, down; the ratios between the policies scored against the
 * published table (harness/repro/ref_nvme.h), through the same bring-up
 * and run as the user's commands (repro_real.c). */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "harness/cli/repro_cli.h"
#include "harness/measure/case_result.h"
#include "harness/repro/ref_nvme.h"
#include "harness/repro/repro_do.h"
#include "harness/repro/repro_run.h"
#include "topologies/topo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct nv_cli {
	const char *out, *data, *topology;
	int64_t ios, iodepth;
	int help;
};

static const struct sp_opt nv_table[] = {
	{ .name = "ios", .type = SP_OPT_INT, .def = "6000", .min = 100,
	  .max = 10000000, .offset = offsetof(struct nv_cli, ios),
	  .help = "I/Os per case (a count, so a run's length is the same on "
	  "exact time whatever the delays; at 2000 TCP's slow start on the "
	  "31 ms path still shows in numa's write)" },
	{ .name = "iodepth", .type = SP_OPT_INT, .def = "32", .min = 1,
	  .max = 1024, .offset = offsetof(struct nv_cli, iodepth),
	  .help = "fio's iodepth (the table gives none)" },
	{ .name = "topology", .type = SP_OPT_STR, .def = "nvme2",
	  .offset = offsetof(struct nv_cli, topology),
	  .help = "the two paths: a name or file with transport = nvme-tcp" },
	{ .name = "out", .type = SP_OPT_STR,
	  .offset = offsetof(struct nv_cli, out),
	  .help = "the run and score.txt: a new or empty folder (default "
	  "build/reproduce/<UTC time>)" },
	{ .name = "data", .type = SP_OPT_STR,
	  .offset = offsetof(struct nv_cli, data),
	  .help = "the published table (default " SP_NVREF_DEFAULT_DATA ")" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct nv_cli, help) },
	SP_OPT_END,
};

static int nv_parse(int argc, char **argv, struct nv_cli *cli)
{
	char err[SP_OPT_ERRLEN], help[2048];
	int next;

	sp_opt_set_defaults(nv_table, cli);
	if (sp_opt_parse_argv(nv_table, cli, argc, argv, 2, &next, err,
			      sizeof(err))) {
		sp_err("reproduce nvme-latency-2025: %s", err);
		return SP_EXIT_USAGE;
	}
	if (next < argc) {
		sp_err("reproduce nvme-latency-2025: unexpected argument '%s'",
		       argv[next]);
		return SP_EXIT_USAGE;
	}
	if (cli->help) {
		sp_opt_help_argv(nv_table, help, sizeof(help));
		printf("usage: slowpath reproduce nvme-latency-2025 "
		       "[options]\n%s", help);
		return SP_EXIT_OK;
	}
	return -1;
}

/* "numa,rr" or "numa,rr,qd"; missing says why qd is not there */
static void policies(char *sel, size_t len, char *missing, size_t mlen)
{
	struct utsname u;
	int qd;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	qd = sp_nvref_kernel_has_qd(u.release);
	snprintf(sel, len, qd > 0 ? "numa,rr,qd" : "numa,rr");
	missing[0] = '\0';
	if (qd <= 0)
		snprintf(missing, mlen, "queue-depth: not in this kernel (%s): "
			 "it came with 6.11 (make lab KERNEL=6.12); adaptive: "
			 "not merged", u.release);
	else
		snprintf(missing, mlen, "adaptive: not merged (a kernel built "
			 "with its patches: make lab KERNEL=...)");
}

/* MiB/s of every case into t; the slow (first) path's share of each
 * said, since the published numa was its path's alone */
static int measured(const char *out, struct sp_nvref_table *t)
{
	struct sp_case_result *cases = NULL;
	size_t i, p, n = 0;
	int ret = sp_case_load_dir(out, &cases, &n);

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
		if (all && c->n_paths)
			printf("%s %s: %.2f MiB/s, path 1 (the slow one) took "
			       "%.1f %% of the I/Os\n", c->selector, c->rw,
			       t->mibps[rw][pol], 100.0 * (double)ios[0] /
			       (double)all);
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
 * 0, or an exit code said. */
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
		return SP_EXIT_USAGE;
	}
	if (t.transport != SP_TRANSPORT_NVME_TCP || t.npaths != 2 ||
	    t.servers) {
		sp_err("reproduce nvme-latency-2025: %s: want 2 paths with "
		       "transport = nvme-tcp and servers = 0 (the published "
		       "+30 ms was latency)", t.file);
		return SP_EXIT_USAGE;
	}
	up.unit_ns = t.unit_ns / 1000 > 1000 ? t.unit_ns / 1000 : 1000;
	if (ops->up(NULL, &up))
		return SP_EXIT_RUNTIME;
	for (i = 0; i < t.npaths; i++)
		if (ops->delay_set(NULL, rp[i].label, rp[i].read_delay_ns)) {
			ops->down(NULL);
			return SP_EXIT_RUNTIME;
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

int sp_cmd_reproduce_nvme(int argc, char **argv)
{
	struct nv_cli cli;
	struct sp_nvref_table pub, meas;
	const struct sp_repro_ops *ops = &sp_repro_real_ops;
	char out[PATH_MAX], sel[32], missing[256], iod[24], text[4096];
	char numa_out[PATH_MAX + 8], rest_out[PATH_MAX + 8];
	struct sp_repro_run run = { .rw = "read,write,rw" };
	int ret = nv_parse(argc, argv, &cli);

	if (ret >= 0)
		return ret;
	if (sp_nvref_load(cli.data ? cli.data : SP_NVREF_DEFAULT_DATA, &pub))
		return SP_EXIT_USAGE;
	if (geteuid() != 0) {
		sp_err("reproduce: needs root (it brings topologies up)");
		return SP_EXIT_ENV;
	}
	ret = sp_repro_pick_out(cli.out, 0, out, sizeof(out));
	if (ret)
		return ret;
	policies(sel, sizeof(sel), missing, sizeof(missing));
	snprintf(iod, sizeof(iod), "%lld", (long long)cli.iodepth);
	snprintf(numa_out, sizeof(numa_out), "%s/numa", out);
	snprintf(rest_out, sizeof(rest_out), "%s/rest", out);
	ret = up_numa_on_first(ops, cli.topology);
	if (ret)
		return ret;
	/* numa first: after rr it would keep whichever path rr used last
	 * (6.1 does not clear the current path on an iopolicy change) */
	run.selectors = "numa";
	run.iodepths = iod;
	run.ios = cli.ios;
	run.out = numa_out;
	ret = ops->run(NULL, &run);
	run.selectors = sel + strlen("numa,");
	run.out = rest_out;
	if (!ret)
		ret = ops->run(NULL, &run);
	if (ops->down(NULL) && !ret)
		ret = -EIO;
	sp_nvref_init(&meas);
	if (!ret)
		ret = measured(numa_out, &meas);
	if (!ret)
		ret = measured(rest_out, &meas);
	if (ret) {
		sp_err("reproduce nvme-latency-2025: %s", strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	if (sp_nvref_report(&pub, &meas, missing, text, sizeof(text)))
		sp_warn("reproduce: the score did not fit its buffer");
	fputs(text, stdout);
	if ((ret = write_score(out, text))) {
		sp_err("reproduce: %s/score.txt: %s", out, strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	return SP_EXIT_OK;
}
