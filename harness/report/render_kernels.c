/* Kernels side by side (render_kernels.h). */
#include "harness/report/render_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CELL SP_RENDER_CELL

size_t sp_case_kernels(const struct sp_case_result *cases, size_t n,
		       const char **kernels, size_t max)
{
	size_t i, k, nk = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nk; k++)
			if (!strcmp(kernels[k], cases[i].env.kernel))
				break;
		if (k == nk && nk < max)
			kernels[nk++] = cases[i].env.kernel;
	}
	return nk;
}

/* Same point and selector, whatever the kernel. */
static int same_row(const struct sp_case_result *a,
		    const struct sp_case_result *b)
{
	return !strcmp(a->topology, b->topology) && !strcmp(a->rw, b->rw) &&
	       a->bs == b->bs && a->iodepth == b->iodepth &&
	       a->numjobs == b->numjobs && !strcmp(a->selector, b->selector);
}

void sp_render_share_cells(const struct sp_case_result *c, char *shares,
			   char *slow, char *iops)
{
	uint64_t io[SP_CASE_MAX_PATHS], total, slow_io = 0;
	size_t p, o = 0;

	total = sp_case_path_ios(c, io);
	for (p = 0; p < c->n_paths; p++)
		if (c->slow[p])
			slow_io += io[p];
	shares[0] = '\0';
	for (p = 0; p < c->n_paths && o + 8 < CELL; p++)
		o += (size_t)snprintf(shares + o, CELL - o, "%s%.0f%s",
				      p ? "/" : "",
				      total ? 100.0 * (double)io[p] / (double)total : 0.0,
				      c->slow[p] ? "*" : "");
	snprintf(slow, CELL, "%.1f%%",
		 total ? 100.0 * (double)slow_io / (double)total : 0.0);
	snprintf(iops, CELL, "%.0f", c->fio.dir[SP_FIO_READ].iops + c->fio.dir[SP_FIO_WRITE].iops);
}

int sp_render_kernels(FILE *out, enum sp_format fmt,
		      const struct sp_case_result *cases, size_t n)
{
	const char *kernels[SP_RENDER_MAX_KERNELS];
	static char cellbuf[SP_TABLE_MAX_COLS][CELL];
	const char *cells[SP_TABLE_MAX_COLS];
	char head[160];
	size_t nk, i, j, k, col;
	struct sp_table t;
	int ret = 0;

	nk = sp_case_kernels(cases, n, kernels, SP_RENDER_MAX_KERNELS);
	if (fmt == SP_FMT_JSON || nk < 2 || 6 + 3 * nk > SP_TABLE_MAX_COLS)
		return -EINVAL;
	sp_table_init(&t);
	sp_table_col(&t, "topology");
	sp_table_col(&t, "rw");
	sp_table_col(&t, ">bs");
	sp_table_col(&t, ">iodepth");
	sp_table_col(&t, ">numjobs");
	sp_table_col(&t, "selector");
	for (k = 0; k < nk; k++) {
		snprintf(head, sizeof(head), ">%.*s shares %%",
			 (int)strcspn(kernels[k], "-"), kernels[k]);
		sp_table_col(&t, head);
		snprintf(head, sizeof(head), ">%.*s slow",
			 (int)strcspn(kernels[k], "-"), kernels[k]);
		sp_table_col(&t, head);
		snprintf(head, sizeof(head), ">%.*s IOPS",
			 (int)strcspn(kernels[k], "-"), kernels[k]);
		sp_table_col(&t, head);
	}
	for (i = 0; i < n && !ret; i++) {
		/* a row per point and selector, at its first case */
		for (j = 0; j < i; j++)
			if (same_row(&cases[j], &cases[i]))
				break;
		if (j < i)
			continue;
		cells[0] = cases[i].topology;
		cells[1] = cases[i].rw;
		sp_case_bs_text(cases[i].bs, cellbuf[2], CELL);
		cells[2] = cellbuf[2];
		snprintf(cellbuf[3], CELL, "%d", cases[i].iodepth);
		cells[3] = cellbuf[3];
		snprintf(cellbuf[4], CELL, "%d", cases[i].numjobs);
		cells[4] = cellbuf[4];
		cells[5] = sp_selector_short(cases[i].selector);
		for (k = 0; k < nk; k++) {
			col = 6 + 3 * k;
			cells[col] = cells[col + 1] = cells[col + 2] = "-";
			for (j = i; j < n; j++) {
				if (!same_row(&cases[j], &cases[i]) ||
				    strcmp(cases[j].env.kernel, kernels[k]))
					continue;
				sp_render_share_cells(&cases[j], cellbuf[col],
					    cellbuf[col + 1], cellbuf[col + 2]);
				cells[col] = cellbuf[col];
				cells[col + 1] = cellbuf[col + 1];
				cells[col + 2] = cellbuf[col + 2];
				break;
			}
		}
		ret = sp_table_row(&t, cells);
	}
	if (!ret)
		ret = sp_table_emit(&t, fmt, out);
	sp_table_free(&t);
	return ret;
}
