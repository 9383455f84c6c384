/* From a parsed topology to numbers `up` can apply: delays in ns split
 * between the tgt delay store and netem, addresses; and where topology
 * files are found. */
#include "topologies/topo.h"

#include "common/file.h"
#include "common/units.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TOPO_FILE (64 * 1024)

static int64_t scaled(double multiplier, int64_t unit_ns)
{
	return (int64_t)llround(multiplier * (double)unit_ns);
}

/* Path i's read and write delays and its jitter in ns: a multiplier
 * of the unit or its own, each held to what one command may wait. */
static int resolve_delays(const struct sp_topo *topo, size_t i,
			  int64_t unit_ns, struct sp_topo_resolved_path *r,
			  char *err, size_t errlen)
{
	const struct sp_topo_path *p = &topo->paths[i];
	char ubuf[32];
	int64_t larger;

	if (p->has_multiplier) {
		/* each factor is bounded, their product is not */
		if (p->multiplier * (double)unit_ns > (double)SP_DELAY_MAX_NS) {
			snprintf(err, errlen, "%s:%d: path %zu: "
				 "multiplier %g times the unit %s is "
				 "over 60s, the most one command may "
				 "be held", topo->file, p->line, i + 1,
				 p->multiplier,
				 sp_format_duration(unit_ns, ubuf,
						    sizeof(ubuf)));
			return -ERANGE;
		}
		r->read_delay_ns = scaled(p->multiplier, unit_ns);
		r->write_delay_ns = r->read_delay_ns;
	} else {
		r->read_delay_ns = p->read_delay_ns;
		r->write_delay_ns = p->write_delay_ns;
	}
	larger = r->read_delay_ns > r->write_delay_ns ? r->read_delay_ns
						     : r->write_delay_ns;
	if (p->jitter.kind == SP_JITTER_ABS)
		r->jitter_ns = p->jitter.ns;
	else if (p->jitter.kind == SP_JITTER_PCT)
		r->jitter_ns = (int64_t)llround((double)larger *
						p->jitter.pct / 100.0);
	/* netem holds a packet up to delay + jitter; the store's
	 * sampler clamps on its own (tgt-backend/jitter.c) */
	if (larger + r->jitter_ns > SP_DELAY_MAX_NS &&
	    p->mech != SP_MECH_BACKEND) {
		snprintf(err, errlen, "%s:%d: path %zu: delay plus "
			 "jitter is over 60s, the most one command may "
			 "be held", topo->file, p->line, i + 1);
		return -ERANGE;
	}
	return 0;
}

/* The delays between the tgt delay store and netem, by mechanism. */
static void split_by_mechanism(const struct sp_topo *topo,
			       struct sp_topo_resolved_path *r)
{
	int64_t common, share;

	switch (r->mech) {
	case SP_MECH_BACKEND:
		r->backend_read_ns = r->read_delay_ns;
		r->backend_write_ns = r->write_delay_ns;
		r->backend_jitter_ns = r->jitter_ns;
		if (topo->servers) {
			/* equal, topo_check saw to it */
			r->backend_service_ns = r->read_delay_ns;
			r->backend_read_ns = r->backend_write_ns = 0;
			r->servers = topo->servers;
		}
		break;
	case SP_MECH_NETEM:
		r->netem_delay_ns = r->read_delay_ns;
		r->netem_jitter_ns = r->jitter_ns;
		break;
	case SP_MECH_BOTH:
		/* Half the part both directions share goes on the
		 * wire; the store adds the rest, so one I/O still
		 * waits the configured delay in total. */
		common = r->read_delay_ns < r->write_delay_ns
				 ? r->read_delay_ns : r->write_delay_ns;
		share = common / 2;
		r->netem_delay_ns = share;
		r->backend_read_ns = r->read_delay_ns - share;
		r->backend_write_ns = r->write_delay_ns - share;
		r->backend_jitter_ns = r->jitter_ns;
		break;
	}
}

static void resolve_addresses(const struct sp_topo_path *p,
			      struct sp_topo_resolved_path *r)
{
	r->subnet = p->subnet;
	r->prefix_len = p->subnet_len;
	/* the initiator keeps the first host address, tgtd the second */
	r->initiator_addr = p->subnet + 1;
	r->target_addr = p->subnet + 2;
	sp_topo_fmt_addr(r->initiator_addr, r->initiator_ip,
			 sizeof(r->initiator_ip));
	sp_topo_fmt_addr(r->target_addr, r->target_ip,
			 sizeof(r->target_ip));
}

