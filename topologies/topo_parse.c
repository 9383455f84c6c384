/* The topology file grammar: [topology] once, then one [path] or
 * [path LABEL] section per path, "key = value" lines, '#' and ';'
 * comments. Values go through the option tables in common/opttab so
 * durations and sizes read as everywhere else in slowpath. */
#include "topologies/topo.h"

#include "topologies/topo_internal.h"
#include "common/name.h"
#include "common/opttab.h"
#include "common/units.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sp_mech_names[] = { "backend", "netem", "both", NULL };
const char *const sp_transport_names[] = { "iscsi", "nvme-tcp", NULL };

int sp_transport_parse(const char *text, enum sp_transport *t)
{
	int i;

	for (i = 0; sp_transport_names[i]; i++)
		if (!strcmp(text, sp_transport_names[i])) {
			*t = (enum sp_transport)i;
			return 0;
		}
	return -EINVAL;
}

#define MAX_LINE 1024

/* What the [topology] section's table writes; strings point into the
 * line being parsed and are copied out before the next one. */
struct global_raw {
	const char *description, *backing_file, *map_name, *addresses;
	const char *jitter, *no_path_retry;
	int queue_if_no_path;
	int64_t replacement_timeout, noop_out_interval, noop_out_timeout;
	int64_t unit_ns, lab_unit_ns, base_weight, threshold_multiplier;
	int64_t path_prefix, servers;
	uint64_t size_bytes, inline_data;
	int selector, mechanism, distribution, transport, queue_mode;
};

/* dm-multipath's queue_mode as a topology says it (dm_table.h) */
static const char *const queue_mode_names[] = { "rq", "bio", NULL };

#define G(f) offsetof(struct global_raw, f)
static const struct sp_opt global_opts[] = {
	{ .name = "description", .type = SP_OPT_STR, .offset = G(description) },
	{ .name = "unit", .type = SP_OPT_DELAY, .offset = G(unit_ns),
	  .help = "what multiplier 1 means" },
	{ .name = "lab_unit", .type = SP_OPT_DELAY,
	  .offset = G(lab_unit_ns), .help = "the unit inside the lab VM" },
	{ .name = "servers", .type = SP_OPT_INT, .min = 0, .max = 64,
	  .offset = G(servers),
	  .help = "0: a path's delay is pure latency; N: its service, N commands at a time" },
	{ .name = "size", .type = SP_OPT_SIZE, .offset = G(size_bytes) },
	{ .name = "inline_data", .type = SP_OPT_SIZE, .offset = G(inline_data),
	  .help = "nvme-tcp: the most write data a command carries in its capsule (nvmet's param_inline_data_size; default nvmet-tcp's 16k); a bigger write waits a round trip for the target's R2T" },
	{ .name = "backing_file", .type = SP_OPT_STR, .offset = G(backing_file) },
	{ .name = "selector", .type = SP_OPT_ENUM, .choices = sp_selector_short_names,
	  .offset = G(selector) },
	{ .name = "base_weight", .type = SP_OPT_INT, .min = 0, .max = 1023,
	  .offset = G(base_weight) },
	{ .name = "threshold_multiplier", .type = SP_OPT_INT, .min = 0,
	  .max = 4294967295.0, .offset = G(threshold_multiplier) },
	{ .name = "map_name", .type = SP_OPT_STR, .offset = G(map_name) },
	{ .name = "addresses", .type = SP_OPT_STR, .offset = G(addresses) },
	{ .name = "path_prefix", .type = SP_OPT_INT, .min = 24, .max = 30,
	  .offset = G(path_prefix) },
	{ .name = "mechanism", .type = SP_OPT_ENUM, .choices = sp_mech_names,
	  .offset = G(mechanism) },
	{ .name = "jitter", .type = SP_OPT_STR, .offset = G(jitter) },
	{ .name = "distribution", .type = SP_OPT_ENUM, .choices = sp_dist_names,
	  .offset = G(distribution) },
	{ .name = "queue_if_no_path", .type = SP_OPT_BOOL,
	  .offset = G(queue_if_no_path) },
	{ .name = "no_path_retry", .type = SP_OPT_STR,
	  .offset = G(no_path_retry) },
	{ .name = "replacement_timeout", .type = SP_OPT_INT, .min = 0,
	  .max = SP_ISCSI_TIMEOUT_MAX, .offset = G(replacement_timeout) },
	{ .name = "noop_out_interval", .type = SP_OPT_INT, .min = 0,
	  .max = SP_ISCSI_TIMEOUT_MAX, .offset = G(noop_out_interval) },
	{ .name = "noop_out_timeout", .type = SP_OPT_INT, .min = 0,
	  .max = SP_ISCSI_TIMEOUT_MAX, .offset = G(noop_out_timeout) },
	{ .name = "queue_mode", .type = SP_OPT_ENUM, .choices = queue_mode_names,
	  .offset = G(queue_mode),
	  .help = "rq (request-based, the default) or bio: dm-multipath's queue mode" },
	{ .name = "transport", .type = SP_OPT_ENUM,
	  .choices = sp_transport_names, .offset = G(transport),
	  .help = "iscsi (tgtd + dm-multipath) or nvme-tcp (nvmet + native multipath)" },
	SP_OPT_END,
};
#undef G

