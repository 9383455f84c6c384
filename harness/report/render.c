#include "harness/report/render.h"
#include "harness/report/render_families.h"
#include "harness/report/render_kernels.h"
#include "harness/report/render_lat.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The seed's columns, in its order, then what we derive from them. */
static const enum sp_ds_field seed_cols[] = {
	SP_DS_READS, SP_DS_RMERGES, SP_DS_RSECTORS, SP_DS_RTICKS,
	SP_DS_WRITES, SP_DS_WMERGES, SP_DS_WSECTORS, SP_DS_WTICKS,
};
#define N_SEED_COLS (sizeof(seed_cols) / sizeof(seed_cols[0]))

/* Cells are formatted into one of these; a row needs at most one per column. */
typedef char cellbuf[64];

static const char *fmt_cell(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *fmt_cell(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(cellbuf), fmt, ap);
	va_end(ap);
	return buf;
}

static const char *fmt_ms(char *buf, double ms)
{
	return ms < 0 ? "-" : fmt_cell(buf, "%.3f", ms);
}

static const char *fmt_pct(char *buf, double fraction)
{
	return fmt_cell(buf, "%.1f%%", 100.0 * fraction);
}

static const char *fmt_us(char *buf, double us)
{
	return us < 0 ? "-" : fmt_cell(buf, "%.1f", us);
}

static void heading(FILE *out, enum sp_format fmt, const char *prefix,
		    const struct sp_case_result *c, const char *tail)
{
	char bs[32];

	sp_case_bs_text(c->bs, bs, sizeof(bs));
	fprintf(out, "%s%s %s bs=%s iodepth=%d numjobs=%d%s\n%s",
		fmt == SP_FMT_MD ? prefix : "", c->topology, c->rw, bs,
		c->iodepth, c->numjobs, tail, fmt == SP_FMT_MD ? "\n" : "");
}

/* Key columns lead every CSV row so rows of many cases stay apart. */
static void key_cols(struct sp_table *t)
{
	sp_table_col(t, "topology");
	sp_table_col(t, "rw");
	sp_table_col(t, ">bs");
	sp_table_col(t, ">iodepth");
	sp_table_col(t, ">numjobs");
}

static size_t key_cells(const struct sp_case_result *c, const char **cells,
			cellbuf *b)
{
	cells[0] = c->topology;
	cells[1] = c->rw;
	cells[2] = fmt_cell(b[0], "%llu", (unsigned long long)c->bs);
	cells[3] = fmt_cell(b[1], "%d", c->iodepth);
	cells[4] = fmt_cell(b[2], "%d", c->numjobs);
	return 5;
}

static void path_cols(struct sp_table *t, int with_key)
{
	size_t i;
	static const char *const right[N_SEED_COLS] = {
		">reads", ">rmerg", ">secR", ">tRed",
		">wrts", ">wmerg", ">secW", ">tWrit",
	};

	if (with_key) {
		key_cols(t);
		sp_table_col(t, "selector");
	}
	sp_table_col(t, "dev");
	for (i = 0; i < N_SEED_COLS; i++)
		sp_table_col(t, right[i]);
	sp_table_col(t, ">share");
	sp_table_col(t, ">svc_ms");
	sp_table_col(t, ">rsvc_ms");
	sp_table_col(t, ">wsvc_ms");
	sp_table_col(t, "slow");
	if (with_key == 2) {	/* CSV of cases that recorded their machine */
		sp_table_col(t, ">scale");
		sp_table_col(t, ">cpu_util");
		sp_table_col(t, "mode");
		sp_table_col(t, "hst");
		sp_table_col(t, ">calib_resid");
		sp_table_col(t, ">share_se");
		sp_table_col(t, "lab_shaped");
	}
}

