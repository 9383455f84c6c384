/* The order a report lists a folder's cases in: the order a run with
 * the default selectors measured them, so `slowpath report DIR` renders
 * the report.txt the run wrote, whatever order the folder's files are
 * read in (by name, qd32 sorts before qd8 and hst before st). */
#ifndef SP_RENDER_ORDER_H
#define SP_RENDER_ORDER_H

#include <stddef.h>

#include "harness/measure/case_result.h"

/* Sorts cases by topology, rw, bs, iodepth and numjobs (numbers as
 * numbers), then base's selector, other's, the rest by name; cases
 * equal in all of these keep their order. 0 or -ENOMEM. */
int sp_render_order_cases(struct sp_case_result *cases, size_t n,
			  const char *base, const char *other);

#endif
