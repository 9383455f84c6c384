/* The /run/slowpath journal read back: each record kind parsed into
 * struct sp_state. See state.h; its lines are written by state_fmt.c,
 * its files are state_file.c's, lookups over it state_lookup.c's. */
#include "harness/bringup/state.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sp_step_names[] = {
	"backing", "iscsid", "netns", "veth", "tgtd", "target", "netem",
	"discovery", "login", "map", "loop", "nvmet", "port", "connect",
	NULL,
};

#define MAX_TOKS 24

void sp_state_init(struct sp_state *st)
{
	memset(st, 0, sizeof(*st));
	st->version = SP_STATE_VERSION;
	st->scale = 1;
	sp_dm_selector_init(&st->sel, SP_SEL_ST);
	sp_initiator_init(&st->init);
}

/* One journal line: its fields and where an error about it goes. */
struct rec {
	char **t;
	int n, line;
	char *err;
	size_t errlen;
};

static int rec_bad(const struct rec *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rec_bad(const struct rec *r, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (r->err && r->errlen) {
		n = snprintf(r->err, r->errlen, "line %d: ", r->line);
		if (n < 0 || (size_t)n >= r->errlen)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int copy(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -1;
	strcpy(dst, src);
	return 0;
}

static int to_uint(const char *s, unsigned long long max,
		   unsigned long long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return (*end || errno || *out > max) ? -1 : 0;
}

static int to_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

static int enum_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* The fields of a path line, by how their value is read. */
#define PATH_FIELD(f) offsetof(struct sp_state_path, f)
#define PATH_STR(k, f) { k, PATH_FIELD(f), \
	sizeof(((struct sp_state_path *)0)->f) }

static const struct { const char *key; size_t off, len; } path_strs[] = {
	PATH_STR("label", label), PATH_STR("netns", netns),
	PATH_STR("hif", host_if), PATH_STR("tif", target_if),
	PATH_STR("target", target_ip),
};

static const struct {
	const char *key;
	unsigned long long max;
	size_t off;
} path_uints[] = {
	{ "servers", 64, PATH_FIELD(servers) },
	{ "port", 65535, PATH_FIELD(portal_port) },
	{ "ctl", 65535, PATH_FIELD(ctl_port) },
	{ "rt", 65535, PATH_FIELD(relative_throughput) },
};

static const struct { const char *key; size_t off; } path_i64s[] = {
	{ "read", PATH_FIELD(read_ns) }, { "write", PATH_FIELD(write_ns) },
	{ "jitter", PATH_FIELD(jitter_ns) }, { "netem", PATH_FIELD(netem_ns) },
	{ "netem_jitter", PATH_FIELD(netem_jitter_ns) },
	{ "service", PATH_FIELD(service_ns) },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* "init=IP/PREFIX" */
static int path_initiator(struct sp_state_path *p, char *v)
{
	char *slash = strchr(v, '/');
	unsigned long long u;

	if (!slash || to_uint(slash + 1, 32, &u))
		return -1;
	*slash = '\0';
	p->prefix_len = (int)u;
	return copy(p->initiator_ip, sizeof(p->initiator_ip), v);
}

static int path_mech_or_dist(struct sp_state_path *p, const char *kv,
			     const char *v)
{
	int e = enum_index(kv[0] == 'm' ? sp_mech_names : sp_dist_names, v);

	if (e < 0)
		return -1;
	if (kv[0] == 'm')
		p->mech = (enum sp_mech)e;
	else
		p->dist = (enum sp_dist)e;
	return 0;
}

static int path_cpumask(struct sp_state_path *p, const char *v)
{
	char *end;

	errno = 0;
	p->cpumask = strtoull(v, &end, 16);
	return !*v || *end || errno ? -1 : 0;
}

/* The keys of the tables above: 1 when kv is one of them (its result
 * in *ret), 0 when not. */
static int path_table_kv(struct sp_state_path *p, const char *kv,
			 const char *v, int *ret)
{
	char *base = (char *)p;
	unsigned long long u;
	int64_t i;
	size_t k;

	for (k = 0; k < COUNT(path_strs); k++)
		if (!strcmp(kv, path_strs[k].key)) {
			*ret = copy(base + path_strs[k].off, path_strs[k].len,
				    v);
			return 1;
		}
	for (k = 0; k < COUNT(path_uints); k++)
		if (!strcmp(kv, path_uints[k].key)) {
			*ret = to_uint(v, path_uints[k].max, &u);
			if (!*ret)
				*(unsigned int *)(base + path_uints[k].off) =
					(unsigned int)u;
			return 1;
		}
	for (k = 0; k < COUNT(path_i64s); k++)
		if (!strcmp(kv, path_i64s[k].key)) {
			*ret = to_i64(v, &i) || i < 0 ? -1 : 0;
			if (!*ret)
				*(int64_t *)(base + path_i64s[k].off) = i;
			return 1;
		}
	return 0;
}

/* "k=v" of a path line into p. */
static int path_kv(struct sp_state_path *p, char *kv)
{
	char *v = strchr(kv, '=');
	int ret;

	if (!v)
		return -1;
	*v++ = '\0';
	if (path_table_kv(p, kv, v, &ret))
		return ret;
	if (!strcmp(kv, "init"))
		return path_initiator(p, v);
	if (!strcmp(kv, "mech") || !strcmp(kv, "dist"))
		return path_mech_or_dist(p, kv, v);
	if (!strcmp(kv, "cpus"))
		return path_cpumask(p, v);
	return -1;
}

static int rec_need(const struct rec *r, int fields)
{
	if (r->n < fields)
		return rec_bad(r, "'%s' needs %d fields", r->t[0], fields - 1);
	return 0;
}

static int rec_version(struct sp_state *st, const struct rec *r)
{
	unsigned long long u;

	(void)st;
	if (to_uint(r->t[1], 1000, &u) || u != SP_STATE_VERSION)
		return rec_bad(r, "version '%s' is not %d", r->t[1],
			       SP_STATE_VERSION);
	return 0;
}

/* The records that name things, copied as they are. */
static int rec_names(struct sp_state *st, const struct rec *r)
{
	const char *kind = r->t[0], *v = r->t[1];

	if (!strcmp(kind, "topology"))
		return copy(st->topology, sizeof(st->topology), v) ||
		       copy(st->topo_file, sizeof(st->topo_file), r->t[2]) ?
		       rec_bad(r, "topology too long") : 0;
	if (!strcmp(kind, "map"))
		return copy(st->map_name, sizeof(st->map_name), v) ||
		       copy(st->map_uuid, sizeof(st->map_uuid), r->t[2]) ?
		       rec_bad(r, "map name too long") : 0;
	if (!strcmp(kind, "tag"))
		return copy(st->tag, sizeof(st->tag), v) ?
		       rec_bad(r, "tag '%s' too long", v) : 0;
	if (!strcmp(kind, "iqn"))
		return copy(st->iqn, sizeof(st->iqn), v) ?
		       rec_bad(r, "iqn too long") : 0;
	if (!strcmp(kind, "store"))
		return copy(st->bstype, sizeof(st->bstype), v) ?
		       rec_bad(r, "bad store '%s'", v) : 0;
	return copy(st->chap_user, sizeof(st->chap_user), v) ?
	       rec_bad(r, "chap user too long") : 0;
}

static int rec_backing(struct sp_state *st, const struct rec *r)
{
	unsigned long long u;

	if (copy(st->backing, sizeof(st->backing), r->t[1]) ||
	    to_uint(r->t[3], UINT64_MAX, &u))
		return rec_bad(r, "bad backing '%s %s'", r->t[1], r->t[3]);
	st->backing_created = !strcmp(r->t[2], "created");
	st->size_bytes = u;
	return 0;
}

static int rec_selector(struct sp_state *st, const struct rec *r)
{
	enum sp_selector k;
	int64_t bw, tm;

	if (sp_selector_parse(r->t[1], &k) || to_i64(r->t[2], &bw) ||
	    to_i64(r->t[3], &tm))
		return rec_bad(r, "bad selector '%s %s %s'", r->t[1], r->t[2],
			       r->t[3]);
	sp_dm_selector_init(&st->sel, k);
	st->sel.base_weight = bw;
	st->sel.threshold_multiplier = tm;
	if (r->n > 4) {
		int b = strncmp(r->t[4], "hst=", 4) ? -EINVAL
			: sp_hst_build_by_name(r->t[4] + 4);

		if (r->n > 5 || b <= SP_HST_BUILD_STOCK)
			return rec_bad(r, "bad selector build '%s'", r->t[4]);
		st->sel.hst_build = (enum sp_hst_build)b;
	}
	return 0;
}

static int rec_path(struct sp_state *st, const struct rec *r)
{
	unsigned long long u;
	struct sp_state_path *p;
	int i;

	if (to_uint(r->t[1], SP_TOPO_MAX_PATHS, &u) || !u)
		return rec_bad(r, "path number '%s'", r->t[1]);
	if (sp_state_path_by_number(st, r->t[1]))
		return rec_bad(r, "path %s twice", r->t[1]);
	if (st->npaths >= SP_TOPO_MAX_PATHS)
		return rec_bad(r, "too many paths");
	p = &st->paths[st->npaths];
	memset(p, 0, sizeof(*p));
	p->index = (unsigned int)u;
	for (i = 2; i < r->n; i++)
		if (path_kv(p, r->t[i]))
			return rec_bad(r, "bad path field '%s'", r->t[i]);
	st->npaths++;
	return 0;
}

static int rec_begin(struct sp_state *st, const struct rec *r)
{
	struct sp_state_path *p;
	int s = enum_index(sp_step_names, r->t[1]);
	int ret;

	if (s < 0)
		return rec_bad(r, "unknown step '%s'", r->t[1]);
	if (s == SP_STEP_BACKING || s == SP_STEP_ISCSID || s == SP_STEP_MAP ||
	    s == SP_STEP_LOOP || s == SP_STEP_NVMET) {
		st->steps |= 1u << s;
		return 0;
	}
	ret = rec_need(r, 3);
	if (ret)
		return ret;
	p = sp_state_path_by_number(st, r->t[2]);
	if (!p)
		return rec_bad(r, "no path '%s'", r->t[2]);
	p->steps |= 1u << s;
	return 0;
}

static int rec_pid(struct sp_state *st, const struct rec *r)
{
	unsigned long long u, start = 0;
	struct sp_state_path *p;

	if (to_uint(r->t[3], 1u << 30, &u) || !u ||
	    (r->n > 4 && to_uint(r->t[4], UINT64_MAX, &start)))
		return rec_bad(r, "bad pid '%s'", r->t[3]);
	if (!strcmp(r->t[1], "iscsid")) {
		st->iscsid_pid = (pid_t)u;
		st->iscsid_start = start;
		return 0;
	}
	p = sp_state_path_by_number(st, r->t[2]);
	if (!p || strcmp(r->t[1], "tgtd"))
		return rec_bad(r, "bad pid line");
	p->tgtd_pid = (pid_t)u;
	p->tgtd_start = start;
	return 0;
}

static int rec_run(struct sp_state *st, const struct rec *r)
{
	unsigned long long u, start;
	int ret;

	if (!strcmp(r->t[1], "idle")) {
		st->fio_pid = 0;
		st->fio_start = 0;
		return 0;
	}
	ret = rec_need(r, 4);
	if (ret)
		return ret;
	if (strcmp(r->t[1], "fio") || to_uint(r->t[2], 1u << 30, &u) || !u ||
	    to_uint(r->t[3], UINT64_MAX, &start))
		return rec_bad(r, "bad run line");
	st->fio_pid = (pid_t)u;
	st->fio_start = start;
	return 0;
}

static int rec_disk(struct sp_state *st, const struct rec *r)
{
	struct sp_state_path *p = sp_state_path_by_number(st, r->t[1]);

	if (!p || copy(p->disk, sizeof(p->disk), r->t[2]) ||
	    sscanf(r->t[3], "%u:%u", &p->major, &p->minor) != 2)
		return rec_bad(r, "bad disk line");
	p->has_disk = 1;
	return 0;
}

static int rec_delay(struct sp_state *st, const struct rec *r)
{
	struct sp_state_path *p = sp_state_path_by_number(st, r->t[1]);
	int64_t v[5];
	int i;

	for (i = 0; i < 5; i++)
		if (to_i64(r->t[2 + i], &v[i]) || v[i] < 0)
			p = NULL;
	if (!p)
		return rec_bad(r, "bad delay line");
	p->read_ns = v[0];
	p->write_ns = v[1];
	p->jitter_ns = v[2];
	p->netem_ns = v[3];
	p->netem_jitter_ns = v[4];
	return 0;
}

static int rec_sectors(struct sp_state *st, const struct rec *r)
{
	unsigned long long u;

	if (to_uint(r->t[1], UINT64_MAX, &u))
		return rec_bad(r, "bad sectors '%s'", r->t[1]);
	st->sectors = u;
	return 0;
}

static int rec_complete(struct sp_state *st, const struct rec *r)
{
	(void)r;
	st->complete = 1;
	return 0;
}

static int rec_scale(struct sp_state *st, const struct rec *r)
{
	unsigned long long u;

	if (to_uint(r->t[1], UINT64_MAX, &u) || !u || (u & (u - 1)))
		return rec_bad(r, "bad scale '%s'", r->t[1]);
	st->scale = u;
	return 0;
}

static int rec_hst(struct sp_state *st, const struct rec *r)
{
	unsigned long long u;

	if (to_uint(r->t[1], 63, &u))
		return rec_bad(r, "bad hst shift '%s'", r->t[1]);
	st->has_hst = 1;
	st->hst_shift = (unsigned int)u;
	return 0;
}

static int rec_calib(struct sp_state *st, const struct rec *r)
{
	struct sp_state_path *p = sp_state_path_by_number(st, r->t[1]);
	int64_t tg, ms;

	if (!p || to_i64(r->t[2], &tg) || to_i64(r->t[3], &ms) || tg <= 0 ||
	    ms < 0)
		return rec_bad(r, "bad calib line");
	p->has_calib = 1;
	p->calib_target_ns = tg;
	p->calib_measured_ns = ms;
	return 0;
}

static int rec_failover(struct sp_state *st, const struct rec *r)
{
	char why[128];

	if (sp_state_parse_failover(st, r->t, r->n, why, sizeof(why)))
		return rec_bad(r, "%s", why);
	return 0;
}

static int rec_nvme(struct sp_state *st, const struct rec *r)
{
	char why[128];

	if (sp_state_parse_nvme(st, r->t, r->n, why, sizeof(why)))
		return rec_bad(r, "%s", why);
	return 0;
}

/* Each record kind, the fields it needs (its name counted) and who
 * reads it. */
static const struct {
	const char *name;
	int fields;
	int (*read)(struct sp_state *st, const struct rec *r);
} records[] = {
	{ "slowpath-state", 2, rec_version },
	{ "topology", 3, rec_names },
	{ "tag", 2, rec_names },
	{ "iqn", 2, rec_names },
	{ "map", 3, rec_names },
	{ "backing", 4, rec_backing },
	{ "selector", 4, rec_selector },
	{ "path", 2, rec_path },
	{ "begin", 2, rec_begin },
	{ "pid", 4, rec_pid },
	{ "run", 2, rec_run },
	{ "disk", 4, rec_disk },
	{ "delay", 7, rec_delay },
	{ "store", 2, rec_names },
	{ "sectors", 2, rec_sectors },
	{ "complete", 1, rec_complete },
	{ "chap", 2, rec_names },
	{ "scale", 2, rec_scale },
	{ "hst", 2, rec_hst },
	{ "calib", 4, rec_calib },
	{ "initiator", 1, rec_failover },
	{ "qtimeout", 1, rec_failover },
	{ "fault", 1, rec_failover },
	{ "transport", 1, rec_nvme },
	{ "loop", 1, rec_nvme },
	{ "head", 1, rec_nvme },
	{ "solo", 1, rec_nvme },
};

static int parse_line(struct sp_state *st, const struct rec *r)
{
	size_t k;
	int ret;

	for (k = 0; k < COUNT(records); k++) {
		if (strcmp(r->t[0], records[k].name))
			continue;
		ret = rec_need(r, records[k].fields);
		return ret ? ret : records[k].read(st, r);
	}
	return rec_bad(r, "unknown record '%s'", r->t[0]);
}

int sp_state_parse(const char *text, struct sp_state *st, char *err,
		   size_t errlen)
{
	char buf[1024];
	char *toks[MAX_TOKS], *save, *tok;
	struct rec r = { toks, 0, 0, err, errlen };
	const char *nl;
	int ret;

	sp_state_init(st);
	while (*text) {
		size_t len;

		nl = strchr(text, '\n');
		if (!nl)
			break;	/* torn last write */
		r.line++;
		len = (size_t)(nl - text);
		if (len >= sizeof(buf))
			return rec_bad(&r, "line too long");
		memcpy(buf, text, len);
		buf[len] = '\0';
		text = nl + 1;
		r.n = 0;
		for (tok = strtok_r(buf, " \t", &save); tok && r.n < MAX_TOKS;
		     tok = strtok_r(NULL, " \t", &save))
			toks[r.n++] = tok;
		if (!r.n || toks[0][0] == '#')
			continue;
		if (r.line == 1 && strcmp(toks[0], "slowpath-state"))
			return rec_bad(&r, "not a slowpath state file");
		ret = parse_line(st, &r);
		if (ret)
			return ret;
	}
	if (!r.line) {
		r.line = 1;
		return rec_bad(&r, "empty state file");
	}
	return 0;
}