struct path_raw {
	double multiplier;
	int64_t delay_ns, read_delay_ns, write_delay_ns, relative_throughput;
	const char *jitter, *subnet, *cpus;
	int mechanism, distribution;
};

#define P(f) offsetof(struct path_raw, f)
static const struct sp_opt path_opts[] = {
	{ .name = "multiplier", .type = SP_OPT_DOUBLE, .min = 0, .max = 100000,
	  .offset = P(multiplier) },
	{ .name = "delay", .type = SP_OPT_DELAY, .offset = P(delay_ns) },
	{ .name = "read_delay", .type = SP_OPT_DELAY,
	  .offset = P(read_delay_ns) },
	{ .name = "write_delay", .type = SP_OPT_DELAY,
	  .offset = P(write_delay_ns) },
	{ .name = "jitter", .type = SP_OPT_STR, .offset = P(jitter) },
	{ .name = "distribution", .type = SP_OPT_ENUM, .choices = sp_dist_names,
	  .offset = P(distribution) },
	{ .name = "mechanism", .type = SP_OPT_ENUM, .choices = sp_mech_names,
	  .offset = P(mechanism) },
	{ .name = "relative_throughput", .type = SP_OPT_INT, .min = 0,
	  .max = SP_ST_MAX_RELATIVE_THROUGHPUT,
	  .offset = P(relative_throughput) },
	{ .name = "subnet", .type = SP_OPT_STR, .offset = P(subnet) },
	{ .name = "cpus", .type = SP_OPT_STR, .offset = P(cpus) },
	SP_OPT_END,
};
#undef P
/* bits of path_opts' entries in parser.seen */
#define DELAY_BIT (1u << 1)
#define READ_BIT (1u << 2)
#define WRITE_BIT (1u << 3)

int sp_topo_perr(struct sp_topo_parser *p, const char *fmt, ...)
{
	char msg[SP_TOPO_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->line)
		snprintf(p->err, p->errlen, "%s:%d: %s", p->file, p->line, msg);
	else
		snprintf(p->err, p->errlen, "%s: %s", p->file, msg);
	return -EINVAL;
}

/* "0", "150us" or "10%": a fixed spread or one relative to the delay. */
static int parse_jitter(struct sp_topo_parser *p, const char *text,
			struct sp_jitter *out)
{
	size_t n = strlen(text);
	double pct;
	char num[32];

	if (n && text[n - 1] == '%') {
		if (n - 1 >= sizeof(num))
			return sp_topo_perr(p, "bad jitter '%s'", text);
		memcpy(num, text, n - 1);
		num[n - 1] = '\0';
		if (sp_parse_double(num, &pct) || pct < 0 || pct > 100)
			return sp_topo_perr(p, "bad jitter '%s': a percentage must be "
				    "from 0%% to 100%%", text);
		out->kind = pct > 0 ? SP_JITTER_PCT : SP_JITTER_NONE;
		out->pct = pct;
		return 0;
	}
	if (sp_parse_duration_ns(text, &out->ns))
		return sp_topo_perr(p, "bad jitter '%s': want a time such as 100us or "
			    "a share of the delay such as 10%%", text);
	if (out->ns > SP_DELAY_MAX_NS)
		return sp_topo_perr(p, "jitter '%s' must be at most 60s, the most "
			    "one command may be held", text);
	out->kind = out->ns ? SP_JITTER_ABS : SP_JITTER_NONE;
	return 0;
}

