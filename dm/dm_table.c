#include "dm/dm_table.h"

#include "common/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dev_t has 12 bits of major and 20 of minor */
#define DM_MAX_MAJOR 4095u
#define DM_MAX_MINOR 1048575u


void sp_dm_selector_init(struct sp_dm_selector *sel, enum sp_selector kind)
{
	sel->kind = kind;
	sel->hst_build = SP_HST_BUILD_STOCK;
	sel->base_weight = -1;
	sel->threshold_multiplier = -1;
}

void sp_dm_map_init(struct sp_dm_map *map, enum sp_selector kind)
{
	size_t i;

	memset(map, 0, sizeof(*map));
	sp_dm_selector_init(&map->sel, kind);
	for (i = 0; i < SP_DM_MAX_PATHS; i++)
		map->paths[i].relative_throughput = 1;
}

uint64_t sp_dm_ioa_mask(const struct sp_dm_map *map, size_t i)
{
	unsigned int ncpus = map->ncpus ? map->ncpus : (unsigned int)map->npaths;
	uint64_t mask = 0;
	unsigned int c;

	if (map->paths[i].cpumask)
		return map->paths[i].cpumask;
	for (c = 0; c < ncpus && c < 64; c++)
		if (map->npaths && c % map->npaths == i)
			mask |= UINT64_C(1) << c;
	return mask;
}

int sp_dm_cpulist_parse(const char *text, uint64_t *mask)
{
	const char *p = text;
	unsigned long a, b;
	char *end;

	*mask = 0;
	if (!text || !*text)
		return -EINVAL;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtoul(p, &end, 10);
		}
		if (a > b || b > 63)
			return -EINVAL;
		for (; a <= b; a++)
			*mask |= UINT64_C(1) << a;
		if (!*end)
			return 0;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
}

/* io-affinity maps each CPU to the first path that names it and refuses
 * a path that gets none (dm-ps-io-affinity.c: "No new/valid CPU mapping
 * found"); say so before the kernel does, naming the path. */
static int validate_ioa(const struct sp_dm_map *map, char *err, size_t errlen)
{
	uint64_t taken = 0, m, valid;
	size_t i;

	valid = map->ncpus && map->ncpus < 64 ?
		(UINT64_C(1) << map->ncpus) - 1 : UINT64_MAX;
	for (i = 0; i < map->npaths; i++) {
		m = sp_dm_ioa_mask(map, i);
		if (!(m & valid & ~taken))
			return sp_errf(err, errlen, -EINVAL,
				    "path %zu: io-affinity needs a CPU of its own "
				    "for every path, and %s (%zu paths, %u CPUs); "
				    "give the paths cpus= in the topology or boot "
				    "more CPUs", i + 1,
				    map->paths[i].cpumask ? "its cpus are all "
				    "taken or beyond the CPUs" : "none is left",
				    map->npaths, map->ncpus);
		taken |= m;
	}
	return 0;
}

/* Path i: a block device, its arguments the selector's, not the same
 * device as an earlier path. */
