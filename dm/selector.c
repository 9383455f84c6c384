/* The selector table (see selector.h) and its lookups. */
#include "dm/selector.h"

#include "common/name.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* One row per selector: enum, short name, kernel name, kernel module,
 * per-path arguments, selector arguments, what a per-path argument is,
 * whether it keeps a history of the paths, its family (dm or nvme).
 * Both exported arrays below are generated from these rows so they
 * cannot disagree. */
#define SELECTOR_ROWS(ROW)						\
	ROW(SP_SEL_ST, "st", "service-time", "dm_service_time", 2, 0,	\
	    SP_SEL_ARG_REPEAT, 0, DM)					\
	ROW(SP_SEL_HST, "hst", "historical-service-time",		\
	    "dm_historical_service_time", 1, 2, SP_SEL_ARG_REPEAT, 1, DM) \
	ROW(SP_SEL_QL, "ql", "queue-length", "dm_queue_length", 1, 0,	\
	    SP_SEL_ARG_REPEAT, 0, DM)					\
	ROW(SP_SEL_RR, "rr", "round-robin", "dm_round_robin", 1, 0,	\
	    SP_SEL_ARG_REPEAT, 0, DM)					\
	ROW(SP_SEL_IOA, "ioa", "io-affinity", "dm_io_affinity", 1, 0,	\
	    SP_SEL_ARG_CPUMASK, 0, DM)					\
	ROW(SP_SEL_NUMA, "numa", "numa", "nvme_core", 0, 0,		\
	    SP_SEL_ARG_REPEAT, 0, NVME)					\
	ROW(SP_SEL_NRR, "nvme-rr", "round-robin", "nvme_core", 0, 0,	\
	    SP_SEL_ARG_REPEAT, 0, NVME)					\
	ROW(SP_SEL_QD, "qd", "queue-depth", "nvme_core", 0, 0,		\
	    SP_SEL_ARG_REPEAT, 0, NVME)