/* backing_file reaches tgtadm's argv and the journal: the name rule's
 * characters and '/', nothing a tool could read as syntax or a blank. */
static int safe_path(const char *s)
{
	for (; *s; s++)
		if (*s != '/' && !((*s >= 'a' && *s <= 'z') ||
				   (*s >= 'A' && *s <= 'Z') ||
				   (*s >= '0' && *s <= '9') || strchr("._+-", *s)))
			return 0;
	return 1;
}

static int copy_str(struct sp_topo_parser *p, const char *key, const char *value,
		    char *dst, size_t len)
{
	if (strlen(value) >= len)
		return sp_topo_perr(p, "%s '%.40s...' is longer than %zu characters",
			    key, value, len - 1);
	strcpy(dst, value);
	return 0;
}

/* Applies one key to the current section through its option table and
 * rejects a key given twice. */
static int set_key(struct sp_topo_parser *p, const struct sp_opt *table, void *raw,
		   const char *key, const char *value)
{
	char msg[SP_OPT_ERRLEN];
	int idx, ret;

	for (idx = 0; table[idx].name; idx++)
		if (!strcmp(table[idx].name, key))
			break;
	if (!table[idx].name)
		return sp_topo_perr(p, "unknown key '%s' in [%s]", key,
			    p->sec == SEC_TOPOLOGY ? "topology" : "path");
	if (p->seen & (1u << idx))
		return sp_topo_perr(p, "duplicate key '%s'", key);
	p->seen |= 1u << idx;
	ret = sp_opt_set(table, raw, key, value, msg, sizeof(msg));
	if (ret)
		return sp_topo_perr(p, "%s", msg);
	return 0;
}

static int topology_key(struct sp_topo_parser *p, struct global_raw *g,
			const char *key, const char *value)
{
	struct sp_topo *t = p->topo;
	int ret = set_key(p, global_opts, g, key, value);

	if (ret)
		return ret;
	if (!strcmp(key, "description"))
		return copy_str(p, key, value, t->description,
				sizeof(t->description));
	if (!strcmp(key, "backing_file")) {
		if (value[0] != '/' || !safe_path(value))
			return sp_topo_perr(p, "backing_file '%s' must be an absolute "
				    "path of letters, digits and /._+-", value);
		return copy_str(p, key, value, t->backing_file,
				sizeof(t->backing_file));
	}
	if (!strcmp(key, "map_name"))
		return copy_str(p, key, value, t->map_name,
				sizeof(t->map_name));
	if (!strcmp(key, "addresses")) {
		p->addresses_line = p->line;
		return copy_str(p, key, value, p->addresses_buf,
				sizeof(p->addresses_buf));
	}
	if (!strcmp(key, "jitter"))
		return parse_jitter(p, value, &p->jitter);
	/* the option table took one of sp_selector_short_names */
	if (!strcmp(key, "selector") &&
	    sp_selector_by_short(sp_selector_short_names[g->selector],
				 &t->selector.kind))
		return sp_topo_perr(p, "unknown selector '%s'", value);
	if (!strcmp(key, "unit")) t->unit_ns = g->unit_ns;
	else if (!strcmp(key, "lab_unit")) t->lab_unit_ns = g->lab_unit_ns;
	else if (!strcmp(key, "size")) t->size_bytes = g->size_bytes;
	else if (!strcmp(key, "servers")) t->servers = (unsigned int)g->servers;
	else if (!strcmp(key, "inline_data")) {
		if (g->inline_data < 4096 || g->inline_data > SP_TOPO_INLINE_MAX)
			return sp_topo_perr(p, "inline_data '%s': want 4k to 1M "
					    "(leave the key out for nvmet-tcp's "
					    "own 16k)", value);
		t->inline_data_bytes = g->inline_data;
		t->inline_data_line = p->line;
	}
	else if (!strcmp(key, "transport")) {
		t->transport = (enum sp_transport)g->transport;
		t->transport_line = p->line;
	}
	else if (!strcmp(key, "base_weight"))
		t->selector.base_weight = g->base_weight;
	else if (!strcmp(key, "threshold_multiplier"))
		t->selector.threshold_multiplier = g->threshold_multiplier;
	else if (!strcmp(key, "path_prefix")) t->path_prefix = (int)g->path_prefix;
	else if (!strcmp(key, "mechanism")) p->mech = g->mechanism;
	else if (!strcmp(key, "distribution")) p->dist = g->distribution;
	else if (!strcmp(key, "queue_if_no_path")) {
		t->init.has_queue_if_no_path = 1;
		t->init.queue_if_no_path = g->queue_if_no_path;
	} else if (!strcmp(key, "no_path_retry") &&
		   sp_initiator_parse_npr(value, &t->init.no_path_retry))
		return sp_topo_perr(p, "bad no_path_retry '%s': want queue, "
			    "fail or a count of %d s checker intervals "
			    "(0..%d)", value, SP_NPR_INTERVAL_S, SP_NPR_MAX);
	else if (!strcmp(key, "replacement_timeout"))
		t->init.replacement_timeout = (int)g->replacement_timeout;
	else if (!strcmp(key, "noop_out_interval"))
		t->init.noop_out_interval = (int)g->noop_out_interval;
	else if (!strcmp(key, "noop_out_timeout"))
		t->init.noop_out_timeout = (int)g->noop_out_timeout;
	else if (!strcmp(key, "queue_mode"))
		t->init.queue_bio = g->queue_mode == 1;
	return 0;
}

