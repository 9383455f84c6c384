/* A case's per-path latency distribution as its delay stores saw it
 * (sp_case_result.lat): a small table under fio's lines. */
#ifndef SP_RENDER_LAT_H
#define SP_RENDER_LAT_H

#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/report/render_table.h"

/* Nothing for a case with no path latency (an old case, netem-only
 * paths) or in CSV and JSON (the case JSON holds it). 0 or -errno. */
int sp_render_store_lat(FILE *out, enum sp_format fmt,
			const struct sp_case_result *c);

#endif
