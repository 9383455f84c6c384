/* `slowpath run`'s matrix, safety check and progress text: all pure,
 * so every bad form of every option is a unit test, not a lab run. */
#include "harness/run/run_matrix.h"

#include "common/strbuf.h"
#include "common/units.h"
#include "harness/measure/case_result.h"
#include "harness/bringup/state.h"
#include "harness/run/run_faults.h"
#include "lab/hst_info.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C(f) offsetof(struct sp_run_cli, f)
const struct sp_opt sp_run_cli_table[] = {
	{ .name = "selectors", .type = SP_OPT_STR, .offset = C(selectors),
	  .def = "st,hst", .help = "comma list of st, hst, ql, rr, ioa and "
	  "selectors built with 'slowpath selector build'" },
	{ .name = "rw", .type = SP_OPT_STR, .offset = C(rw),
	  .def = "read,write,randread,randwrite",
	  .help = "comma list of fio rw= patterns" },
	{ .name = "iodepth", .type = SP_OPT_STR, .offset = C(iodepth),
	  .def = "1,2,32,64", .help = "comma list of queue depths" },
	{ .name = "bs", .type = SP_OPT_STR, .offset = C(bs), .def = "4k",
	  .help = "comma list of block sizes (multiples of 512)" },
	{ .name = "numjobs", .type = SP_OPT_INT, .offset = C(numjobs),
	  .def = "1", .min = 1, .max = SP_RUN_MAX_NUMJOBS,
	  .help = "fio jobs per case" },
	{ .name = "size", .type = SP_OPT_SIZE, .offset = C(size),
	  .def = "500M", .help = "bytes each job covers (and stops after, "
	  "unless --ios or --runtime)" },
	{ .name = "ios", .type = SP_OPT_INT, .offset = C(ios), .def = "0",
	  .min = 0, .max = 1e12, .help = "stop each job after N I/Os" },
	{ .name = "runtime", .type = SP_OPT_INT, .offset = C(runtime_s),
	  .def = "0", .min = 0, .max = SP_RUN_MAX_RUNTIME_S,
	  .help = "run each case for S seconds (time based)" },
	{ .name = "job", .type = SP_OPT_STR, .offset = C(job),
	  .help = "fio job file for the rest of the workload (filename is "
	  "always the map)" },
	{ .name = "out", .type = SP_OPT_STR, .offset = C(out),
	  .help = "result directory (default results/<time>-<topology>)" },
	{ .name = "json", .type = SP_OPT_BOOL, .offset = C(json),
	  .help = "print the report as JSON instead of text" },
	{ .name = "kernels", .type = SP_OPT_STR, .offset = C(kernels),
	  .help = "comma list of lab kernel series (6.1,6.12): one lab boot "
	  "each, the same cases, reported side by side (no --fault, "
	  "--timeline or --verify)" },
	{ .name = "jobs", .type = SP_OPT_INT, .offset = C(jobs),
	  .def = "-1", .min = -1, .max = 8,
	  .help = "N exact-time (uml) lab guests side by side, one CPU each, "
	  "the matrix's longest list dealt among them (0: none; no "
	  "--fault, --timeline or --verify); with --topology on a host "
	  "without the kernel stack and no lab started, the number of "
	  "cores (at most 8) when not given" },
	{ .name = "topology", .type = SP_OPT_STR, .offset = C(topology),
	  .help = "with --kernels or --jobs: the topology each boot brings up" },
	{ .name = "unit", .type = SP_OPT_STR, .offset = C(unit),
	  .help = "with --kernels or --jobs: up's --unit" },
	{ .name = "lab-cpus", .type = SP_OPT_INT, .offset = C(lab_cpus),
	  .def = "2", .min = 1, .max = 64,
	  .help = "with --kernels: vCPUs of each boot (ioa needs one per path)" },
	{ .name = "verify", .type = SP_OPT_BOOL, .offset = C(verify),
	  .help = "fio checks every block it writes (crc32c, verify_backlog);"
	  " write workloads only" },
	{ .name = "timeline", .type = SP_OPT_BOOL, .offset = C(timeline),
	  .help = "sample each path and its selector's state at 10 Hz into "
	  "<case>.timeline.tsv (on with --fault and --verify)" },
	{ .name = "warmup", .type = SP_OPT_INT, .offset = C(warmup_s),
	  .def = "0", .min = 0, .max = SP_RUN_MAX_RUNTIME_S,
	  .help = "before each HST case, S seconds of its workload at "
	  "iodepth >= 64 on the selector just set, not measured (HST's "
	  "averages start cold; the other selectors keep no history)" },
	{ .name = "hst", .type = SP_OPT_STR, .offset = C(hst),
	  .help = "HST's build for the HST cases: stock, 5.8[:SKEW] (HST as "
	  "merged for 5.8, SKEW added to sched_clock(), e.g. 200ms) or prebio "
	  "(before the 2022 bio-based timer fix); default: up's" },
	{ .name = "help", .type = SP_OPT_BOOL, .offset = C(help),
	  .help = "this text" },
	SP_OPT_END,
};

