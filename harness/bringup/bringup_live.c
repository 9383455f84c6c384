/* Changes to a running topology: the selector (suspend, load, resume
 * with the same paths) and one path's delay (the tgt delay store's
 * runtime control, or a netem change). Both are journaled so status
 * and a later `down` see them. */
#include "harness/bringup/bringup.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static const char *tool_error(const struct sp_sys_ops *ops)
{
	const char *e = ops->last_error ? ops->last_error(ops->ctx) : "";

	return e && *e ? e : "no message";
}

static int record(const char *dir, const char *line, char *err,
		  size_t errlen)
{
	int fd, ret = sp_state_open_append(dir, &fd);

	if (ret)
		return sp_errf(err, errlen, ret, "cannot open the state in %s: "
			     "%s", dir, strerror(-ret));
	ret = sp_state_append(fd, line);
	close(fd);
	return ret ? sp_errf(err, errlen, ret, "cannot record the change: %s",
			   strerror(-ret)) : 0;
}

void sp_bringup_retarget(struct sp_dm_map *map, const struct sp_state *st,
			 const struct sp_dm_selector *sel)
{
	size_t i, k;

	map->sel = *sel;
	for (i = 0; i < map->npaths; i++) {
		map->paths[i].relative_throughput = 1;
		for (k = 0; sel->kind == SP_SEL_ST && k < st->npaths; k++)
			if (st->paths[k].major == map->paths[i].major &&
			    st->paths[k].minor == map->paths[i].minor &&
			    st->paths[k].relative_throughput)
				map->paths[i].relative_throughput =
					st->paths[k].relative_throughput;
	}
}

int sp_bringup_selector_set(const struct sp_sys_ops *ops,
			    struct sp_state *st,
			    const struct sp_dm_selector *sel,
			    const char *state_dir, char *err, size_t errlen)
{
	static char out[8192], table[8192];
	char dmerr[SP_DM_ERRLEN], line[96];
	const char *mod;
	struct sp_dm_map map;
	int ret, rret;

	if (!st->complete)
		return sp_errf(err, errlen, -EINVAL, "topology %s is not fully "
			     "up; run 'slowpath down'", st->topology);
	if (sp_sys_runv(ops, out, sizeof(out), "dmsetup", "table",
			st->map_name, NULL))
		return sp_errf(err, errlen, -ENOENT, "map %s is not there: %s",
			     st->map_name, tool_error(ops));
	ret = sp_dm_table_parse(out, &map, dmerr, sizeof(dmerr));
	if (ret)
		return sp_errf(err, errlen, ret, "map %s has a table slowpath "
			     "cannot read: %s", st->map_name, dmerr);
	sp_bringup_retarget(&map, st, sel);
	ret = sp_dm_table_build(&map, table, sizeof(table), dmerr,
				sizeof(dmerr));
	if (ret)
		return sp_errf(err, errlen, ret, "%s", dmerr);
	mod = sp_selector_module(sel->kind);
	if (sp_sys_runv(ops, NULL, 0, "modprobe", "-q", mod, NULL))
		sp_debug("modprobe %s failed; the load will tell", mod);
	if (sp_sys_runv(ops, NULL, 0, "dmsetup", "suspend", st->map_name,
			NULL))
		return sp_errf(err, errlen, -EIO, "dmsetup suspend %s: %s",
			     st->map_name, tool_error(ops));
	rret = sp_sys_runv(ops, NULL, 0, "dmsetup", "reload", st->map_name,
			   "--table", table, NULL);
	if (rret)
		snprintf(err, errlen, "dmsetup reload with %s failed: %s",
			 sp_selector_kernel_name(sel->kind), tool_error(ops));
	/* resume in any case: a suspended map would hang every reader */
	ret = sp_sys_runv(ops, NULL, 0, "dmsetup", "resume", st->map_name,
			  "--noudevsync", NULL);
	if (rret)
		return -EIO;
	if (ret)
		return sp_errf(err, errlen, -EIO, "dmsetup resume %s: %s",
			     st->map_name, tool_error(ops));
	st->sel = *sel;
	sp_state_fmt_selector(sel, line, sizeof(line));
	return record(state_dir, line, err, errlen);
}

/* The delay store's runtime control (docs/backend.md): a line written
 * to the LUN's ctl file is applied when the file is closed, and the
 * stats file then shows the settings in force. */
static int backend_set(const struct sp_sys_ops *ops,
		       const struct sp_state *st,
		       const struct sp_state_path *p, const char *state_dir,
		       char *err, size_t errlen)
{
	char ctl[256], path[300], line[256], want[64], stats[4096];
	int i, ret;

	if (strcmp(st->bstype, "delay"))
		return sp_errf(err, errlen, -ENOTSUP, "path %s is served by "
			     "tgt's %s store, which has no delay to change",
			     p->label, st->bstype);
	if (sp_bringup_bsopts(p, line, sizeof(line) - 1))
		return -ENOSPC;
	strcat(line, "\n");
	sp_bringup_ctl_dir(state_dir, p, ctl, sizeof(ctl));
	snprintf(path, sizeof(path), "%s/ctl", ctl);
	ret = ops->write_file(ops->ctx, path, line);
	if (ret)
		return sp_errf(err, errlen, ret, "path %s: cannot write %s: %s",
			     p->label, path, strerror(-ret));
	/* tgtd applies it from its main loop: wait to see it in force */
	snprintf(path, sizeof(path), "%s/stats", ctl);
	snprintf(want, sizeof(want), "read_delay_ns=%lld\n",
		 (long long)p->read_ns);
	for (i = 0; i < 50; i++) {
		if (!ops->read_file(ops->ctx, path, stats, sizeof(stats)) &&
		    strstr(stats, want))
			return 0;
		ops->sleep_ms(ops->ctx, 100);
	}
	return sp_errf(err, errlen, -ETIMEDOUT, "path %s: the delay store did "
		     "not take '%s' (see %s)", p->label, line, path);
}

static int netem_set(const struct sp_sys_ops *ops,
		     const struct sp_state_path *p, char *err, size_t errlen)
{
	const char *argv[24];
	char bufs[128];
	int zero = !p->netem_ns && !p->netem_jitter_ns;

	sp_bringup_netem_argv(p, zero ? "del" : "replace", argv, 24, bufs,
			      sizeof(bufs));
	if (ops->run(ops->ctx, argv, NULL, 0) && !zero)
		return sp_errf(err, errlen, -EIO, "path %s: netem on %s: %s",
			     p->label, p->target_if, tool_error(ops));
	return 0;
}

int sp_bringup_delay_set(const struct sp_sys_ops *ops, struct sp_state *st,
			 struct sp_state_path *p, int64_t read_ns,
			 int64_t write_ns, const char *state_dir, char *err,
			 size_t errlen)
{
	struct sp_state_path next = *p;
	char line[256];
	int64_t share;
	int ret = 0;

	if (!st->complete)
		return sp_errf(err, errlen, -EINVAL, "topology %s is not fully "
			     "up; run 'slowpath down'", st->topology);
	if (write_ns < 0)
		write_ns = read_ns;
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
	if (p->mech != SP_MECH_NETEM)
		ret = backend_set(ops, st, &next, state_dir, err, errlen);
	if (!ret && p->mech != SP_MECH_BACKEND)
		ret = netem_set(ops, &next, err, errlen);
	if (ret)
		return ret;
	*p = next;
	sp_state_fmt_delay(p, line, sizeof(line));
	return record(state_dir, line, err, errlen);
}
