/* How a probe result is shown: lines for people, JSON for scripts. Both
 * carry the same fields. */
#ifndef SP_PROBE_REPORT_H
#define SP_PROBE_REPORT_H

#include <stddef.h>

#include <json-c/json.h>

#include "harness/probe/probe.h"

/* Returns the length it needed, like snprintf. */
size_t probe_report_text(const struct probe_opts *o,
			 const struct probe_result *r, char *buf, size_t len);

/* A new object the caller puts; NULL on allocation failure. */
struct json_object *probe_report_json(const struct probe_opts *o,
				      const struct probe_result *r);

#endif