/* fio's rw= values (and its synonyms) a selector comparison can use. */
static const char *const rw_choices[] = {
	"read", "write", "randread", "randwrite", "rw", "readwrite",
	"randrw", "trim", "randtrim", "trimwrite", NULL,
};

int sp_run_split_list(const char *text, const char *opt,
		      char items[][SP_RUN_ITEMLEN], size_t max, size_t *n,
		      char *err, size_t errlen)
{
	const char *p = text, *end, *a, *b;
	size_t k, len;

	*n = 0;
	if (!text)
		return sp_errf(err, errlen, -EINVAL, "--%s needs a value", opt);
	for (;;) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		for (a = p; a < end && isspace((unsigned char)*a); a++)
			;
		for (b = end; b > a && isspace((unsigned char)b[-1]); b--)
			;
		len = (size_t)(b - a);
		if (!len)
			return sp_errf(err, errlen, -EINVAL, "--%s '%s': empty item%s", opt,
				     text, *text ? " (stray comma?)" : "");
		if (len >= SP_RUN_ITEMLEN)
			return sp_errf(err, errlen, -EINVAL, "--%s: '%.*s' is too long",
				     opt, (int)len, a);
		if (*n == max)
			return sp_errf(err, errlen, -EINVAL, "--%s '%s': more than %zu "
				     "items", opt, text, max);
		memcpy(items[*n], a, len);
		items[*n][len] = '\0';
		for (k = 0; k < *n; k++)
			if (!strcmp(items[k], items[*n]))
				return sp_errf(err, errlen, -EINVAL, "--%s '%s': '%s' "
					     "twice", opt, text, items[k]);
		(*n)++;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int parse_selectors(const char *text, struct sp_run_plan *plan,
			   char *err, size_t errlen)
{
	char items[SP_RUN_MAX_LIST][SP_RUN_ITEMLEN];
	size_t i, k;
	int ret = sp_run_split_list(text, "selectors", items, SP_RUN_MAX_LIST,
				    &plan->n_sel, err, errlen);

	for (i = 0; !ret && i < plan->n_sel; i++) {
		if (sp_selector_parse(items[i], &plan->sel[i]))
			return sp_errf(err, errlen, -EINVAL, "--selectors: '%s' is "
				     "none of %s (slowpath selector build adds "
				     "yours)", items[i], sp_selector_list());
		/* "st,service-time" names one selector twice */
		for (k = 0; k < i; k++)
			if (plan->sel[k] == plan->sel[i])
				return sp_errf(err, errlen, -EINVAL, "--selectors: '%s' "
					     "twice", sp_selector_short_name(
						     plan->sel[i]));
	}
	return ret;
}

static int parse_rw(const char *text, struct sp_run_plan *plan, char *err,
		    size_t errlen)
{
	size_t i, k;
	int ret = sp_run_split_list(text, "rw", plan->rw, SP_RUN_MAX_LIST,
				    &plan->n_rw, err, errlen);

	for (i = 0; !ret && i < plan->n_rw; i++) {
		for (k = 0; rw_choices[k]; k++)
			if (!strcmp(plan->rw[i], rw_choices[k]))
				break;
		if (!rw_choices[k])
			return sp_errf(err, errlen, -EINVAL, "--rw: '%s' is not one of "
				     "fio's patterns (read, write, randread, "
				     "randwrite, rw, randrw, ...)",
				     plan->rw[i]);
	}
	return ret;
}

/* rw patterns that write: fio verifies what it wrote */
static int rw_writes(const char *rw)
{
	return strstr(rw, "write") || !strcmp(rw, "rw") || !strcmp(rw, "randrw");
}

static int parse_iodepth(const char *text, struct sp_run_plan *plan,
			 char *err, size_t errlen)
{
	char items[SP_RUN_MAX_LIST][SP_RUN_ITEMLEN];
	size_t i, k;
	int64_t v;
	int ret = sp_run_split_list(text, "iodepth", items, SP_RUN_MAX_LIST,
				    &plan->n_qd, err, errlen);

	for (i = 0; !ret && i < plan->n_qd; i++) {
		if (sp_parse_int64(items[i], 1, SP_RUN_MAX_IODEPTH, &v))
			return sp_errf(err, errlen, -EINVAL, "--iodepth: '%s' is not a "
				     "whole number from 1 to %d", items[i],
				     SP_RUN_MAX_IODEPTH);
		plan->iodepth[i] = (int)v;
		for (k = 0; k < i; k++)	/* "1,01" */
			if (plan->iodepth[k] == plan->iodepth[i])
				return sp_errf(err, errlen, -EINVAL, "--iodepth: %d "
					     "twice", plan->iodepth[i]);
	}
	return ret;
}

static int parse_bs(const char *text, struct sp_run_plan *plan, char *err,
		    size_t errlen)
{
	char items[SP_RUN_MAX_LIST][SP_RUN_ITEMLEN];
	size_t i, k;
	int ret = sp_run_split_list(text, "bs", items, SP_RUN_MAX_LIST,
				    &plan->n_bs, err, errlen);

	for (i = 0; !ret && i < plan->n_bs; i++) {
		if (sp_parse_size_bytes(items[i], &plan->bs[i]))
			return sp_errf(err, errlen, -EINVAL, "--bs: '%s' is not a size "
				     "(e.g. 4k, 64k, 1m)", items[i]);
		/* direct I/O needs whole sectors */
		if (!plan->bs[i] || plan->bs[i] % 512 ||
		    plan->bs[i] > 64ULL << 20)
			return sp_errf(err, errlen, -EINVAL, "--bs: '%s' is not a "
				     "multiple of 512 up to 64m (direct I/O)",
				     items[i]);
		for (k = 0; k < i; k++)
			if (plan->bs[k] == plan->bs[i])
				return sp_errf(err, errlen, -EINVAL, "--bs: '%s' twice",
					     items[i]);
	}
	return ret;
}

/* --hst: which HST build the HST cases name, and 5.8's skew. */
static int plan_hst(const struct sp_run_cli *cli, struct sp_run_plan *plan,
		    char *err, size_t errlen)
{
	struct sp_hst_choice c;
	int ret;

	if (!cli->hst)
		return 0;
	ret = sp_hst_choice_parse(cli->hst, &c, err, errlen);
	if (ret)
		return ret;
	plan->hst_given = 1;
	plan->hst_build = c.build;
	plan->hst_skew_ns = c.skew_ns;
	return 0;
}

int sp_run_plan_from_cli(const struct sp_run_cli *cli,
			 struct sp_run_plan *plan, char *err, size_t errlen)
{
	size_t i;
	int ret;

	memset(plan, 0, sizeof(*plan));
	ret = parse_selectors(cli->selectors, plan, err, errlen);
	if (!ret)
		ret = parse_rw(cli->rw, plan, err, errlen);
	if (!ret)
		ret = parse_bs(cli->bs, plan, err, errlen);
	if (!ret)
		ret = parse_iodepth(cli->iodepth, plan, err, errlen);
	if (ret)
		return ret;
	if (cli->numjobs < 1 || cli->numjobs > SP_RUN_MAX_NUMJOBS)
		return sp_errf(err, errlen, -EINVAL, "--numjobs %lld: must be from 1 to %d",
			     (long long)cli->numjobs, SP_RUN_MAX_NUMJOBS);
	plan->numjobs = (int)cli->numjobs;
	if (cli->ios < 0 || cli->runtime_s < 0 ||
	    cli->runtime_s > SP_RUN_MAX_RUNTIME_S)
		return sp_errf(err, errlen, -EINVAL, "--ios and --runtime must be "
			     "positive");
	if (cli->ios && cli->runtime_s)
		return sp_errf(err, errlen, -EINVAL, "--ios %lld and --runtime %lld: "
			     "choose one way for a case to end",
			     (long long)cli->ios, (long long)cli->runtime_s);
	plan->size_bytes = cli->size;
	for (i = 0; i < plan->n_bs; i++)
		if (plan->size_bytes < plan->bs[i])
			return sp_errf(err, errlen, -EINVAL, "--size %llu is smaller than "
				     "a block of %llu bytes",
				     (unsigned long long)plan->size_bytes,
				     (unsigned long long)plan->bs[i]);
	plan->stop = cli->ios ? SP_RUN_STOP_IOS :
		     cli->runtime_s ? SP_RUN_STOP_RUNTIME : SP_RUN_STOP_SIZE;
	plan->ios = (uint64_t)cli->ios;
	plan->runtime_s = (unsigned int)cli->runtime_s;
	if (cli->job && !*cli->job)
		return sp_errf(err, errlen, -EINVAL, "--job: empty file name");
	if (cli->out && !*cli->out)
		return sp_errf(err, errlen, -EINVAL, "--out: empty directory name");
	plan->job_file = cli->job;
	plan->out_dir = cli->out;
	plan->json = cli->json;
	for (i = 0; cli->verify && i < plan->n_rw; i++)
		if (!rw_writes(plan->rw[i]) || !strcmp(plan->rw[i], "trimwrite"))
			return sp_errf(err, errlen, -EINVAL, "--verify: --rw %s "
				     "does not write; verify needs write, "
				     "randwrite, rw or randrw", plan->rw[i]);
	plan->verify = cli->verify;
	if (cli->n_faults > SP_FAULT_MAX)
		return sp_errf(err, errlen, -EINVAL, "--fault: at most %d",
			       SP_FAULT_MAX);
	ret = sp_run_faults_check(cli->faults, cli->n_faults, err, errlen);
	if (ret)
		return ret;
	plan->n_faults = cli->n_faults;
	memcpy(plan->faults, cli->faults, cli->n_faults * sizeof(cli->faults[0]));
	plan->timeline = cli->timeline || plan->verify || plan->n_faults;
	if (cli->warmup_s < 0 || cli->warmup_s > SP_RUN_MAX_RUNTIME_S)
		return sp_errf(err, errlen, -EINVAL, "--warmup %lld: must be "
			       "from 0 to %d seconds", (long long)cli->warmup_s,
			       SP_RUN_MAX_RUNTIME_S);
	if (cli->warmup_s && cli->job)
		return sp_errf(err, errlen, -EINVAL, "--warmup with --job: the "
			       "warm-up runs the reference command line only");
	plan->warmup_s = (unsigned int)cli->warmup_s;
	return plan_hst(cli, plan, err, errlen);
}

size_t sp_run_plan_count(const struct sp_run_plan *plan)
{
	return plan->n_sel * plan->n_rw * plan->n_bs * plan->n_qd;
}

int sp_run_plan_case(const struct sp_run_plan *plan, size_t index,
		     struct sp_run_case *c)
{
	size_t i = index;

	if (index >= sp_run_plan_count(plan))
		return -ERANGE;
	c->index = index;
	c->sel = plan->sel[i % plan->n_sel];
	i /= plan->n_sel;
	c->iodepth = plan->iodepth[i % plan->n_qd];
	i /= plan->n_qd;
	c->bs = plan->bs[i % plan->n_bs];
	i /= plan->n_bs;
	c->rw = plan->rw[i];
	return 0;
}

static int has_prefix(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix)) &&
	       strlen(s) > strlen(prefix);
}

