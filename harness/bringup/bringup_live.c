/* Changes to a running topology: the selector (suspend, load, resume
 * with the same paths; `slowpath selector set` and `run` before every
 * case) and one path's delay (the tgt delay store's runtime control,
 * or a fresh netem). Both are journaled so status and a later `down`
 * see them. */
#include "harness/bringup/bringup.h"
#include "harness/bringup/nvme_serial.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


int sp_bringup_record(const char *dir, const char *line, char *err,
		      size_t errlen)
{
	int fd, ret = sp_state_open_append(dir, &fd);

	if (ret)
		return sp_errf(err, errlen, ret, "cannot open the state in %s: "
			     "%s", dir, strerror(-ret));
	ret = sp_state_append(fd, line);
	close(fd);
	if (ret)
		return sp_errf(err, errlen, ret, "cannot record the change: %s",
			       strerror(-ret));
	/* `run` records a selector per case: keep the journal small */
	ret = sp_state_compact(dir, SP_STATE_COMPACT_AT, NULL, 0);
	if (ret)
		sp_warn("cannot compact the state in %s: %s", dir,
			strerror(-ret));
	return 0;
}

/* 1 when the map's path is p's disk: on nvme-tcp its own subsystem's */
static int is_path(const struct sp_dm_path *m, const struct sp_state *st,
		   const struct sp_state_path *p)
{
	if (st->transport == SP_TRANSPORT_NVME_TCP)
		return p->has_solo && p->solo_major == m->major &&
		       p->solo_minor == m->minor;
	return p->major == m->major && p->minor == m->minor;
}

void sp_bringup_retarget(struct sp_dm_map *map, const struct sp_state *st,
			 const struct sp_dm_selector *sel)
{
	size_t i, k;

	map->sel = *sel;
	for (i = 0; i < map->npaths; i++) {
		map->paths[i].relative_throughput = 1;
		map->paths[i].cpumask = 0;
		for (k = 0; sp_selector_info(sel->kind) &&
		     sp_selector_info(sel->kind)->path_arg == SP_SEL_ARG_CPUMASK &&
		     k < st->npaths; k++)
			if (is_path(&map->paths[i], st, &st->paths[k]))
				map->paths[i].cpumask = st->paths[k].cpumask;
		for (k = 0; sel->kind == SP_SEL_ST && k < st->npaths; k++)
			if (is_path(&map->paths[i], st, &st->paths[k]) &&
			    st->paths[k].relative_throughput)
				map->paths[i].relative_throughput =
					st->paths[k].relative_throughput;
	}
}

unsigned int sp_bringup_possible_cpus(const struct sp_sys_ops *ops)
{
	char buf[256], *p;
	unsigned long last;

	/* "0-3", "0", "0-3,8-11": the highest CPU number + 1 is the
	 * kernel's nr_cpu_ids, which io-affinity's masks are checked
	 * against */
	if (ops->read_file(ops->ctx, "/sys/devices/system/cpu/possible", buf,
			   sizeof(buf)))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	p = strrchr(buf, ',');
	p = p ? p + 1 : buf;
	if (strchr(p, '-'))
		p = strchr(p, '-') + 1;
	if (*p < '0' || *p > '9')
		return 0;
	last = strtoul(p, NULL, 10);
	return last < 4096 ? (unsigned int)last + 1 : 0;
}