#define INFO_ROW(kind, sname, kname, mod, pargs, sargs, parg, hist, fam) \
	[kind] = { .short_name = sname, .kernel_name = kname,		\
		   .module = mod, .path_args = pargs,			\
		   .selector_args = sargs, .path_arg = parg,		\
		   .keeps_history = hist, .family = SP_SEL_FAMILY_##fam },
#define SHORT_ROW(kind, sname, kname, mod, pargs, sargs, parg, hist, fam) \
	[kind] = sp_selectors[kind].short_name,

const struct sp_selector_info sp_selectors[SP_SEL_COUNT] = {
	SELECTOR_ROWS(INFO_ROW)
};

const char *sp_selector_short_names[SP_SEL_TABLE_MAX + 1] = {
	SELECTOR_ROWS(SHORT_ROW)
	[SP_SEL_COUNT] = NULL,
};

static struct sp_selector_info registered[SP_SEL_MAX_REGISTERED];
static unsigned int n_registered;

unsigned int sp_selector_count(void)
{
	return SP_SEL_COUNT + n_registered;
}

const struct sp_selector_info *sp_selector_info(enum sp_selector kind)
{
	unsigned int k = (unsigned int)kind;

	if (k < SP_SEL_COUNT)
		return &sp_selectors[k];
	if (k < sp_selector_count())
		return &registered[k - SP_SEL_COUNT];
	return NULL;
}

enum { BY_SHORT = 1, BY_KERNEL = 2 };

static int lookup(const char *name, int by, enum sp_selector *out)
{
	const struct sp_selector_info *s;
	unsigned int k;

	for (k = 0; name && k < sp_selector_count(); k++) {
		s = sp_selector_info((enum sp_selector)k);
		if (((by & BY_SHORT) && !strcmp(name, s->short_name)) ||
		    ((by & BY_KERNEL) && !strcmp(name, s->kernel_name))) {
			/* k indexes the table, which is in enum order */
			*out = (enum sp_selector)k;
			return 0;
		}
	}
	return -EINVAL;
}

static int module_taken(const char *module)
{
	unsigned int k;

	for (k = 0; k < sp_selector_count(); k++)
		if (!strcmp(sp_selector_info((enum sp_selector)k)->module, module))
			return 1;
	return 0;
}

int sp_selector_register(const char *kernel_name, const char *module,
			 const char *ko_path, enum sp_selector *out)
{
	struct sp_selector_info *s;
	enum sp_selector k;

	if (!kernel_name || !module || !ko_path || !sp_name_ok(kernel_name) ||
	    !sp_name_ok(module) || strlen(kernel_name) >= SP_SEL_NAME_MAX ||
	    strlen(module) >= SP_SEL_NAME_MAX || !*ko_path ||
	    strlen(ko_path) >= SP_SEL_PATH_MAX)
		return -EINVAL;
	if (!lookup(kernel_name, BY_SHORT | BY_KERNEL, &k)) {
		s = (struct sp_selector_info *)sp_selector_info(k);
		if (k >= SP_SEL_COUNT && !strcmp(s->kernel_name, kernel_name) &&
		    !strcmp(s->module, module) && !strcmp(s->ko_path, ko_path)) {
			*out = k;
			return 0;
		}
		return -EINVAL;
	}
	if (module_taken(module))
		return -EINVAL;
	if (n_registered >= SP_SEL_MAX_REGISTERED)
		return -ENOSPC;
	s = &registered[n_registered];
	memset(s, 0, sizeof(*s));
	/* both checked to fit above */
	memcpy(s->short_name, kernel_name, strlen(kernel_name) + 1);
	memcpy(s->kernel_name, kernel_name, strlen(kernel_name) + 1);
	memcpy(s->module, module, strlen(module) + 1);
	memcpy(s->ko_path, ko_path, strlen(ko_path) + 1);
	s->path_args = 1;
	s->selector_args = 0;
	s->path_arg = SP_SEL_ARG_REPEAT;
	s->keeps_history = 1;	/* unknown: warming it costs only time */
	sp_selector_short_names[SP_SEL_COUNT + n_registered] = s->short_name;
	*out = (enum sp_selector)(SP_SEL_COUNT + n_registered);
	n_registered++;
	sp_selector_short_names[SP_SEL_COUNT + n_registered] = NULL;
	return 0;
}

int sp_selector_set_srcversion(enum sp_selector kind, const char *srcversion)
{
	unsigned int k = (unsigned int)kind;
	size_t i, n = srcversion ? strlen(srcversion) : 0;

	if (k < SP_SEL_COUNT || k >= sp_selector_count() || !n ||
	    n >= SP_SEL_SRCVERSION_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)srcversion[i]))
			return -EINVAL;
	memcpy(registered[k - SP_SEL_COUNT].srcversion, srcversion, n + 1);
	return 0;
}

void sp_selector_unregister_all(void)
{
	n_registered = 0;
	sp_selector_short_names[SP_SEL_COUNT] = NULL;
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

enum sp_sel_family sp_selector_family(enum sp_selector kind)
{
	const struct sp_selector_info *s = sp_selector_info(kind);

	return s ? s->family : SP_SEL_FAMILY_DM;
}

int sp_selector_for_family(enum sp_selector kind, enum sp_sel_family family,
			   enum sp_selector *out)
{
	const struct sp_selector_info *s = sp_selector_info(kind), *o;
	unsigned int k;

	if (!s)
		return -EINVAL;
	if (s->family == family) {
		*out = kind;
		return 0;
	}
	for (k = 0; k < sp_selector_count(); k++) {
		o = sp_selector_info((enum sp_selector)k);
		if (o->family == family &&
		    !strcmp(o->kernel_name, s->kernel_name)) {
			*out = (enum sp_selector)k;
			return 0;
		}
	}
	return -EINVAL;
}

const char *sp_selector_list(void)
{
	static char buf[SP_SEL_TABLE_MAX * (SP_SEL_SHORT_MAX + 2)];
	size_t n = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < sp_selector_count(); k++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      k ? ", " : "",
				      sp_selector_short_name((enum sp_selector)k));
	return buf;
}