static int validate_path(const struct sp_dm_map *map,
			 const struct sp_selector_info *info, size_t i,
			 char *err, size_t errlen)
{
	const struct sp_dm_path *p = &map->paths[i];
	size_t j;

	if (p->major > DM_MAX_MAJOR || p->minor > DM_MAX_MINOR)
		return sp_errf(err, errlen, -EINVAL,
			    "path %zu: device %u:%u is not a valid "
			    "major:minor", i + 1, p->major, p->minor);
	if (p->major == 0)
		return sp_errf(err, errlen, -EINVAL,
			    "path %zu: device %u:%u has major 0 (no "
			    "block device)", i + 1, p->major, p->minor);
	if (info->path_args >= 2 &&
	    p->relative_throughput > SP_ST_MAX_RELATIVE_THROUGHPUT)
		return sp_errf(err, errlen, -EINVAL,
			    "path %zu: relative_throughput %u out of "
			    "range (0..%d)", i + 1,
			    p->relative_throughput,
			    SP_ST_MAX_RELATIVE_THROUGHPUT);
	if (info->path_args < 2 && p->relative_throughput != 1)
		return sp_errf(err, errlen, -EINVAL,
			    "path %zu: relative_throughput is a "
			    "service-time argument, not %s's", i + 1,
			    info->kernel_name);
	for (j = 0; j < i; j++) {
		if (map->paths[j].major == p->major &&
		    map->paths[j].minor == p->minor)
			return sp_errf(err, errlen, -EINVAL,
				    "paths %zu and %zu are the same "
				    "device %u:%u", j + 1, i + 1,
				    p->major, p->minor);
	}
	if (info->path_arg != SP_SEL_ARG_CPUMASK && p->cpumask)
		return sp_errf(err, errlen, -EINVAL,
			    "path %zu: cpus is an io-affinity argument, "
			    "not %s's", i + 1, info->kernel_name);
	return 0;
}

static int validate(const struct sp_dm_map *map, char *err, size_t errlen)
{
	const struct sp_dm_selector *sel = &map->sel;
	const struct sp_selector_info *info = sp_selector_info(sel->kind);
	size_t i;

	if (!info)
		return sp_errf(err, errlen, -EINVAL, "unknown path selector %d",
			    (int)sel->kind);
	if (!map->sectors)
		return sp_errf(err, errlen, -EINVAL, "map size is 0 sectors");
	if (map->npaths < 1 || map->npaths > SP_DM_MAX_PATHS)
		return sp_errf(err, errlen, -EINVAL,
			    "%zu paths: a map needs 1 to %d", map->npaths,
			    SP_DM_MAX_PATHS);
	if (!info->selector_args &&
	    (sel->base_weight >= 0 || sel->threshold_multiplier >= 0))
		return sp_errf(err, errlen, -EINVAL,
			    "base_weight and threshold_multiplier are "
			    "historical-service-time arguments, not %s's",
			    info->kernel_name);
	if (sel->base_weight >= SP_HST_FIXED_ONE)
		return sp_errf(err, errlen, -EINVAL,
			    "base_weight %" PRId64 " out of range: it is "
			    "10-bit fixed point, 0..1023 (972 = 0.95)",
			    sel->base_weight);
	if (sel->threshold_multiplier > (int64_t)UINT32_MAX)
		return sp_errf(err, errlen, -EINVAL,
			    "threshold_multiplier %" PRId64 " out of range "
			    "(0..%u)", sel->threshold_multiplier, UINT32_MAX);
	for (i = 0; i < map->npaths; i++) {
		int ret = validate_path(map, info, i, err, errlen);

		if (ret)
			return ret;
	}
	if (info->path_arg == SP_SEL_ARG_CPUMASK)
		return validate_ioa(map, err, errlen);
	return 0;
}

const char *sp_dm_selector_kernel_name(const struct sp_dm_selector *sel)
{
	if (sel->kind == SP_SEL_HST && sel->hst_build == SP_HST_BUILD_5_8)
		return SP_HST58_KERNEL_NAME;
	if (sel->kind == SP_SEL_HST && sel->hst_build == SP_HST_BUILD_PREBIO)
		return SP_HSTPB_KERNEL_NAME;
	return sp_selector_kernel_name(sel->kind);
}

const char *sp_dm_selector_module(const struct sp_dm_selector *sel)
{
	if (sel->kind == SP_SEL_HST && sel->hst_build == SP_HST_BUILD_5_8)
		return SP_HST58_MODULE;
	if (sel->kind == SP_SEL_HST && sel->hst_build == SP_HST_BUILD_PREBIO)
		return SP_HSTPB_MODULE;
	return sp_selector_module(sel->kind);
}

