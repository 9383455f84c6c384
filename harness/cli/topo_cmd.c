/* slowpath topo check|show|list: the thin CLI over topologies/topo.h. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "common/units.h"
#include "harness/cli/commands.h"
#include "topologies/topo.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct show_opts {
	int64_t unit_ns;
	int lab;
};

struct table_opts {
	const char *devs, *selector;
	uint64_t size_bytes;
};

static const struct sp_opt table_opts_table[] = {
	{ .name = "devs", .type = SP_OPT_STR,
	  .offset = offsetof(struct table_opts, devs),
	  .help = "the paths' block devices, MAJ:MIN,MAJ:MIN,... in order" },
	{ .name = "selector", .type = SP_OPT_STR,
	  .offset = offsetof(struct table_opts, selector),
	  .help = "st|hst|ql|rr|ioa instead of the topology's" },
	{ .name = "size", .type = SP_OPT_SIZE,
	  .offset = offsetof(struct table_opts, size_bytes),
	  .help = "map size instead of the topology's" },
	SP_OPT_END,
};

static const struct sp_opt show_opts_table[] = {
	{ .name = "unit", .type = SP_OPT_DELAY,
	  .offset = offsetof(struct show_opts, unit_ns),
	  .help = "override the topology's unit" },
	{ .name = "lab", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct show_opts, lab),
	  .help = "use the topology's lab_unit" },
	SP_OPT_END,
};

static void usage(FILE *out)
{
	char help[512];

	sp_opt_help_argv(show_opts_table, help, sizeof(help));
	fprintf(out,
		"usage: slowpath topo check FILE|NAME\n"
		"       slowpath topo show FILE|NAME [--unit T] [--lab]\n"
		"       slowpath topo table FILE|NAME --devs MAJ:MIN,... "
		"[--selector S] [--size N]\n"
		"       slowpath topo list\n"
		"A NAME is looked up as NAME.ini in %s.\n"
		"show options:\n%s",
		"$SLOWPATH_TOPODIR or the repository's topologies/", help);
}

static int load(const char *what, struct sp_topo *topo)
{
	char err[SP_TOPO_ERRLEN];
	int ret = sp_topo_load(what, topo, err, sizeof(err));

	if (ret)
		sp_err("%s", err);
	return ret;
}

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

/* check: the delays at both units the file names stay within the
 * bound once multiplied out, as `up` will resolve them. */
static int resolves(const struct sp_topo *t)
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

static int show(const struct sp_topo *t, const struct show_opts *o)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	char err[SP_TOPO_ERRLEN], a[32], b[32], c[32], d[32], e[32], sz[32];
	char addr[20];
	int64_t unit = o->unit_ns > 0 ? o->unit_ns
				      : o->lab ? t->lab_unit_ns : t->unit_ns;
	size_t i;
	int ret;

	ret = sp_topo_resolve(t, unit, r, err, sizeof(err));
	if (ret) {
		sp_err("%s", err);
		return ret;
	}
	printf("topology %s (%s)%s%s\n", t->name, t->file,
	       t->description[0] ? ": " : "", t->description);
	printf("unit %s%s, selector %s", dur(unit, a, sizeof(a)),
	       o->unit_ns > 0 ? " (--unit)" : o->lab ? " (lab)" : "",
	       sp_selector_kernel_name(t->selector.kind));
	if (t->selector.base_weight >= 0)
		printf(" base_weight=%" PRId64, t->selector.base_weight);
	if (t->selector.threshold_multiplier >= 0)
		printf(" threshold_multiplier=%" PRId64,
		       t->selector.threshold_multiplier);
	printf(", map %s, size %s, addresses %s/%d\n", t->map_name,
	       size_text(t->size_bytes, sz, sizeof(sz)),
	       sp_topo_fmt_addr(t->plan_addr, addr, sizeof(addr)),
	       t->plan_len);
	if (t->backing_file[0])
		printf("backing file %s\n", t->backing_file);
	printf("%-4s %-12s %-7s %9s %9s %8s %-12s %11s %9s %-17s %-15s\n",
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
		printf("%-4u %-12s %-7s %9s %9s %8s %-12s %11s %9s %-17s %-15s\n",
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

/* The dm multipath table line for this topology over given devices. */
static int table(struct sp_topo *t, const struct table_opts *o)
{
	unsigned int majors[SP_TOPO_MAX_PATHS], minors[SP_TOPO_MAX_PATHS];
	struct sp_dm_map map;
	char line[2048], err[SP_DM_ERRLEN], extra;
	const char *p = o->devs;
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
			sp_err("--devs '%s': want MAJ:MIN,MAJ:MIN,...", o->devs);
			return -EINVAL;
		}
		p += used;
		n++;
		extra = *p;
		if (extra == ',')
			p++;
		else if (extra) {
			sp_err("--devs '%s': want MAJ:MIN,MAJ:MIN,...", o->devs);
			return -EINVAL;
		}
	}
	if (n != t->npaths) {
		sp_err("--devs has %zu devices, topology %s has %zu paths", n,
		       t->name, t->npaths);
		return -EINVAL;
	}
	if (o->selector) {
		enum sp_selector kind;

		if (sp_selector_parse(o->selector, &kind)) {
			sp_err("--selector '%s': want one of %s", o->selector,
			       sp_selector_list());
			return -EINVAL;
		}
		if (kind != t->selector.kind)
			sp_dm_selector_init(&t->selector, kind);
	}
	sp_topo_dm_map(t, majors, minors, &map);
	if (o->size_bytes)
		map.sectors = o->size_bytes / 512;
	if (sp_dm_table_build(&map, line, sizeof(line), err, sizeof(err))) {
		sp_err("%s: %s", t->file, err);
		return -EINVAL;
	}
	printf("%s\n", line);
	return 0;
}

