/* What `slowpath topo show|table|list|check` print of topologies: the
 * resolved paths side by side, the dm table over given devices, the
 * folder's topologies; errors one line through the log hook. */
#include "topologies/topo_show.h"

#include "common/log.h"
#include "common/units.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *dur(int64_t ns, char *buf, size_t len)
{
	if (!ns)
		return "0";
	return sp_format_duration(ns, buf, len);
}

static const char *size_text(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int i = -1;

	while (bytes >= 1024 && bytes % 1024 == 0 && i < 3) {
		bytes /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		snprintf(buf, len, "%" PRIu64 "%c", bytes, units[i]);
	return buf;
}

int sp_topo_check_resolves(const struct sp_topo *t)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	char err[SP_TOPO_ERRLEN];
	int ret = sp_topo_resolve(t, t->unit_ns, r, err, sizeof(err));

	if (!ret)
		ret = sp_topo_resolve(t, t->lab_unit_ns, r, err, sizeof(err));
	if (ret)
		sp_err("%s", err);
	return ret;
}

int sp_topo_show(FILE *out, const struct sp_topo *t, int64_t unit_ns, int lab)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	char err[SP_TOPO_ERRLEN], a[32], b[32], c[32], d[32], e[32], sz[32];
	char addr[20];
	int64_t unit = unit_ns > 0 ? unit_ns : lab ? t->lab_unit_ns : t->unit_ns;
	size_t i;
	int ret;

	ret = sp_topo_resolve(t, unit, r, err, sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return ret;
	}
	fprintf(out, "topology %s (%s)%s%s\n", t->name, t->file,
	       t->description[0] ? ": " : "", t->description);
	fprintf(out, "unit %s%s, selector %s", dur(unit, a, sizeof(a)),
	       unit_ns > 0 ? " (--unit)" : lab ? " (lab)" : "",
	       sp_selector_kernel_name(t->selector.kind));
	if (t->selector.base_weight >= 0)
		fprintf(out, " base_weight=%" PRId64, t->selector.base_weight);
	if (t->selector.threshold_multiplier >= 0)
		fprintf(out, " threshold_multiplier=%" PRId64,
		       t->selector.threshold_multiplier);
	fprintf(out, ", map %s%s, size %s, addresses %s/%d\n", t->map_name,
	       t->init.queue_bio ? " (bio-based)" : "",
	       size_text(t->size_bytes, sz, sizeof(sz)),
	       sp_topo_fmt_addr(t->plan_addr, addr, sizeof(addr)),
	       t->plan_len);
	if (t->inline_data_bytes)
		fprintf(out, "nvmet in-capsule write data %s (inline_data)\n",
			size_text(t->inline_data_bytes, sz, sizeof(sz)));
	if (t->backing_file[0])
		fprintf(out, "backing file %s\n", t->backing_file);
	fprintf(out, "%-4s %-12s %-7s %9s %9s %8s %-12s %11s %9s %-17s %-15s\n",
	       "path", "label", "mech", "read", "write", "jitter", "dist",
	       "store", "netem", "initiator", "target");
	for (i = 0; i < t->npaths; i++) {
		char ini[24];
		char store[48];

		snprintf(ini, sizeof(ini), "%s/%d", r[i].initiator_ip,
			 r[i].prefix_len);
		if (r[i].backend_read_ns == r[i].backend_write_ns)
			snprintf(store, sizeof(store), "%s",
				 dur(r[i].backend_read_ns, d, sizeof(d)));
		else
			snprintf(store, sizeof(store), "%s/%s",
				 dur(r[i].backend_read_ns, d, sizeof(d)),
				 dur(r[i].backend_write_ns, e, sizeof(e)));
		fprintf(out, "%-4u %-12s %-7s %9s %9s %8s %-12s %11s %9s %-17s %-15s\n",
		       r[i].index, r[i].label, sp_mech_names[r[i].mech],
		       dur(r[i].read_delay_ns, a, sizeof(a)),
		       dur(r[i].write_delay_ns, b, sizeof(b)),
		       dur(r[i].jitter_ns, c, sizeof(c)),
		       r[i].jitter_ns ? sp_dist_names[r[i].dist] : "-",
		       store, dur(r[i].netem_delay_ns, e, sizeof(e)), ini,
		       r[i].target_ip);
	}
	return 0;
}

int sp_topo_table(FILE *out, struct sp_topo *t, const char *devs,
		  const char *selector, uint64_t size_bytes)
{
	unsigned int majors[SP_TOPO_MAX_PATHS], minors[SP_TOPO_MAX_PATHS];
	struct sp_dm_map map;
	char line[2048], err[SP_DM_ERRLEN], extra;
	const char *p = devs;
	size_t n = 0;
	int used;

	if (!p) {
		sp_err("topo table needs --devs MAJ:MIN,... (%zu of them)",
		       t->npaths);
		return -EINVAL;
	}
	while (*p) {
		if (n == SP_TOPO_MAX_PATHS ||
		    sscanf(p, "%u:%u%n", &majors[n], &minors[n], &used) != 2) {
			sp_err("--devs '%s': want MAJ:MIN,MAJ:MIN,...", devs);
			return -EINVAL;
		}
		p += used;
		n++;
		extra = *p;
		if (extra == ',')
			p++;
		else if (extra) {
			sp_err("--devs '%s': want MAJ:MIN,MAJ:MIN,...", devs);
			return -EINVAL;
		}
	}
	if (n != t->npaths) {
		sp_err("--devs has %zu devices, topology %s has %zu paths", n,
		       t->name, t->npaths);
		return -EINVAL;
	}
	if (selector) {
		enum sp_selector kind;

		if (sp_selector_parse(selector, &kind)) {
			sp_err("--selector '%s': want one of %s", selector,
			       sp_selector_list());
			return -EINVAL;
		}
		if (kind != t->selector.kind)
			sp_dm_selector_init(&t->selector, kind);
	}
	sp_topo_dm_map(t, majors, minors, &map);
	if (size_bytes)
		map.sectors = size_bytes / 512;
	if (sp_dm_table_build(&map, line, sizeof(line), err, sizeof(err))) {
		sp_err("%s: %s", t->file, err);
		return -EINVAL;
	}
	fprintf(out, "%s\n", line);
	return 0;
}

static int ini_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

int sp_topo_list(FILE *out)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], err[SP_TOPO_ERRLEN];
	struct dirent **names;
	struct sp_topo *t = malloc(sizeof(*t));
	int n, i, bad = 0;

	if (!t)
		return -ENOMEM;
	sp_topo_dir(dir, sizeof(dir));
	n = scandir(dir, &names, ini_name, alphasort);
	if (n < 0) {
		sp_err("cannot list topologies in %s: %s", dir,
		       strerror(errno));
		free(t);
		return -ENOENT;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (sp_topo_load(path, t, err, sizeof(err))) {
			fprintf(out, "%-12s (broken: %s)\n", names[i]->d_name, err);
			bad = 1;
		} else {
			fprintf(out, "%-12s %2zu paths  %s\n", t->name, t->npaths,
			       t->description);
		}
		free(names[i]);
	}
	free(names);
	free(t);
	return bad ? -EINVAL : 0;
}