static int path_key(struct sp_topo_parser *p, struct path_raw *r, const char *key,
		    const char *value)
{
	struct sp_topo_path *path = &p->topo->paths[p->topo->npaths - 1];
	int ret = set_key(p, path_opts, r, key, value);

	if (ret)
		return ret;
	if (!strcmp(key, "multiplier")) {
		if (path->has_delay)
			return sp_topo_perr(p, "multiplier %s given as well as an "
				    "absolute delay: use one or the other",
				    value);
		path->has_multiplier = 1;
		path->multiplier = r->multiplier;
	} else if (!strcmp(key, "delay") || !strcmp(key, "read_delay") ||
		   !strcmp(key, "write_delay")) {
		if (path->has_multiplier)
			return sp_topo_perr(p, "%s %s given as well as a multiplier: "
				    "use one or the other", key, value);
		if (!strcmp(key, "delay")
			    ? (p->seen & (READ_BIT | WRITE_BIT)) != 0
			    : (p->seen & DELAY_BIT) != 0)
			return sp_topo_perr(p, "%s %s: 'delay' sets both directions, "
				    "give it or read_delay/write_delay", key,
				    value);
		path->has_delay = 1;
		if (key[0] != 'w')
			path->read_delay_ns = key[0] == 'r' ? r->read_delay_ns
							    : r->delay_ns;
		if (key[0] != 'r')
			path->write_delay_ns = key[0] == 'w' ? r->write_delay_ns
							     : r->delay_ns;
	} else if (!strcmp(key, "jitter")) {
		p->path_set |= 1;
		return parse_jitter(p, value, &path->jitter);
	} else if (!strcmp(key, "distribution")) {
		p->path_set |= 2;
		path->dist = (enum sp_dist)r->distribution;
	} else if (!strcmp(key, "mechanism")) {
		p->path_set |= 4;
		path->mech = (enum sp_mech)r->mechanism;
	} else if (!strcmp(key, "relative_throughput")) {
		path->relative_throughput = (unsigned int)r->relative_throughput;
	} else if (!strcmp(key, "cpus")) {
		if (sp_dm_cpulist_parse(value, &path->cpumask))
			return sp_topo_perr(p, "bad cpus '%s': want CPU numbers "
				    "0..63 and ranges, e.g. 0 or 0-1,4", value);
	} else if (!strcmp(key, "subnet")) {
		if (sp_topo_parse_cidr(value, &path->subnet, &path->subnet_len))
			return sp_topo_perr(p, "bad subnet '%s': want a.b.c.d/len",
				    value);
		path->has_subnet = 1;
	}
	return 0;
}