static int ini_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

static int list(void)
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
			printf("%-12s (broken: %s)\n", names[i]->d_name, err);
			bad = 1;
		} else {
			printf("%-12s %2zu paths  %s\n", t->name, t->npaths,
			       t->description);
		}
		free(names[i]);
	}
	free(names);
	free(t);
	return bad ? -EINVAL : 0;
}

int cmd_topo(int argc, char **argv)
{
	struct show_opts o = { 0 };
	struct table_opts to = { 0 };
	struct sp_topo *t;
	char err[SP_OPT_ERRLEN];
	int next, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	if (!strcmp(argv[1], "list")) {
		if (argc != 2) {
			sp_err("topo list takes no arguments");
			return SP_EXIT_USAGE;
		}
		return sp_exit_from_errno(list());
	}
	if (strcmp(argv[1], "check") && strcmp(argv[1], "show") &&
	    strcmp(argv[1], "table")) {
		sp_err("unknown topo subcommand '%s' (check, show, table, list)",
		       argv[1]);
		return SP_EXIT_USAGE;
	}
	if (argc < 3) {
		sp_err("topo %s needs a FILE or NAME", argv[1]);
		return SP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "show")) {
		ret = sp_opt_parse_argv(show_opts_table, &o, argc, argv, 3,
					&next, err, sizeof(err));
		if (ret || next != argc) {
			sp_err("topo show: %s", ret ? err : "unexpected argument");
			return SP_EXIT_USAGE;
		}
		if (o.lab && o.unit_ns > 0) {
			sp_err("topo show: --unit and --lab contradict each other");
			return SP_EXIT_USAGE;
		}
	} else if (!strcmp(argv[1], "table")) {
		ret = sp_opt_parse_argv(table_opts_table, &to, argc, argv, 3,
					&next, err, sizeof(err));
		if (ret || next != argc) {
			sp_err("topo table: %s", ret ? err : "unexpected argument");
			return SP_EXIT_USAGE;
		}
	} else if (argc != 3) {
		sp_err("topo check takes one FILE or NAME, got '%s' too",
		       argv[3]);
		return SP_EXIT_USAGE;
	}
	t = malloc(sizeof(*t));
	if (!t)
		return SP_EXIT_RUNTIME;
	ret = load(argv[2], t);
	if (!ret && !strcmp(argv[1], "show"))
		ret = show(t, &o);
	else if (!ret && !strcmp(argv[1], "table"))
		ret = table(t, &to);
	else if (!ret && !(ret = resolves(t)))
		printf("%s: ok, %zu paths\n", t->file, t->npaths);
	free(t);
	/* a topology that does not parse is bad input, whatever the errno */
	if (ret == -ENOENT)
		return SP_EXIT_USAGE;
	return ret ? sp_exit_from_errno(ret == -ERANGE ? -EINVAL : ret) : 0;
}