static size_t env_cells(const struct sp_case_result *c, size_t p,
			const char **cells, cellbuf *b, size_t k)
{
	const struct sp_case_env *e = &c->env;
	double se[SP_CASE_MAX_PATHS] = { 0 };
	static char why[SP_TABLE_MAX_COLS][160];
	int is_map = p >= c->n_paths;

	sp_case_share_se(c, se);
	cells[k] = fmt_cell(b[k], "%llu", (unsigned long long)e->scale);
	k++;
	cells[k] = e->cpu_util < 0 ? "" : fmt_cell(b[k], "%.3f", e->cpu_util);
	k++;
	cells[k++] = e->mode;
	cells[k++] = e->hst;
	cells[k] = is_map || !e->has_resid[p] ? "" :
		   fmt_cell(b[k], "%.4f", e->resid[p]);
	k++;
	cells[k] = is_map ? "" : fmt_cell(b[k], "%.4f", se[p]);
	k++;
	sp_case_env_flagged(e, c->n_paths, why[k], sizeof(why[k]));
	cells[k] = why[k];
	return k + 1;
}

static int path_rows(struct sp_table *t, const struct sp_case_result *c,
		     int with_key)
{
	/* the map's service times come last; its share is not shown */
	struct sp_path_summary sum[SP_CASE_MAX_PATHS + 1];
	const char *cells[SP_TABLE_MAX_COLS];
	cellbuf b[SP_TABLE_MAX_COLS];
	size_t p, i, k;
	int ret;

	ret = sp_diskstats_summarise(c->path, c->n_paths, sum);
	if (!ret && c->has_map)
		ret = sp_diskstats_summarise(&c->map, 1, &sum[c->n_paths]);
	if (ret)
		return ret;
	for (p = 0; p <= c->n_paths && !ret; p++) {
		const struct sp_diskstat *d = p < c->n_paths ? &c->path[p] : &c->map;
		int is_map = p == c->n_paths;

		if (is_map && !c->has_map)
			break;
		k = with_key ? key_cells(c, cells, b) : 0;
		if (with_key)
			cells[k++] = c->selector;
		cells[k++] = d->name;
		for (i = 0; i < N_SEED_COLS; i++, k++)
			cells[k] = fmt_cell(b[k], "%llu",
					    (unsigned long long)d->v[seed_cols[i]]);
		/* CSV (with_key) wants a number a spreadsheet can sum */
		cells[k] = is_map ? "-" : with_key ?
			   fmt_cell(b[k], "%.4f", sum[p].share_ios) :
			   fmt_pct(b[k], sum[p].share_ios);
		k++;
		cells[k] = fmt_ms(b[k], sum[p].svc_ms);
		k++;
		cells[k] = fmt_ms(b[k], sum[p].rsvc_ms);
		k++;
		cells[k] = fmt_ms(b[k], sum[p].wsvc_ms);
		k++;
		cells[k++] = is_map ? "map" : c->slow[p] ? "yes" : "";
		if (with_key == 2)
			k = env_cells(c, p, cells, b, k);
		ret = sp_table_row(t, cells);
	}
	return ret;
}

static void fio_lines(FILE *out, enum sp_format fmt,
		      const struct sp_case_result *c)
{
	static const char *const dname[SP_FIO_NDIR] = { "read", "write" };
	const char *bullet = fmt == SP_FMT_MD ? "- " : "";
	int d;

	for (d = 0; d < SP_FIO_NDIR; d++) {
		const struct sp_fio_dir *x = &c->fio.dir[d];

		if (!x->ios)
			continue;
		fprintf(out, "%sfio %s: %.0f IOPS, %.1f MiB/s, %llu I/Os in %llu ms, "
			"clat mean %.1f us, p50 %.1f, p99 %.1f, p99.9 %.1f us%s\n",
			bullet, dname[d], x->iops, x->bw_kib / 1024.0,
			(unsigned long long)x->ios,
			(unsigned long long)x->runtime_ms, x->clat_mean_us,
			x->clat_p50_us, x->clat_p99_us, x->clat_p999_us,
			c->fio_pct == SP_FIO_PCT_EXACT ? "" :
			" (percentiles: worst of the jobs)");
	}
	if (c->fio.error)
		fprintf(out, "%sfio reported error %d\n", bullet, c->fio.error);
}

/* Under what the case ran, and the flag that keeps a saturated or
 * miscalibrated case from reading as a finding. */
