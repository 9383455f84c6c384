/* Both multipath families side by side (render_families.h). */
#include "harness/report/render_families.h"

#include "harness/report/render_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CELL SP_RENDER_CELL
#define NCOLS 12

/* a point with a case of the other family than c's */
static int point_mixed(const struct sp_case_result *cases, size_t n,
		       const struct sp_case_result *c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sp_case_same_point(&cases[i], c) &&
		    strcmp(cases[i].family, c->family))
			return 1;
	return 0;
}

int sp_case_families_mixed(const struct sp_case_result *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (point_mixed(cases, n, &cases[i]))
			return 1;
	return 0;
}

static void family_cols(struct sp_table *t)
{
	static const char *const names[NCOLS] = {
		"topology", "rw", ">bs", ">iodepth", "selector", "family",
		"disk", ">shares %", ">slow", ">IOPS", ">mean ms", ">p99 ms",
	};
	size_t i;

	for (i = 0; i < NCOLS; i++)
		sp_table_col(t, names[i]);
}

/* fio's mean and p99 completion latency over both directions, ms */
static void lat_cells(const struct sp_case_result *c, char *mean, char *p99)
{
	const struct sp_fio_dir *r = &c->fio.dir[SP_FIO_READ];
	const struct sp_fio_dir *w = &c->fio.dir[SP_FIO_WRITE];
	double ios = (double)(r->ios + w->ios);
	double p = r->clat_p99_us > w->clat_p99_us ? r->clat_p99_us
						    : w->clat_p99_us;

	snprintf(mean, CELL, "%.3f", ios > 0 ? (r->clat_mean_us * (double)r->ios +
		 w->clat_mean_us * (double)w->ios) / ios / 1000.0 : 0.0);
	snprintf(p99, CELL, "%.3f", p / 1000.0);
}

static int family_row(struct sp_table *t, const struct sp_case_result *c)
{
	static char buf[NCOLS][CELL];
	const char *cells[NCOLS];

	cells[0] = c->topology;
	cells[1] = c->rw;
	sp_case_bs_text(c->bs, buf[2], CELL);
	cells[2] = buf[2];
	snprintf(buf[3], CELL, "%d", c->iodepth);
	cells[3] = buf[3];
	cells[4] = sp_selector_short(c->selector);
	cells[5] = c->family;
	cells[6] = c->has_map ? c->map.name : "-";
	sp_render_share_cells(c, buf[7], buf[8], buf[9]);
	lat_cells(c, buf[10], buf[11]);
	cells[7] = buf[7];
	cells[8] = buf[8];
	cells[9] = buf[9];
	cells[10] = buf[10];
	cells[11] = buf[11];
	return sp_table_row(t, cells);
}

int sp_render_families(FILE *out, enum sp_format fmt,
		       const struct sp_case_result *cases, size_t n)
{
	struct sp_table t;
	size_t i, j;
	int ret = 0;

	if (fmt == SP_FMT_JSON)
		return -EINVAL;
	sp_table_init(&t);
	family_cols(&t);
	/* each mixed point at its first case, its cases in the run's order */
	for (i = 0; i < n && !ret; i++) {
		for (j = 0; j < i; j++)
			if (sp_case_same_point(&cases[j], &cases[i]))
				break;
		if (j < i || !point_mixed(cases, n, &cases[i]))
			continue;
		for (j = i; j < n && !ret; j++)
			if (sp_case_same_point(&cases[j], &cases[i]))
				ret = family_row(&t, &cases[j]);
	}
	if (!ret)
		ret = sp_table_emit(&t, fmt, out);
	sp_table_free(&t);
	return ret;
}