const char *sp_dm_queue_mode_name(enum sp_dm_queue_mode mode)
{
	return mode == SP_DM_QUEUE_BIO ? "bio" : "rq";
}

int sp_dm_queue_mode_parse(const char *text, enum sp_dm_queue_mode *mode)
{
	if (text && !strcmp(text, "bio"))
		*mode = SP_DM_QUEUE_BIO;
	else if (text && (!strcmp(text, "rq") || !strcmp(text, "mq")))
		*mode = SP_DM_QUEUE_RQ;
	else
		return -EINVAL;
	return 0;
}

/* "0", "1 queue_if_no_path", "2 queue_mode bio", "3 queue_if_no_path
 * queue_mode bio": the count is of words, as dm-mpath's parse_features
 * counts them. */
static void build_features(const struct sp_dm_map *map, struct sp_strbuf *o)
{
	int bio = map->queue_mode == SP_DM_QUEUE_BIO;

	sp_strbuf_printf(o, " %d%s%s", (map->queue_if_no_path ? 1 : 0) + 2 * bio,
			 map->queue_if_no_path ? " queue_if_no_path" : "",
			 bio ? " queue_mode bio" : "");
}

int sp_dm_table_build(const struct sp_dm_map *map, char *buf, size_t len,
		      char *err, size_t errlen)
{
	const struct sp_dm_selector *sel = &map->sel;
	const struct sp_selector_info *info;
	struct sp_strbuf o = SP_STRBUF(buf, len);
	size_t i;
	int ret;

	ret = validate(map, err, errlen);
	if (ret)
		return ret;
	info = sp_selector_info(sel->kind);
	if (!len)
		return sp_errf(err, errlen, -ENOSPC, "no room for the table");
	buf[0] = '\0';
	/* <start> <len> multipath <features> <hw handler> <#groups> <first> */
	sp_strbuf_printf(&o, "0 %" PRIu64 " multipath", map->sectors);
	build_features(map, &o);
	sp_strbuf_printf(&o, " 0 1 1 %s", sp_dm_selector_kernel_name(sel));
	if (sel->kind == SP_SEL_HST && sel->threshold_multiplier >= 0)
		sp_strbuf_printf(&o, " 2 %" PRId64 " %" PRId64,
		     sel->base_weight >= 0 ? sel->base_weight
					   : SP_HST_DEFAULT_BASE_WEIGHT,
		     sel->threshold_multiplier);
	else if (sel->kind == SP_SEL_HST && sel->base_weight >= 0)
		sp_strbuf_printf(&o, " 1 %" PRId64, sel->base_weight);
	else
		sp_strbuf_printf(&o, " 0");
	sp_strbuf_printf(&o, " %zu %u", map->npaths, info->path_args);
	/* repeat_count is always 1: request-based multipath ignores more */
	for (i = 0; i < map->npaths; i++) {
		if (info->path_arg == SP_SEL_ARG_CPUMASK) {
			/* cpumask_parse()'s format: hex, no 0x */
			sp_strbuf_printf(&o, " %u:%u %" PRIx64, map->paths[i].major,
					 map->paths[i].minor, sp_dm_ioa_mask(map, i));
			continue;
		}
		sp_strbuf_printf(&o, " %u:%u 1", map->paths[i].major, map->paths[i].minor);
		if (info->path_args >= 2)
			sp_strbuf_printf(&o, " %u", map->paths[i].relative_throughput);
	}
	if (o.overflow)
		return sp_errf(err, errlen, -ENOSPC,
			    "table for %zu paths does not fit in %zu bytes",
			    map->npaths, len);
	return 0;
}

/* ---- reverse direction ---- */

#define MAX_TOKENS (32 + SP_DM_MAX_PATHS * 4)

struct tokens {
	char *v[MAX_TOKENS];
	size_t n, pos;
	char *err;
	size_t errlen;
};

static int next_tok(struct tokens *t, const char *what, const char **out)
{
	if (t->pos >= t->n)
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "table ends where %s was expected", what);
	*out = t->v[t->pos++];
	return 0;
}

