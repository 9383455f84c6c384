/* Per-case tables in the seed's layout, ST-vs-HST comparisons, and a
 * whole saved run, in text, Markdown, CSV or JSON. Pure: they write
 * to the FILE * the CLI hands in; the numbers come from measure/. */
#ifndef SP_RENDER_H
#define SP_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/measure/compare.h"
#include "harness/report/render_table.h"

int sp_render_case(FILE *out, enum sp_format fmt,
		   const struct sp_case_result *c);
int sp_render_compare(FILE *out, enum sp_format fmt,
		      const struct sp_case_pair *p);
/* Every case, then every base/other comparison. */
int sp_render_report(FILE *out, enum sp_format fmt,
		     const struct sp_case_result *cases, size_t n,
		     const char *base, const char *other);

#endif