static int valid_label(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= sizeof(((struct sp_topo_path *)0)->label))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return 0;
	return 1;
}

/* Closes the path section just read: checks its own consistency. */
static int end_path(struct sp_topo_parser *p)
{
	struct sp_topo_path *path;
	int line = p->line, ret = 0;

	if (p->sec != SEC_PATH)
		return 0;
	path = &p->topo->paths[p->topo->npaths - 1];
	p->line = path->line;
	if (!path->has_multiplier && !path->has_delay)
		ret = sp_topo_perr(p, "path %zu ('%s') has no delay: give multiplier "
			   "or delay/read_delay/write_delay",
			   p->topo->npaths, path->label);
	else if (path->has_delay && !(p->seen & DELAY_BIT) &&
		 (p->seen & (READ_BIT | WRITE_BIT)) != (READ_BIT | WRITE_BIT))
		ret = sp_topo_perr(p, "path %zu ('%s') sets only one of read_delay "
			   "and write_delay", p->topo->npaths, path->label);
	if (!(p->path_set & 1)) path->jitter = p->jitter;
	if (!(p->path_set & 2)) path->dist = (enum sp_dist)p->dist;
	if (!(p->path_set & 4)) path->mech = (enum sp_mech)p->mech;
	p->line = line;
	return ret;
}

static int section(struct sp_topo_parser *p, char *text)
{
	char *close = strchr(text, ']'), *name, *label;
	struct sp_topo *t = p->topo;
	struct sp_topo_path *path;
	int ret;

	if (!close || close[1])
		return sp_topo_perr(p, "bad section header '%s'", text);
	*close = '\0';
	name = text + 1;
	while (isspace((unsigned char)*name))
		name++;
	label = name + strcspn(name, " \t");
	if (*label)
		*label++ = '\0';
	while (isspace((unsigned char)*label))
		label++;
	for (close = label + strlen(label); close > label &&
	     isspace((unsigned char)close[-1]); close--)
		close[-1] = '\0';
	if ((ret = end_path(p)))
		return ret;
	p->seen = 0;
	p->path_set = 0;
	if (!strcmp(name, "topology")) {
		if (*label)
			return sp_topo_perr(p, "[topology] takes no label, got '%s'",
				    label);
		if (p->seen_topology)
			return sp_topo_perr(p, "second [topology] section");
		if (t->npaths)
			return sp_topo_perr(p, "[topology] must come before the first "
				    "[path]");
		p->seen_topology = 1;
		p->sec = SEC_TOPOLOGY;
		return 0;
	}
	if (strcmp(name, "path"))
		return sp_topo_perr(p, "unknown section [%s]: want [topology] or "
			    "[path]", name);
	if (!p->seen_topology)
		return sp_topo_perr(p, "[path] before [topology]: a file starts with "
			    "its [topology] section");
	if (t->npaths == SP_TOPO_MAX_PATHS)
		return sp_topo_perr(p, "too many paths: at most %d",
			    SP_TOPO_MAX_PATHS);
	path = &t->paths[t->npaths++];
	memset(path, 0, sizeof(*path));
	path->line = p->line;
	path->relative_throughput = 1;
	if (*label && !valid_label(label))
		return sp_topo_perr(p, "bad path label '%s': up to 31 letters, "
			    "digits, '-' or '_'", label);
	if (*label) {
		size_t i;

		for (i = 0; i + 1 < t->npaths; i++)
			if (!strcmp(t->paths[i].label, label))
				return sp_topo_perr(p, "duplicate path label '%s'",
					    label);
		strcpy(path->label, label);
	} else {
		snprintf(path->label, sizeof(path->label), "p%zu", t->npaths);
	}
	p->sec = SEC_PATH;
	return 0;
}

