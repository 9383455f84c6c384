/* The same cases on several kernels side by side (slowpath run
 * --kernels): one row per point and selector, each kernel's path shares,
 * slow paths' share and IOPS in columns of its own. Pure. */
#ifndef SP_RENDER_KERNELS_H
#define SP_RENDER_KERNELS_H

#include <stddef.h>
#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/report/render_table.h"

#define SP_RENDER_MAX_KERNELS 8
#define SP_RENDER_CELL 96	/* each buffer sp_render_share_cells fills */

/* "25/25/26/24*": each path's share of the I/Os in percent, in path
 * order, '*' after a slow one; the slow paths' share and the IOPS. */
void sp_render_share_cells(const struct sp_case_result *c, char *shares,
			   char *slow, char *iops);

/* The distinct env.kernel values of the cases in order of appearance
 * (pointers into cases), at most max. Their number. */
size_t sp_case_kernels(const struct sp_case_result *cases, size_t n,
		       const char **kernels, size_t max);

/* Text, Markdown or CSV; -EINVAL for JSON or fewer than two kernels. */
int sp_render_kernels(FILE *out, enum sp_format fmt,
		      const struct sp_case_result *cases, size_t n);

#endif