static int next_uint(struct tokens *t, const char *what, uint64_t max,
		     uint64_t *out)
{
	const char *tok = NULL;
	char *end;
	unsigned long long v;
	int ret = next_tok(t, what, &tok);

	if (ret)
		return ret;
	errno = 0;
	v = strtoull(tok, &end, 10);
	if (*tok < '0' || *tok > '9' || *end || errno || v > max)
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "'%s' is not a valid %s", tok, what);
	*out = v;
	return 0;
}

/* The kernel prints a mask as hex in 32-bit groups split by commas
 * ("%*pb"); slowpath's masks cover CPUs 0..63. */
static int parse_cpumask(struct tokens *t, struct sp_dm_path *p)
{
	const char *tok = NULL;
	char hex[32];
	size_t n = 0;
	char *end;
	int ret = next_tok(t, "a CPU mask", &tok);

	if (ret)
		return ret;
	for (; *tok && n + 1 < sizeof(hex); tok++)
		if (*tok != ',')
			hex[n++] = *tok;
	hex[n] = '\0';
	errno = 0;
	p->cpumask = strtoull(hex, &end, 16);
	if (!n || *tok || *end || errno || !isxdigit((unsigned char)hex[0]))
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "'%s' is not a valid CPU mask", hex);
	return 0;
}

static int parse_path(struct tokens *t, struct sp_dm_map *map, size_t i,
		      uint64_t nargs)
{
	struct sp_dm_path *p = &map->paths[i];
	const char *tok = NULL;
	uint64_t v;
	unsigned int maj, min;
	char extra;
	int ret = next_tok(t, "a path device", &tok);

	if (ret)
		return ret;
	if (sscanf(tok, "%u:%u%c", &maj, &min, &extra) != 2)
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "path device '%s' is not major:minor", tok);
	p->major = maj;
	p->minor = min;
	p->relative_throughput = 1;
	p->cpumask = 0;
	if (nargs >= 1 && map->sel.kind < sp_selector_count() &&
	    sp_selector_info(map->sel.kind)->path_arg == SP_SEL_ARG_CPUMASK)
		return parse_cpumask(t, p);
	if (nargs >= 1 && (ret = next_uint(t, "repeat_count", UINT32_MAX, &v)))
		return ret;
	if (nargs >= 2) {
		ret = next_uint(t, "relative_throughput", UINT32_MAX, &v);
		if (ret)
			return ret;
		p->relative_throughput = (unsigned int)v;
	}
	return 0;
}

/* "START LENGTH multipath FEATURES... HW_HANDLER..." */
static int parse_head(struct tokens *t, struct sp_dm_map *map)
{
	const char *name = NULL;
	uint64_t n, start;
	size_t i;
	int ret;

	if ((ret = next_uint(t, "start sector", UINT64_MAX, &start)) ||
	    (ret = next_uint(t, "length", UINT64_MAX, &map->sectors)) ||
	    (ret = next_tok(t, "the target type", &name)))
		return ret;
	if (strcmp(name, "multipath"))
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "target '%s' is not multipath", name);
	if ((ret = next_uint(t, "feature count", 64, &n)))
		return ret;
	for (i = 0; i < n; i++) {
		if ((ret = next_tok(t, "a feature", &name)))
			return ret;
		if (!strcmp(name, "queue_if_no_path"))
			map->queue_if_no_path = 1;
		/* its argument is one of the words the count covers */
		if (strcmp(name, "queue_mode"))
			continue;
		if (++i >= n)
			return sp_errf(t->err, t->errlen, -EINVAL,
				    "queue_mode without its mode");
		if ((ret = next_tok(t, "a queue mode", &name)))
			return ret;
		if (sp_dm_queue_mode_parse(name, &map->queue_mode))
			return sp_errf(t->err, t->errlen, -EINVAL,
				    "'%s' is not a queue mode (bio, rq, mq)", name);
	}
	if ((ret = next_uint(t, "hardware handler count", 64, &n)))
		return ret;
	for (i = 0; i < n; i++)
		if ((ret = next_tok(t, "a hardware handler word", &name)))
			return ret;
	return 0;
}