static void env_lines(FILE *out, enum sp_format fmt,
		      const struct sp_case_result *c)
{
	const struct sp_case_env *e = &c->env;
	const char *bullet = fmt == SP_FMT_MD ? "- " : "";
	char why[256], machine[512];
	size_t p;
	int any = 0;

	if (!e->recorded)
		return;
	sp_case_env_machine(e, machine, sizeof(machine));
	fprintf(out, "%sran under: scale k=%llu, CPU ", bullet,
		(unsigned long long)e->scale);
	if (e->cpu_util < 0)
		fprintf(out, "not sampled");
	else
		fprintf(out, "%.0f%% busy", 100 * e->cpu_util);
	fprintf(out, ", %s, HST %s, kernel %s", machine,
		e->hst[0] ? e->hst : "?", e->kernel[0] ? e->kernel : "?");
	if (e->warmup_s)
		fprintf(out, ", warm-up %u s", e->warmup_s);
	fprintf(out, "; shares' standard error up to %.2f pp (%s)\n",
		100 * sp_case_share_se(c, NULL),
		e->se_batches ? "batch means" : "binomial");
	for (p = 0; p < c->n_paths; p++) {
		if (!e->has_resid[p])
			continue;
		fprintf(out, "%s%s%s %+.1f%%", any ? "," : bullet,
			any ? "" : "calibration residuals (p50 / target - 1):",
			c->path[p].name, 100 * e->resid[p]);
		any = 1;
	}
	if (any)
		fputc('\n', out);
	if (sp_case_env_flagged(e, c->n_paths, why, sizeof(why)))
		fprintf(out, "%s%s: %s (not a finding)\n", bullet,
			fmt == SP_FMT_MD ? "**lab-shaped**" : "LAB-SHAPED", why);
}