int sp_topo_resolve(const struct sp_topo *topo, int64_t unit_ns,
		    struct sp_topo_resolved_path *out, char *err,
		    size_t errlen)
{
	size_t i;
	int ret;

	if (unit_ns <= 0)
		unit_ns = topo->unit_ns;
	for (i = 0; i < topo->npaths; i++) {
		const struct sp_topo_path *p = &topo->paths[i];
		struct sp_topo_resolved_path *r = &out[i];

		memset(r, 0, sizeof(*r));
		r->index = (unsigned int)i + 1;
		r->label = p->label;
		ret = resolve_delays(topo, i, unit_ns, r, err, errlen);
		if (ret)
			return ret;
		r->dist = p->dist;
		r->mech = p->mech;
		split_by_mechanism(topo, r);
		resolve_addresses(p, r);
		r->relative_throughput = p->relative_throughput;
		r->cpumask = p->cpumask;
	}
	return 0;
}

int sp_topo_dm_map(const struct sp_topo *topo, const unsigned int *majors,
		   const unsigned int *minors, struct sp_dm_map *map)
{
	size_t i;

	sp_dm_map_init(map, topo->selector.kind);
	map->sel = topo->selector;
	map->sectors = topo->size_bytes / 512;
	map->npaths = topo->npaths;
	for (i = 0; i < topo->npaths; i++) {
		map->paths[i].major = majors[i];
		map->paths[i].minor = minors[i];
		map->paths[i].relative_throughput =
			topo->selector.kind == SP_SEL_ST
				? topo->paths[i].relative_throughput : 1;
		if (sp_selector_info(topo->selector.kind)->path_arg ==
		    SP_SEL_ARG_CPUMASK)
			map->paths[i].cpumask = topo->paths[i].cpumask;
	}
	return 0;
}

const char *sp_topo_dir(char *buf, size_t len)
{
	const char *env = getenv("SLOWPATH_TOPODIR");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return buf;
	}
	/* build/slowpath sits one level below the repository */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			char guess[PATH_MAX + 16], real[PATH_MAX];

			*slash = '\0';
			snprintf(guess, sizeof(guess), "%s/../topologies", exe);
			snprintf(buf, len, "%s",
				 realpath(guess, real) ? real : guess);
			return buf;
		}
	}
	snprintf(buf, len, "topologies");
	return buf;
}

static int bare_name(const char *s)
{
	if (!*s || strlen(s) > 60)
		return 0;
	for (; *s; s++)
		if (!(*s == '-' || *s == '_' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

int sp_topo_locate(const char *name_or_path, char *path, size_t len,
		   char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!bare_name(name_or_path) ||
	    (!stat(name_or_path, &st) && S_ISREG(st.st_mode))) {
		snprintf(path, len, "%s", name_or_path);
		return 0;
	}
	snprintf(path, len, "%s/%s.ini", sp_topo_dir(dir, sizeof(dir)),
		 name_or_path);
	if (stat(path, &st)) {
		snprintf(err, errlen, "no topology '%s' (looked for %s; "
			 "'slowpath topo list' shows them)", name_or_path,
			 path);
		return -ENOENT;
	}
	return 0;
}

/* The name a file's topology goes by: its base name without .ini. */
static void name_from_path(const char *path, char *name, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	if (n >= len)
		n = len - 1;
	memcpy(name, base, n);
	name[n] = '\0';
}

int sp_topo_load(const char *name_or_path, struct sp_topo *topo, char *err,
		 size_t errlen)
{
	/* longer than any valid name, so a long one is refused, not cut */
	char path[PATH_MAX], name[256];
	char *text;
	size_t n;
	int ret;

	ret = sp_topo_locate(name_or_path, path, sizeof(path), err, errlen);
	if (ret)
		return ret;
	ret = sp_file_read_opt(path, MAX_TOPO_FILE, SP_FILE_REGULAR, &text, &n);
	if (ret == -EINVAL) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (ret == -EFBIG || (!ret && memchr(text, '\0', n))) {
		snprintf(err, errlen, "%s: not a topology file (%s)", path,
			 ret ? "over 64 KiB" : "binary data");
		free(text);
		return -EINVAL;
	}
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	name_from_path(path, name, sizeof(name));
	ret = sp_topo_parse(text, path, name, topo, err, errlen);
	free(text);
	return ret;
}
