/* nvme-latency-2025 as data, and its score; see ref_nvme.h. */
#include "harness/repro/ref_nvme.h"

#include "common/file.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "dm/selector.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the kernel's names are dm/selector.c's; adaptive is no kernel's yet */
static const enum sp_selector pol_kinds[SP_NVREF_ADAPTIVE] = {
	SP_SEL_NUMA, SP_SEL_NRR, SP_SEL_QD,
};
static const char *const pol_short[SP_NVREF_NPOL] = {
	"numa", "rr", "qd", "adaptive",
};
static const char *const rw_names[SP_NVREF_NRW] = { "read", "write", "rw" };

const char *sp_nvref_pol_name(enum sp_nvref_pol p)
{
	if ((unsigned)p >= SP_NVREF_NPOL)
		return "?";
	return p == SP_NVREF_ADAPTIVE ? "adaptive" :
	       sp_selector_kernel_name(pol_kinds[p]);
}

int sp_nvref_pol_parse(const char *name)
{
	int i;

	for (i = 0; i < SP_NVREF_NPOL; i++)
		if (!strcmp(name, sp_nvref_pol_name((enum sp_nvref_pol)i)) ||
		    !strcmp(name, pol_short[i]))
			return i;
	/* dm/selector.c's short name of NVMe's round-robin */
	return strcmp(name, "nvme-rr") ? -EINVAL : SP_NVREF_RR;
}

const char *sp_nvref_rw_name(enum sp_nvref_rw rw)
{
	return (unsigned)rw < SP_NVREF_NRW ? rw_names[rw] : "?";
}

int sp_nvref_rw_parse(const char *name)
{
	int i;

	for (i = 0; i < SP_NVREF_NRW; i++)
		if (!strcmp(name, rw_names[i]))
			return i;
	return -EINVAL;
}

void sp_nvref_init(struct sp_nvref_table *t)
{
	int r, p;

	for (r = 0; r < SP_NVREF_NRW; r++)
		for (p = 0; p < SP_NVREF_NPOL; p++)
			t->mibps[r][p] = -1;
}

/* One row into t: 0, 1 for the header, -EINVAL. */
static int parse_row(const char *buf, int first, struct sp_nvref_table *t)
{
	char pol[32], rw[16];
	double v;
	int p, r, end = 0;

	if (first && !strncmp(buf, "policy\t", 7))
		return 1;
	if (sscanf(buf, "%31s %15s %lf%n", pol, rw, &v, &end) != 3 ||
	    buf[end] || !isfinite(v) || v <= 0 || v > 1e9 ||
	    (p = sp_nvref_pol_parse(pol)) < 0 || (r = sp_nvref_rw_parse(rw)) < 0 ||
	    t->mibps[r][p] >= 0)
		return -EINVAL;
	t->mibps[r][p] = v;
	return 0;
}

int sp_nvref_parse(const char *text, const char *origin,
		   struct sp_nvref_table *t)
{
	const char *line = text;
	char buf[128];
	int lineno = 0, rows = 0, seen = 0, got;

	sp_nvref_init(t);
	while ((got = sp_text_data_line(&line, &lineno, buf, sizeof(buf))) > 0) {
		int ret;

		ret = parse_row(buf, !seen++, t);
		if (ret < 0) {
			sp_err("%s:%d: want POLICY (numa, round-robin, "
			       "queue-depth, adaptive) RW (read, write, rw) "
			       "MIBPS (> 0), each pair once", origin, lineno);
			sp_nvref_init(t);
			return -EINVAL;
		}
		rows += !ret;
	}
	if (got < 0) {
		sp_err("%s:%d: a line over %zu characters", origin, lineno,
		       sizeof(buf) - 1);
		sp_nvref_init(t);
		return -EINVAL;
	}
	if (!rows) {
		sp_err("%s: no rows", origin);
		return -EINVAL;
	}
	return 0;
}