int sp_render_case(FILE *out, enum sp_format fmt,
		   const struct sp_case_result *c)
{
	struct sp_table t;
	char tail[96];
	int ret, key;

	if (fmt == SP_FMT_JSON) {
		json_object *o = sp_case_json_object(c);

		fprintf(out, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
		json_object_put(o);
		return ferror(out) ? -EIO : 0;
	}
	sp_table_init(&t);
	key = fmt != SP_FMT_CSV ? 0 : c->env.recorded ? 2 : 1;
	path_cols(&t, key);
	ret = path_rows(&t, c, key);
	if (!ret && fmt != SP_FMT_CSV) {
		/* NVMe's round-robin is not dm's: an iopolicy says so */
		snprintf(tail, sizeof(tail), " selector=%s%s", c->selector,
			 !strcmp(c->family, "nvme") ? " (nvme iopolicy)" : "");
		heading(out, fmt, "### ", c, tail);
	}
	if (!ret)
		ret = sp_table_emit(&t, fmt, out);
	if (!ret && fmt != SP_FMT_CSV) {
		if (fmt == SP_FMT_MD)
			fputc('\n', out);
		fio_lines(out, fmt, c);
		ret = sp_render_store_lat(out, fmt, c);
		env_lines(out, fmt, c);
	}
	sp_table_free(&t);
	return ret;
}

static const char *fmt_diff(char *buf, double a, double b, const char *unit)
{
	if (a < 0 || b < 0)
		return "-";
	/* no "-0.0pp" for a difference that rounds away */
	return fmt_cell(buf, "%+.1f%s", fabs(b - a) < 0.05 ? 0.0 : b - a, unit);
}

static const char *fmt_ratio(char *buf, double a, double b)
{
	return a > 0 && b >= 0 ? fmt_cell(buf, "x%.2f", b / a) : "-";
}

static int compare_tables(const struct sp_case_pair *p,
			  const struct sp_comparison *cmp,
			  struct sp_table *paths, struct sp_table *summary)
{
	const char *sa = sp_selector_short(p->a->selector);
	const char *sb = sp_selector_short(p->b->selector);
	char ha[3][48], hb[3][48];
	const char *cells[8];
	cellbuf b[8];
	size_t i;
	int ret = 0;

	snprintf(ha[0], sizeof(ha[0]), ">share %s", sa);
	snprintf(hb[0], sizeof(hb[0]), ">share %s", sb);
	snprintf(ha[1], sizeof(ha[1]), ">svc_ms %s", sa);
	snprintf(hb[1], sizeof(hb[1]), ">svc_ms %s", sb);
	sp_table_col(paths, "dev");
	sp_table_col(paths, "slow");
	sp_table_col(paths, ha[0]);
	sp_table_col(paths, hb[0]);
	sp_table_col(paths, ">diff");
	sp_table_col(paths, ha[1]);
	sp_table_col(paths, hb[1]);
	for (i = 0; i < cmp->n_paths && !ret; i++) {
		cells[0] = p->a->path[i].name;
		cells[1] = cmp->slow[i] ? "yes" : "";
		cells[2] = fmt_pct(b[2], cmp->share_a[i]);
		cells[3] = fmt_pct(b[3], cmp->share_b[i]);
		cells[4] = fmt_diff(b[4], 100 * cmp->share_a[i],
				    100 * cmp->share_b[i], "pp");
		cells[5] = fmt_ms(b[5], cmp->svc_ms_a[i]);
		cells[6] = fmt_ms(b[6], cmp->svc_ms_b[i]);
		ret = sp_table_row(paths, cells);
	}
	snprintf(ha[2], sizeof(ha[2]), ">%s", sa);
	snprintf(hb[2], sizeof(hb[2]), ">%s", sb);
	sp_table_col(summary, "metric");
	sp_table_col(summary, ha[2]);
	sp_table_col(summary, hb[2]);
	sp_table_col(summary, ">difference");
	{
		const struct { const char *name; double a, b; int pct; } m[] = {
			{ "slow paths' share", cmp->slow_share_a, cmp->slow_share_b, 1 },
			{ "IOPS", cmp->lat_a.iops, cmp->lat_b.iops, 0 },
			{ "mean clat us", cmp->lat_a.mean_us, cmp->lat_b.mean_us, 0 },
			{ "p99 clat us", cmp->lat_a.p99_us, cmp->lat_b.p99_us, 0 },
		};

		for (i = 0; i < sizeof(m) / sizeof(m[0]) && !ret; i++) {
			cells[0] = m[i].name;
			if (m[i].pct) {
				cells[1] = fmt_pct(b[1], m[i].a);
				cells[2] = fmt_pct(b[2], m[i].b);
				cells[3] = fmt_diff(b[3], 100 * m[i].a, 100 * m[i].b, "pp");
			} else {
				cells[1] = fmt_us(b[1], m[i].a);
				cells[2] = fmt_us(b[2], m[i].b);
				cells[3] = fmt_ratio(b[3], m[i].a, m[i].b);
			}
			ret = sp_table_row(summary, cells);
		}
		if (!ret) {
			cells[0] = "share distance (TV)";
			cells[1] = "";
			cells[2] = "";
			cells[3] = fmt_cell(b[3], "%.3f", cmp->tv);
			ret = sp_table_row(summary, cells);
		}
	}
	return ret;
}

static json_object *compare_json(const struct sp_case_pair *p,
				 const struct sp_comparison *cmp)
{
	json_object *o = json_object_new_object(), *paths = json_object_new_array();
	size_t i;

	json_object_object_add(o, "topology", json_object_new_string(p->a->topology));
	json_object_object_add(o, "rw", json_object_new_string(p->a->rw));
	json_object_object_add(o, "bs", json_object_new_int64((int64_t)p->a->bs));
	json_object_object_add(o, "iodepth", json_object_new_int(p->a->iodepth));
	json_object_object_add(o, "numjobs", json_object_new_int(p->a->numjobs));
	json_object_object_add(o, "a", json_object_new_string(p->a->selector));
	json_object_object_add(o, "b", json_object_new_string(p->b->selector));
	for (i = 0; i < cmp->n_paths; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "name", json_object_new_string(p->a->path[i].name));
		json_object_object_add(x, "slow", json_object_new_boolean(cmp->slow[i]));
		json_object_object_add(x, "share_a", json_object_new_double(cmp->share_a[i]));
		json_object_object_add(x, "share_b", json_object_new_double(cmp->share_b[i]));
		json_object_object_add(x, "svc_ms_a", json_object_new_double(cmp->svc_ms_a[i]));
		json_object_object_add(x, "svc_ms_b", json_object_new_double(cmp->svc_ms_b[i]));
		json_object_array_add(paths, x);
	}
	json_object_object_add(o, "paths", paths);
	json_object_object_add(o, "slow_share_a", json_object_new_double(cmp->slow_share_a));
	json_object_object_add(o, "slow_share_b", json_object_new_double(cmp->slow_share_b));
	json_object_object_add(o, "share_distance", json_object_new_double(cmp->tv));
	json_object_object_add(o, "iops_a", json_object_new_double(cmp->lat_a.iops));
	json_object_object_add(o, "iops_b", json_object_new_double(cmp->lat_b.iops));
	json_object_object_add(o, "clat_mean_us_a", json_object_new_double(cmp->lat_a.mean_us));
	json_object_object_add(o, "clat_mean_us_b", json_object_new_double(cmp->lat_b.mean_us));
	json_object_object_add(o, "clat_p99_us_a", json_object_new_double(cmp->lat_a.p99_us));
	json_object_object_add(o, "clat_p99_us_b", json_object_new_double(cmp->lat_b.p99_us));
	return o;
}