/* The one path group's header: its selector and the selector's
 * arguments. */
static int parse_group_selector(struct tokens *t, struct sp_dm_map *map)
{
	const char *name = NULL;
	uint64_t v, n;
	int ret;

	if ((ret = next_uint(t, "path group count", 1024, &n)))
		return ret;
	if (n != 1)
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "%" PRIu64 " path groups: slowpath reads maps "
			    "with exactly one", n);
	if ((ret = next_uint(t, "first path group", 1, &v)) ||
	    (ret = next_tok(t, "a path selector", &name)))
		return ret;
	/* the kernel's name only: a table never says "st" */
	map->sel.hst_build = SP_HST_BUILD_STOCK;
	if (!strcmp(name, SP_HST58_KERNEL_NAME)) {
		map->sel.kind = SP_SEL_HST;
		map->sel.hst_build = SP_HST_BUILD_5_8;
	} else if (!strcmp(name, SP_HSTPB_KERNEL_NAME)) {
		map->sel.kind = SP_SEL_HST;
		map->sel.hst_build = SP_HST_BUILD_PREBIO;
	} else if (sp_selector_by_kernel(name, &map->sel.kind))
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "unknown path selector '%s'", name);
	if ((ret = next_uint(t, "selector argument count", 2, &n)))
		return ret;
	if (n > sp_selector_info(map->sel.kind)->selector_args)
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "%s takes no selector arguments, got %" PRIu64,
			    name, n);
	if (n >= 1 && (ret = next_uint(t, "base_weight", 1023,
				       (uint64_t *)&map->sel.base_weight)))
		return ret;
	if (n >= 2 && (ret = next_uint(t, "threshold_multiplier", UINT32_MAX,
				       (uint64_t *)&map->sel.threshold_multiplier)))
		return ret;
	return 0;
}

/* The group's paths, and nothing after the last. */
static int parse_paths(struct tokens *t, struct sp_dm_map *map)
{
	uint64_t n, nargs;
	size_t i;
	int ret;

	if ((ret = next_uint(t, "path count", SP_DM_MAX_PATHS, &n)) ||
	    (ret = next_uint(t, "per-path argument count", 2, &nargs)))
		return ret;
	if (!n)
		return sp_errf(t->err, t->errlen, -EINVAL,
			       "path group has no paths");
	map->npaths = n;
	for (i = 0; i < n; i++)
		if ((ret = parse_path(t, map, i, nargs)))
			return ret;
	if (sp_selector_info(map->sel.kind)->path_args < 2)
		for (i = 0; i < n; i++)
			map->paths[i].relative_throughput = 1;
	if (t->pos != t->n)
		return sp_errf(t->err, t->errlen, -EINVAL,
			    "unexpected '%s' after the last path", t->v[t->pos]);
	return 0;
}

int sp_dm_table_parse(const char *line, struct sp_dm_map *map, char *err,
		      size_t errlen)
{
	struct tokens t = { .err = err, .errlen = errlen };
	char copy[4096], *save = NULL, *tok;
	int ret;

	if (strlen(line) >= sizeof(copy))
		return sp_errf(err, errlen, -EINVAL, "table line too long");
	strcpy(copy, line);
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (t.n == MAX_TOKENS)
			return sp_errf(err, errlen, -EINVAL,
				    "table has too many words");
		t.v[t.n++] = tok;
	}
	sp_dm_map_init(map, SP_SEL_ST);
	ret = parse_head(&t, map);
	if (!ret)
		ret = parse_group_selector(&t, map);
	return ret ? ret : parse_paths(&t, map);
}
