/* dm-multipath's selectors and native NVMe multipath's iopolicies side
 * by side (an nvme-tcp topology's run of both): one row per case at
 * each point both families ran, naming the family and the disk its
 * I/O went through. Pure. */
#ifndef SP_RENDER_FAMILIES_H
#define SP_RENDER_FAMILIES_H

#include <stddef.h>
#include <stdio.h>

#include "harness/measure/case_result.h"
#include "harness/report/render_table.h"

/* 1 when some point has cases of both families */
int sp_case_families_mixed(const struct sp_case_result *cases, size_t n);

/* Text, Markdown or CSV; -EINVAL for JSON. */
int sp_render_families(FILE *out, enum sp_format fmt,
		       const struct sp_case_result *cases, size_t n);

#endif