/* One CSV row per pair: the summary, flat, for spreadsheets. */
static void compare_csv_cols(struct sp_table *t)
{
	static const char *const cols[] = {
		"a", "b", ">slow_share_a", ">slow_share_b", ">share_distance",
		">iops_a", ">iops_b", ">clat_mean_us_a", ">clat_mean_us_b",
		">clat_p99_us_a", ">clat_p99_us_b",
	};
	size_t i;

	key_cols(t);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		sp_table_col(t, cols[i]);
}

static int compare_csv_row(struct sp_table *t, const struct sp_case_pair *p,
			   const struct sp_comparison *cmp)
{
	const char *cells[SP_TABLE_MAX_COLS];
	cellbuf b[SP_TABLE_MAX_COLS];
	size_t k = key_cells(p->a, cells, b);

	cells[k++] = p->a->selector;
	cells[k++] = p->b->selector;
	cells[k] = fmt_cell(b[k], "%.4f", cmp->slow_share_a); k++;
	cells[k] = fmt_cell(b[k], "%.4f", cmp->slow_share_b); k++;
	cells[k] = fmt_cell(b[k], "%.4f", cmp->tv); k++;
	cells[k] = fmt_cell(b[k], "%.1f", cmp->lat_a.iops); k++;
	cells[k] = fmt_cell(b[k], "%.1f", cmp->lat_b.iops); k++;
	cells[k] = fmt_us(b[k], cmp->lat_a.mean_us); k++;
	cells[k] = fmt_us(b[k], cmp->lat_b.mean_us); k++;
	cells[k] = fmt_us(b[k], cmp->lat_a.p99_us); k++;
	cells[k] = fmt_us(b[k], cmp->lat_b.p99_us); k++;
	return sp_table_row(t, cells);
}