int sp_run_map_is_ours(const char *name, const char *uuid,
		       const char *want_name, const char *want_uuid,
		       char *err, size_t errlen)
{
	if (!has_prefix(name, SP_TOPO_MAP_PREFIX))
		return sp_errf(err, errlen, -EINVAL, "map '%s' is not one slowpath made "
			     "(its name lacks '%s'); refusing to write to it",
			     name ? name : "", SP_TOPO_MAP_PREFIX);
	if (!has_prefix(uuid, SP_UP_UUID_PREFIX))
		return sp_errf(err, errlen, -EINVAL, "map '%s' has uuid '%s', not one "
			     "slowpath made ('%s...'); refusing to write to it",
			     name, uuid ? uuid : "", SP_UP_UUID_PREFIX);
	if (!want_name || strcmp(name, want_name))
		return sp_errf(err, errlen, -EINVAL, "map '%s' is not the map of the "
			     "topology that is up ('%s')", name,
			     want_name ? want_name : "none");
	if (!want_uuid || strcmp(uuid, want_uuid))
		return sp_errf(err, errlen, -EINVAL, "map '%s' has uuid '%s' but 'up' "
			     "recorded '%s': another map took its name", name,
			     uuid, want_uuid ? want_uuid : "none");
	return 0;
}

static int copy_field(char *dst, size_t len, const char *a, const char *b)
{
	if ((size_t)(b - a) >= len)
		return -EINVAL;
	memcpy(dst, a, (size_t)(b - a));
	dst[b - a] = '\0';
	return 0;
}

