/* The plan `slowpath up equal3` makes (tag 3fa2), for targets that
 * parse command output against a plan; built once per process. */
#ifndef SP_FUZZ_EQUAL3_PLAN_H
#define SP_FUZZ_EQUAL3_PLAN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/bringup/bringup.h"

static const char equal3[] =
	"[topology]\nunit = 500us\nsize = 2G\nselector = st\n"
	"map_name = slowpath-equal3\naddresses = 198.18.0.0/24\n"
	"mechanism = backend\n[path a]\nmultiplier = 1\n"
	"[path b]\nmultiplier = 1\n[path c]\nmultiplier = 2\n";

static struct sp_state *equal3_plan(void)
{
	static struct sp_state st;
	static struct sp_topo topo;
	static int done;
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN];

	if (done)
		return &st;
	memset(&o, 0, sizeof(o));
	snprintf(o.tag, sizeof(o.tag), "3fa2");
	if (sp_topo_parse(equal3, "equal3.ini", "equal3", &topo, err,
			  sizeof(err)) ||
	    sp_bringup_plan(&topo, &o, &st, err, sizeof(err)))
		abort();	/* the target itself is broken, not the library */
	done = 1;
	return &st;
}

#endif