int sp_render_compare(FILE *out, enum sp_format fmt,
		      const struct sp_case_pair *p)
{
	struct sp_comparison cmp;
	struct sp_table paths, summary;
	char tail[160];
	int ret = sp_compare(p, &cmp);

	if (ret)
		return ret;
	if (fmt == SP_FMT_JSON) {
		json_object *o = compare_json(p, &cmp);

		fprintf(out, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
		json_object_put(o);
		return ferror(out) ? -EIO : 0;
	}
	sp_table_init(&paths);
	sp_table_init(&summary);
	if (fmt == SP_FMT_CSV) {
		compare_csv_cols(&summary);
		ret = compare_csv_row(&summary, p, &cmp);
		if (!ret)
			ret = sp_table_emit(&summary, fmt, out);
		sp_table_free(&summary);
		return ret;
	}
	ret = compare_tables(p, &cmp, &paths, &summary);
	snprintf(tail, sizeof(tail), ": %s vs %s", p->a->selector, p->b->selector);
	if (!ret) {
		heading(out, fmt, "### ", p->a, tail);
		ret = sp_table_emit(&paths, fmt, out);
	}
	if (!ret) {
		fputc('\n', out);
		ret = sp_table_emit(&summary, fmt, out);
	}
	sp_table_free(&paths);
	sp_table_free(&summary);
	return ret;
}

static int report_json(FILE *out, const struct sp_case_result *cases,
		       size_t n, const struct sp_case_pair *pairs, size_t np)
{
	json_object *o = json_object_new_object();
	json_object *jc = json_object_new_array(), *jp = json_object_new_array();
	struct sp_comparison cmp;
	size_t i;
	int ret = 0;

	for (i = 0; i < n; i++)
		json_object_array_add(jc, sp_case_json_object(&cases[i]));
	for (i = 0; i < np && !ret; i++) {
		ret = sp_compare(&pairs[i], &cmp);
		if (!ret)
			json_object_array_add(jp, compare_json(&pairs[i], &cmp));
	}
	json_object_object_add(o, "cases", jc);
	json_object_object_add(o, "comparisons", jp);
	if (!ret)
		fprintf(out, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
	json_object_put(o);
	return ret ? ret : ferror(out) ? -EIO : 0;
}

/* CSV: every case's path rows in one table, a blank line, then one
 * summary row per comparison. */
static int report_csv(FILE *out, const struct sp_case_result *cases,
		      size_t n, const struct sp_case_pair *pairs, size_t np)
{
	struct sp_table t;
	struct sp_comparison cmp;
	size_t i;
	int ret = 0;

	int with = 1;

	for (i = 0; i < n; i++)
		if (cases[i].env.recorded)
			with = 2;
	sp_table_init(&t);
	path_cols(&t, with);
	for (i = 0; i < n && !ret; i++)
		ret = path_rows(&t, &cases[i], with);
	if (!ret)
		ret = sp_table_emit(&t, SP_FMT_CSV, out);
	sp_table_free(&t);
	if (ret || !np)
		return ret;
	fputc('\n', out);
	sp_table_init(&t);
	compare_csv_cols(&t);
	for (i = 0; i < np && !ret; i++) {
		ret = sp_compare(&pairs[i], &cmp);
		if (!ret)
			ret = compare_csv_row(&t, &pairs[i], &cmp);
	}
	if (!ret)
		ret = sp_table_emit(&t, SP_FMT_CSV, out);
	sp_table_free(&t);
	return ret;
}

int sp_render_report(FILE *out, enum sp_format fmt,
		     const struct sp_case_result *cases, size_t n,
		     const char *base, const char *other)
{
	struct sp_case_pair *pairs = calloc(n ? n : 1, sizeof(*pairs));
	const char *kernels[2];
	size_t i, np;
	int ret = 0;

	if (!pairs)
		return -ENOMEM;
	np = sp_pair_cases(cases, n, base, other, pairs);
	if (fmt == SP_FMT_JSON) {
		ret = report_json(out, cases, n, pairs, np);
	} else if (fmt == SP_FMT_CSV) {
		ret = report_csv(out, cases, n, pairs, np);
	} else {
		if (fmt == SP_FMT_MD)
			fprintf(out, "## Cases\n\n");
		for (i = 0; i < n && !ret; i++) {
			if (i)
				fputc('\n', out);
			ret = sp_render_case(out, fmt, &cases[i]);
		}
		if (!ret && np)
			fprintf(out, fmt == SP_FMT_MD ? "\n## %s vs %s\n\n" :
				"\n==== %s vs %s ====\n\n", base, other);
		for (i = 0; i < np && !ret; i++) {
			if (i)
				fputc('\n', out);
			ret = sp_render_compare(out, fmt, &pairs[i]);
		}
		/* nvme-tcp: NVMe's iopolicies beside dm's selectors */
		if (!ret && sp_case_families_mixed(cases, n)) {
			fprintf(out, fmt == SP_FMT_MD ? "\n## Both multipath "
				"families side by side\n\n" : "\n==== both "
				"multipath families side by side: native NVMe "
				"(nvme) and dm-multipath (dm) on the same paths; "
				"shares %% (* slow) ====\n\n");
			ret = sp_render_families(out, fmt, cases, n);
		}
		/* run --kernels: the same cases on each kernel */
		if (!ret && sp_case_kernels(cases, n, kernels, 2) > 1) {
			fprintf(out, fmt == SP_FMT_MD ? "\n## Kernels side by side\n\n"
				: "\n==== kernels side by side: each path's share "
				"(%%, * slow), the slow paths' share, IOPS ====\n\n");
			ret = sp_render_kernels(out, fmt, cases, n);
		}
	}
	free(pairs);
	return ret;
}