int sp_run_parse_dm_info(const char *line, char *name, size_t namelen,
			 char *uuid, size_t uuidlen, unsigned int *major,
			 unsigned int *minor)
{
	const char *f[4], *p = line;
	char num[16], *end;
	unsigned long v[2];
	int i;

	while (*p == ' ')
		p++;
	for (i = 0; i < 4; i++) {
		f[i] = p;
		p = strchr(p, i < 3 ? '|' : '\n');
		if (!p) {
			if (i < 3)
				return -EINVAL;
			p = f[i] + strlen(f[i]);
		}
		if (i == 0 && copy_field(name, namelen, f[0], p))
			return -EINVAL;
		if (i == 1 && copy_field(uuid, uuidlen, f[1], p))
			return -EINVAL;
		if (i >= 2) {
			if (copy_field(num, sizeof(num), f[i], p) || !num[0])
				return -EINVAL;
			errno = 0;
			v[i - 2] = strtoul(num, &end, 10);
			if (*end || errno || v[i - 2] > 0xfffff)
				return -EINVAL;
		}
		if (*p)
			p++;
	}
	if (!*name)
		return -EINVAL;
	*major = (unsigned int)v[0];
	*minor = (unsigned int)v[1];
	return 0;
}

int64_t sp_run_eta_ns(const struct sp_run_progress *p)
{
	int64_t per_case, left;

	if (p->done >= p->total)
		return 0;
	if (p->done)
		per_case = p->done_ns / (int64_t)p->done;
	else if (p->case_estimate_ns > 0)
		per_case = p->case_estimate_ns;
	else
		return -1;
	left = per_case * (int64_t)(p->total - p->done);
	left -= p->case_elapsed_ns < per_case ? p->case_elapsed_ns : per_case;
	return left > 0 ? left : 0;
}

