/* The selector table (see selector.h) and its lookups. */
#include "dm/selector.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* One row per selector: enum, short name, kernel name, kernel module,
 * per-path arguments, selector arguments. Both exported arrays below
 * are generated from these rows so they cannot disagree. */
#define SELECTOR_ROWS(ROW)						\
	ROW(SP_SEL_ST, "st", "service-time", "dm_service_time", 2, 0)	\
	ROW(SP_SEL_HST, "hst", "historical-service-time",		\
	    "dm_historical_service_time", 1, 2)				\
	ROW(SP_SEL_QL, "ql", "queue-length", "dm_queue_length", 1, 0)	\
	ROW(SP_SEL_RR, "rr", "round-robin", "dm_round_robin", 1, 0)

#define INFO_ROW(kind, sname, kname, mod, pargs, sargs)			\
	[kind] = { .short_name = sname, .kernel_name = kname,		\
		   .module = mod, .path_args = pargs,			\
		   .selector_args = sargs },
#define SHORT_ROW(kind, sname, kname, mod, pargs, sargs)		\
	[kind] = sp_selectors[kind].short_name,

const struct sp_selector_info sp_selectors[SP_SEL_COUNT] = {
	SELECTOR_ROWS(INFO_ROW)
};

const char *const sp_selector_short_names[SP_SEL_COUNT + 1] = {
	SELECTOR_ROWS(SHORT_ROW)
	[SP_SEL_COUNT] = NULL,
};

const struct sp_selector_info *sp_selector_info(enum sp_selector kind)
{
	return (unsigned int)kind < SP_SEL_COUNT ? &sp_selectors[kind] : NULL;
}

enum { BY_SHORT = 1, BY_KERNEL = 2 };

static int lookup(const char *name, int by, enum sp_selector *out)
{
	int k;

	for (k = 0; name && k < SP_SEL_COUNT; k++) {
		if (((by & BY_SHORT) &&
		     !strcmp(name, sp_selectors[k].short_name)) ||
		    ((by & BY_KERNEL) &&
		     !strcmp(name, sp_selectors[k].kernel_name))) {
			/* k indexes sp_selectors, which is in enum order */
			*out = (enum sp_selector)k;
			return 0;
		}
	}
	return -EINVAL;
}

int sp_selector_parse(const char *name, enum sp_selector *out)
{
	return lookup(name, BY_SHORT | BY_KERNEL, out);
}

int sp_selector_by_short(const char *short_name, enum sp_selector *out)
{
	return lookup(short_name, BY_SHORT, out);
}

int sp_selector_by_kernel(const char *kernel_name, enum sp_selector *out)
{
	return lookup(kernel_name, BY_KERNEL, out);
}

const char *sp_selector_kernel_name(enum sp_selector kind)
{
	const struct sp_selector_info *s = sp_selector_info(kind);

	return s ? s->kernel_name : "?";
}

const char *sp_selector_short_name(enum sp_selector kind)
{
	const struct sp_selector_info *s = sp_selector_info(kind);

	return s ? s->short_name : "?";
}

const char *sp_selector_module(enum sp_selector kind)
{
	const struct sp_selector_info *s = sp_selector_info(kind);

	return s ? s->module : "?";
}