int sp_nvref_load(const char *path, struct sp_nvref_table *t)
{
	char *text = NULL;
	int ret = sp_file_read(path, 1 << 16, &text, NULL);

	if (ret) {
		sp_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = sp_nvref_parse(text, path, t);
	free(text);
	return ret;
}

int sp_nvref_kernel_has_qd(const char *release)
{
	char *end;
	long major, minor;

	major = strtol(release, &end, 10);
	if (end == release || *end != '.' || major < 0)
		return -EINVAL;
	release = end + 1;
	minor = strtol(release, &end, 10);
	if (end == release || minor < 0)
		return -EINVAL;
	return major > 6 || (major == 6 && minor >= 11);
}

static double ratio(const struct sp_nvref_table *t, int r,
		    enum sp_nvref_pol num, enum sp_nvref_pol den)
{
	if (!t || t->mibps[r][num] < 0 || t->mibps[r][den] <= 0)
		return -1;
	return t->mibps[r][num] / t->mibps[r][den];
}

size_t sp_nvref_score(const struct sp_nvref_table *pub,
		      const struct sp_nvref_table *meas,
		      struct sp_nvref_ratio *rows, size_t max)
{
	static const enum sp_nvref_pol pairs[3][2] = {
		{ SP_NVREF_RR, SP_NVREF_NUMA },
		{ SP_NVREF_QD, SP_NVREF_RR },
		{ SP_NVREF_ADAPTIVE, SP_NVREF_QD },
	};
	size_t n = 0;
	int r, k;

	for (r = 0; r < SP_NVREF_NRW; r++)
		for (k = 0; k < 3 && n < max; k++) {
			struct sp_nvref_ratio *x = &rows[n++];

			x->rw = (enum sp_nvref_rw)r;
			x->num = pairs[k][0];
			x->den = pairs[k][1];
			x->published = ratio(pub, r, x->num, x->den);
			x->measured = ratio(meas, r, x->num, x->den);
			x->rel = 0;
			if (x->measured < 0)
				x->verdict = "not run";
			else if (x->published < 0)
				x->verdict = "nothing published";
			else {
				x->rel = x->measured / x->published - 1;
				x->verdict = fabs(x->rel) <= SP_NVREF_TOLERANCE
						     ? "as published"
						     : "differs";
			}
		}
	return n;
}

static void table_lines(struct sp_strbuf *o, const struct sp_nvref_table *t)
{
	int r, p;

	sp_strbuf_printf(o, "%-6s", "rw");
	for (p = 0; p < SP_NVREF_NPOL; p++)
		sp_strbuf_printf(o, " %12s", sp_nvref_pol_name((enum sp_nvref_pol)p));
	sp_strbuf_printf(o, "\n");
	for (r = 0; r < SP_NVREF_NRW; r++) {
		sp_strbuf_printf(o, "%-6s", rw_names[r]);
		for (p = 0; p < SP_NVREF_NPOL; p++)
			if (t->mibps[r][p] < 0)
				sp_strbuf_printf(o, " %12s", "-");
			else
				sp_strbuf_printf(o, " %12.2f", t->mibps[r][p]);
		sp_strbuf_printf(o, "\n");
	}
}

int sp_nvref_report(const struct sp_nvref_table *pub,
		    const struct sp_nvref_table *meas, const char *missing,
		    char *buf, size_t len)
{
	struct sp_strbuf o = SP_STRBUF(buf, len);
	struct sp_nvref_ratio rows[SP_NVREF_NRATIOS];
	size_t i, n = sp_nvref_score(pub, meas, rows, SP_NVREF_NRATIOS);
	char m[16], p[16];

	sp_strbuf_printf(&o, "nvme-latency-2025: MiB/s measured\n");
	table_lines(&o, meas);
	sp_strbuf_printf(&o, "published (their hardware)\n");
	table_lines(&o, pub);
	if (missing && *missing)
		sp_strbuf_printf(&o, "not run: %s\n", missing);
	sp_strbuf_printf(&o, "ratio                 measured  published  "
			 "verdict (within %.0f %%)\n",
			 SP_NVREF_TOLERANCE * 100);
	for (i = 0; i < n; i++) {
		const struct sp_nvref_ratio *x = &rows[i];
		char name[48];

		if (x->measured < 0 && x->published < 0)
			continue;
		snprintf(name, sizeof(name), "%s %s/%s",
			 rw_names[x->rw], pol_short[x->num], pol_short[x->den]);
		snprintf(m, sizeof(m), x->measured < 0 ? "-" : "%.2f",
			 x->measured);
		snprintf(p, sizeof(p), x->published < 0 ? "-" : "%.2f",
			 x->published);
		sp_strbuf_printf(&o, "%-21s %8s  %9s  %s", name, m, p,
				 x->verdict);
		if (x->measured >= 0 && x->published >= 0)
			sp_strbuf_printf(&o, " (%+.0f %%)", x->rel * 100);
		sp_strbuf_printf(&o, "\n");
	}
	return o.overflow ? -ENOSPC : 0;
}