const char *sp_run_fmt_clock(int64_t ns, char *buf, size_t len)
{
	int64_t s;

	if (ns < 0) {
		snprintf(buf, len, "--:--");
		return buf;
	}
	s = (ns + SP_NSEC_PER_SEC / 2) / SP_NSEC_PER_SEC;
	if (s >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", (long long)(s / 3600),
			 (long long)(s / 60 % 60), (long long)(s % 60));
	else
		snprintf(buf, len, "%lld:%02lld", (long long)(s / 60),
			 (long long)(s % 60));
	return buf;
}

size_t sp_run_progress_line(const struct sp_run_progress *p, char *buf,
			    size_t len)
{
	char el[32], eta[32];
	int width = snprintf(NULL, 0, "%zu", p->total);
	int n;

	sp_run_fmt_clock(p->elapsed_ns, el, sizeof(el));
	sp_run_fmt_clock(sp_run_eta_ns(p), eta, sizeof(eta));
	n = snprintf(buf, len, "[%*zu/%zu] %s  %s elapsed  ETA %s", width,
		     p->done + (p->done < p->total), p->total,
		     p->label ? p->label : "", el, eta);
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

void sp_run_case_label(const struct sp_run_case *c, int numjobs, char *buf,
		       size_t len)
{
	char bs[16];

	sp_case_bs_text(c->bs, bs, sizeof(bs));
	if (numjobs > 1)
		snprintf(buf, len, "%s %s %s qd%d j%d",
			 sp_selector_short_name(c->sel), c->rw, bs, c->iodepth,
			 numjobs);
	else
		snprintf(buf, len, "%s %s %s qd%d",
			 sp_selector_short_name(c->sel), c->rw, bs, c->iodepth);
}