/* Drops a trailing comment that starts after whitespace, so values such
 * as descriptions may still hold '#' or ';' inside words. */
static void strip(char *s)
{
	char *c, *end;

	for (c = s; *c; c++) {
		if ((*c == '#' || *c == ';') &&
		    (c == s || isspace((unsigned char)c[-1]))) {
			*c = '\0';
			break;
		}
	}
	for (end = s + strlen(s); end > s && isspace((unsigned char)end[-1]);
	     end--)
		end[-1] = '\0';
}

static int line(struct sp_topo_parser *p, char *text, struct global_raw *g,
		struct path_raw *r)
{
	char *eq, *key, *value, *end;

	while (isspace((unsigned char)*text))
		text++;
	strip(text);
	if (!*text)
		return 0;
	if (*text == '[')
		return section(p, text);
	eq = strchr(text, '=');
	if (!eq)
		return sp_topo_perr(p, "garbage '%s': want 'key = value' or a "
			    "[section]", text);
	*eq = '\0';
	key = text;
	for (end = eq; end > key && isspace((unsigned char)end[-1]); end--)
		end[-1] = '\0';
	value = eq + 1;
	while (isspace((unsigned char)*value))
		value++;
	if (!*key)
		return sp_topo_perr(p, "'= %s' has no key", value);
	if (!*value)
		return sp_topo_perr(p, "key '%s' has no value", key);
	if (p->sec == SEC_NONE)
		return sp_topo_perr(p, "'%s' before any section header: start with "
			    "[topology]", key);
	if (p->sec == SEC_TOPOLOGY)
		return topology_key(p, g, key, value);
	return path_key(p, r, key, value);
}



static void defaults(struct sp_topo *t, const char *file, const char *name)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->file, sizeof(t->file), "%s", file);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->unit_ns = 500 * SP_NSEC_PER_USEC;
	t->lab_unit_ns = 5 * SP_NSEC_PER_MSEC;
	t->size_bytes = 2ULL << 30;
	sp_dm_selector_init(&t->selector, SP_SEL_ST);
	sp_initiator_init(&t->init);
	snprintf(t->map_name, sizeof(t->map_name), SP_TOPO_MAP_PREFIX "%s",
		 name);
	t->path_prefix = 30;
}

int sp_topo_parse(const char *text, const char *file, const char *name,
		  struct sp_topo *topo, char *err, size_t errlen)
{
	struct sp_topo_parser p = { .file = file, .err = err, .errlen = errlen,
			    .topo = topo, .dist = SP_DIST_UNIFORM };
	struct global_raw g;
	struct path_raw r;
	char buf[MAX_LINE + 2];
	const char *cur = text, *nl;
	size_t n;
	int ret;

	defaults(topo, file, name);
	/* The name reaches tgtadm --params, IQNs, the map's UUID and plot
	 * scripts: "a,readonly=1" would set a tgt parameter. */
	if (!sp_name_ok(name))
		return sp_topo_perr(&p, "topology name '%s' (from the file "
			    "name) is not %s", name, SP_NAME_RULE);
	snprintf(p.addresses_buf, sizeof(p.addresses_buf), "198.18.0.0/24");
	while (*cur) {
		p.line++;
		nl = strchr(cur, '\n');
		n = nl ? (size_t)(nl - cur) : strlen(cur);
		if (n > MAX_LINE)
			return sp_topo_perr(&p, "line longer than %d characters",
				    MAX_LINE);
		memcpy(buf, cur, n);
		buf[n] = '\0';
		buf[strcspn(buf, "\r")] = '\0';
		memset(&r, 0, sizeof(r));
		memset(&g, 0, sizeof(g));
		ret = line(&p, buf, &g, &r);
		if (ret)
			return ret;
		cur = nl ? nl + 1 : cur + n;
	}
	if ((ret = end_path(&p)))
		return ret;
	p.line = 0;
	if (!p.seen_topology)
		return sp_topo_perr(&p, "no [topology] section");
	if (!topo->npaths)
		return sp_topo_perr(&p, "no paths: add one [path] section per path");
	return sp_topo_check_whole(&p);
}