/* /sys/module/<mod>/FILE's first line into buf; "" when unreadable. */
static void sys_module_line(const struct sp_sys_ops *ops, const char *mod,
			    const char *file, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/%s", mod, file);
	if (ops->read_file(ops->ctx, path, buf, len))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* A built selector's module is loaded already: keep it when it is the
 * stored build (same srcversion), else rmmod it so the stored one is
 * loaded; refused while a map holds it, never kept silently. */
static int replace_loaded(const struct sp_sys_ops *ops,
			  const struct sp_selector_info *s, char *err,
			  size_t errlen)
{
	char loaded[64], refcnt[32];
	unsigned long users;

	sys_module_line(ops, s->module, "srcversion", loaded, sizeof(loaded));
	if (s->srcversion[0] && !strcmp(loaded, s->srcversion))
		return 0;
	sys_module_line(ops, s->module, "refcnt", refcnt, sizeof(refcnt));
	users = strtoul(refcnt, NULL, 10);
	if (users > 0)
		return sp_errf(err, errlen, -EBUSY, "%s: the loaded module %s "
			       "is %s than %s (srcversion %s, the store's %s) "
			       "and in use (refcnt %lu): switch the maps that "
			       "use it to another selector (or slowpath down), "
			       "then load it again", s->kernel_name, s->module,
			       loaded[0] && s->srcversion[0] ? "another build"
			       : "not known to be the same build", s->ko_path,
			       loaded[0] ? loaded : "none",
			       s->srcversion[0] ? s->srcversion : "none", users);
	sp_info("%s: replacing the loaded %s (srcversion %s) with %s "
		"(srcversion %s)", s->kernel_name, s->module,
		loaded[0] ? loaded : "none", s->ko_path,
		s->srcversion[0] ? s->srcversion : "none");
	if (sp_sys_runv(ops, NULL, 0, "rmmod", s->module, NULL))
		return sp_errf(err, errlen, -EBUSY, "%s: cannot remove the "
			       "loaded %s to load %s: %s", s->kernel_name,
			       s->module, s->ko_path, sp_sys_error(ops));
	return 1;
}

int sp_bringup_load_selector(const struct sp_sys_ops *ops,
			     enum sp_selector kind, char *err, size_t errlen)
{
	const struct sp_selector_info *s = sp_selector_info(kind);
	char path[96];
	int ret;

	if (!s)
		return sp_errf(err, errlen, -EINVAL, "no selector %d", (int)kind);
	/* a stock one may be built in with no /sys/module entry; a built
	 * one is loaded only as a module */
	snprintf(path, sizeof(path), "/sys/module/%s", s->module);
	if (s->ko_path[0] ? ops->exists(ops->ctx, path)
			  : sp_bringup_module_present(ops, s->module)) {
		ret = s->ko_path[0] ? replace_loaded(ops, s, err, errlen) : 0;
		if (ret <= 0)
			return ret;
	} else if (!s->ko_path[0]) {
		if (sp_sys_runv(ops, NULL, 0, "modprobe", "-q", s->module, NULL))
			return sp_errf(err, errlen, -ENOENT, "the %s selector's "
				       "module %s is neither loaded nor "
				       "loadable", s->kernel_name, s->module);
		return 0;
	}
	/* a built selector is in no module tree: insmod, after the
	 * dm_multipath it links against */
	sp_sys_runv(ops, NULL, 0, "modprobe", "-q", "dm_multipath", NULL);
	if (sp_sys_runv(ops, NULL, 0, "insmod", s->ko_path, NULL))
		return sp_errf(err, errlen, -ENOENT, "the %s selector's module "
			       "%s does not load (insmod %s): %s", s->kernel_name,
			       s->module, s->ko_path, sp_sys_error(ops));
	return 0;
}

/* The live table, in process (run reloads before every case). */
static int read_map(const struct sp_sys_ops *ops, const struct sp_state *st,
		    struct sp_dm_map *map, char *err, size_t errlen)
{
	static char out[8192];
	char dmerr[SP_DM_ERRLEN];
	int ret = ops->dm->table(ops->dm->ctx, st->map_name, out, sizeof(out));

	if (ret)
		return sp_errf(err, errlen, -ENOENT, "map %s is not there: %s",
			       st->map_name, strerror(-ret));
	ret = sp_dm_table_parse(out, map, dmerr, sizeof(dmerr));
	return ret ? sp_errf(err, errlen, ret, "map %s has a table slowpath "
			   "cannot read: %s", st->map_name, dmerr) : 0;
}

int sp_bringup_selector_set(const struct sp_sys_ops *ops,
			    struct sp_state *st,
			    const struct sp_dm_selector *sel,
			    const char *state_dir, char *err, size_t errlen)
{
	static char table[8192];
	char dmerr[SP_DM_ERRLEN], line[96];
	struct sp_dm_map map;
	int ret;

	if (!st->complete)
		return sp_errf(err, errlen, -EINVAL, "topology %s is not fully "
			     "up; run 'slowpath down'", st->topology);
	ret = read_map(ops, st, &map, err, errlen);
	if (ret)
		return ret;
	sp_bringup_retarget(&map, st, sel);
	map.ncpus = sp_bringup_possible_cpus(ops);
	ret = sp_dm_table_build(&map, table, sizeof(table), dmerr,
				sizeof(dmerr));
	if (ret)
		return sp_errf(err, errlen, ret, "%s", dmerr);
	ret = sp_bringup_load_selector(ops, sel->kind, err, errlen);
	if (ret == -EBUSY)
		return ret;
	if (!ret && sel->kind == SP_SEL_HST)
		ret = sp_bringup_hst_build_ready(ops, sel->hst_build, NULL, err,
						 errlen);
	if (ret)
		sp_debug("%s; the reload will tell", err);
	ret = ops->dm->reload(ops->dm->ctx, st->map_name, table);
	if (ret)
		return sp_errf(err, errlen, ret, "loading %s into %s failed: "
			       "%s", sp_dm_selector_kernel_name(sel),
			       st->map_name, strerror(-ret));
	/* nvme-tcp's journaled selector is its iopolicy; the map over the
	 * paths' own subsystems shows its own in its table */
	if (st->transport == SP_TRANSPORT_NVME_TCP)
		return 0;
	st->sel = *sel;
	sp_state_fmt_selector(sel, line, sizeof(line));
	return sp_bringup_record(state_dir, line, err, errlen);
}

int sp_bringup_store_ctl(const struct sp_sys_ops *ops,
			 const struct sp_state *st,
			 const struct sp_state_path *p, const char *state_dir,
			 const char *line, const char *want, char *err,
			 size_t errlen)
{
	char ctl[256], path[300], text[320], stats[4096];
	int i, ret;

	if (strcmp(st->bstype, "delay"))
		return sp_errf(err, errlen, -ENOTSUP, "path %s is served by "
			     "tgt's %s store, which takes no control lines",
			     p->label, st->bstype);
	if (snprintf(text, sizeof(text), "%s\n", line) >= (int)sizeof(text))
		return sp_errf(err, errlen, -ENOSPC, "path %s: control line "
			       "too long", p->label);
	sp_bringup_ctl_dir(state_dir, p, ctl, sizeof(ctl));
	snprintf(path, sizeof(path), "%s/ctl", ctl);
	ret = ops->write_file(ops->ctx, path, text);
	if (ret)
		return sp_errf(err, errlen, ret, "path %s: cannot write %s: %s",
			     p->label, path, strerror(-ret));
	/* tgtd applies it from its main loop: wait to see it in force */
	snprintf(path, sizeof(path), "%s/stats", ctl);
	for (i = 0; i < 50; i++) {
		if (!ops->read_file(ops->ctx, path, stats, sizeof(stats)) &&
		    strstr(stats, want))
			return 0;
		ops->sleep_ms(ops->ctx, 100);
	}
	return sp_errf(err, errlen, -ETIMEDOUT, "path %s: the delay store did "
		     "not take '%s' (see %s)", p->label, line, path);
}

/* The delay store's runtime control (docs/backend.md): a line written
 * to the LUN's ctl file is applied when the file is closed, and the
 * stats file then shows the settings in force. */
static int backend_set(const struct sp_sys_ops *ops,
		       const struct sp_state *st,
		       const struct sp_state_path *p, const char *state_dir,
		       char *err, size_t errlen)
{
	char line[256], want[64];
	int ret;

	if (strcmp(st->bstype, "delay"))
		return sp_errf(err, errlen, -ENOTSUP, "path %s is served by "
			     "tgt's %s store, which has no delay to change",
			     p->label, st->bstype);
	ret = sp_bringup_bsopts(p, NULL, line, sizeof(line));
	if (ret)
		return sp_errf(err, errlen, ret, "path %s: no ctl line for the "
			     "delay store: %s", p->label, strerror(-ret));
	snprintf(want, sizeof(want), "read_delay_ns=%lld\n",
		 (long long)p->read_ns);
	return sp_bringup_store_ctl(ops, st, p, state_dir, line, want, err,
				    errlen);
}

/* A serial nvme-tcp path: a rate on each end, reads' data leaving
 * the target, writes' leaving the host (nvme_serial.h). */
static int serial_apply(const struct sp_netem_ops *nops,
			const struct sp_state_path *p, char *err,
			size_t errlen)
{
	struct sp_netem_spec spec;
	char msg[SP_NETEM_ERRLEN];
	int end, ret = 0;

	for (end = 0; end < 2 && !ret; end++) {
		const char *ns = end ? NULL : p->netns;
		const char *dev = end ? p->host_if : p->target_if;

		ret = sp_nvme_serial_spec(p, end, &spec);
		if (ret)
			return sp_errf(err, errlen, ret, "path %s: service %lld "
				       "ns has no netem rate: %s", p->label,
				       (long long)p->service_ns,
				       strerror(-ret));
		ret = nops->set(nops->ctx, ns, dev, &spec, 0);
		if (ret)
			return sp_errf(err, errlen, -EIO, "path %s: netem rate "
				       "on %s failed: %s", p->label, dev,
				       sp_netem_strerror(ret, ns, dev, msg,
							 sizeof(msg)));
	}
	return 0;
}

int sp_bringup_netem_apply(const struct sp_sys_ops *ops,
			   const struct sp_state_path *p, char *err,
			   size_t errlen)
{
	const struct sp_netem_ops *nops = ops->netem;
	struct sp_netem_spec spec;
	char msg[SP_NETEM_ERRLEN];
	int ret;

	if (sp_nvme_serial_path(p)) {
		return serial_apply(nops, p, err, errlen);
	} else if (!p->netem_ns && !p->netem_jitter_ns) {
		ret = nops->clear(nops->ctx, p->netns, p->target_if);
		if (ret == -ENOENT)	/* none there is what we want */
			ret = 0;
	} else {
		sp_bringup_netem_spec(p, &spec);
		/* a set, not a change: a fresh netem, so no rate or
		 * distribution table of an earlier one survives */
		ret = nops->set(nops->ctx, p->netns, p->target_if, &spec, 0);
	}
	/* -EIO as when tc did it: the CLI's exit code stays "runtime" */
	return ret ? sp_errf(err, errlen, -EIO, "path %s: netem on %s failed: "
			   "%s", p->label, p->target_if,
			   sp_netem_strerror(ret, p->netns, p->target_if, msg,
					     sizeof(msg))) : 0;
}

int sp_bringup_delay_apply(const struct sp_sys_ops *ops,
			   const struct sp_state *st,
			   const struct sp_state_path *p, const char *state_dir,
			   char *err, size_t errlen)
{
	int ret = 0;

	if (p->mech != SP_MECH_NETEM)
		ret = backend_set(ops, st, p, state_dir, err, errlen);
	if (!ret && p->mech != SP_MECH_BACKEND)
		ret = sp_bringup_netem_apply(ops, p, err, errlen);
	return ret;
}

int sp_bringup_delay_set(const struct sp_sys_ops *ops, struct sp_state *st,
			 struct sp_state_path *p, int64_t read_ns,
			 int64_t write_ns, const char *state_dir, char *err,
			 size_t errlen)
{
	struct sp_state_path next = *p;
	char line[256];
	int64_t share;
	int ret;

	if (!st->complete)
		return sp_errf(err, errlen, -EINVAL, "topology %s is not fully "
			     "up; run 'slowpath down'", st->topology);
	if (write_ns < 0)
		write_ns = read_ns;
	if (read_ns < 0 || read_ns > SP_DELAY_MAX_NS ||
	    write_ns > SP_DELAY_MAX_NS)
		return sp_errf(err, errlen, -ERANGE, "path %s: a delay must be "
			     "from 0 to 60s, the most one command may be held",
			     p->label);
	switch (p->mech) {
	case SP_MECH_BACKEND:
		next.read_ns = read_ns;
		next.write_ns = write_ns;
		break;
	case SP_MECH_NETEM:
		if (read_ns != write_ns)
			return sp_errf(err, errlen, -EINVAL, "path %s delays by "
				     "netem, which cannot tell reads from "
				     "writes", p->label);
		/* a serial nvme-tcp path's delay is its service, netem's
		 * rate, which the journal's delay line does not carry */
		if (sp_nvme_serial_path(p))
			return sp_errf(err, errlen, -EINVAL, "path %s serves "
				       "through netem's rate (servers = 1 on "
				       "nvme-tcp): its service is set at up, "
				       "not by delay set", p->label);
		next.netem_ns = read_ns;
		break;
	case SP_MECH_BOTH:
		/* as topo_resolve splits it: half the common part on the
		 * wire, the rest in the store */
		share = (read_ns < write_ns ? read_ns : write_ns) / 2;
		next.netem_ns = share;
		next.read_ns = read_ns - share;
		next.write_ns = write_ns - share;
		break;
	}
	ret = sp_bringup_delay_apply(ops, st, &next, state_dir, err, errlen);
	if (ret)
		return ret;
	*p = next;
	sp_state_fmt_delay(p, line, sizeof(line));
	return sp_bringup_record(state_dir, line, err, errlen);
}
