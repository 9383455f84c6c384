/* The /run/slowpath journal's lines as they are written. See state.h;
 * state_parse.c reads them back. */
#include "harness/bringup/state.h"
#include "common/strbuf.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int has_space(const char *s)
{
	return !*s || strpbrk(s, " \t\n") != NULL;
}

int sp_state_fmt_selector(const struct sp_dm_selector *sel, char *buf,
			  size_t len)
{
	/* only a variant build says so: other journals read as before */
	return sp_snprintf(buf, len, "selector %s %" PRId64 " %" PRId64 "%s%s\n",
		   sp_selector_short_name(sel->kind), sel->base_weight,
		   sel->threshold_multiplier,
		   sel->hst_build != SP_HST_BUILD_STOCK ? " hst=" : "",
		   sel->hst_build != SP_HST_BUILD_STOCK
		   ? sp_hst_build_name(sel->hst_build) : "");
}

int sp_state_fmt_header(const struct sp_state *st, char *buf, size_t len)
{
	char sel[96];

	if (has_space(st->topology) || has_space(st->topo_file) ||
	    has_space(st->tag) || has_space(st->iqn) ||
	    has_space(st->map_name) || has_space(st->map_uuid) ||
	    has_space(st->backing))
		return -EINVAL;
	if (sp_state_fmt_selector(&st->sel, sel, sizeof(sel)))
		return -ENOSPC;
	return sp_snprintf(buf, len,
		   "slowpath-state %d\ntopology %s %s\ntag %s\niqn %s\n"
		   "map %s %s\nbacking %s %s %" PRIu64 "\n%s",
		   SP_STATE_VERSION, st->topology, st->topo_file, st->tag,
		   st->iqn, st->map_name, st->map_uuid, st->backing,
		   st->backing_created ? "created" : "existing",
		   st->size_bytes, sel);
}

int sp_state_fmt_path(const struct sp_state_path *p, char *buf, size_t len)
{
	char serial[64] = "";

	if (has_space(p->label) || has_space(p->netns))
		return -EINVAL;
	/* only serial paths say so: other journals read as before */
	if (p->servers)
		snprintf(serial, sizeof(serial), " service=%" PRId64 " servers=%u",
			 p->service_ns, p->servers);
	return sp_snprintf(buf, len,
		   "path %u label=%s netns=%s hif=%s tif=%s init=%s/%d "
		   "target=%s port=%u ctl=%u mech=%s dist=%s rt=%u read=%" PRId64
		   " write=%" PRId64 " jitter=%" PRId64 " netem=%" PRId64
		   " netem_jitter=%" PRId64 " cpus=%" PRIx64 "%s\n",
		   p->index, p->label, p->netns, p->host_if, p->target_if,
		   p->initiator_ip, p->prefix_len, p->target_ip, p->portal_port,
		   p->ctl_port, sp_mech_names[p->mech], sp_dist_names[p->dist],
		   p->relative_throughput, p->read_ns, p->write_ns, p->jitter_ns,
		   p->netem_ns, p->netem_jitter_ns, p->cpumask, serial);
}

int sp_state_fmt_delay(const struct sp_state_path *p, char *buf, size_t len)
{
	return sp_snprintf(buf, len,
		   "delay %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
		   " %" PRId64 "\n", p->index, p->read_ns, p->write_ns,
		   p->jitter_ns, p->netem_ns, p->netem_jitter_ns);
}

int sp_state_fmt_pid(const char *what, unsigned int index, pid_t pid,
		     unsigned long long start, char *buf, size_t len)
{
	if (!start)
		return sp_snprintf(buf, len, "pid %s %u %d\n", what, index,
				   (int)pid);
	return sp_snprintf(buf, len, "pid %s %u %d %llu\n", what, index,
			   (int)pid, start);
}

int sp_state_fmt_run(pid_t pid, unsigned long long start, char *buf,
		     size_t len)
{
	if (pid <= 0)
		return sp_snprintf(buf, len, "run idle\n");
	return sp_snprintf(buf, len, "run fio %d %llu\n", (int)pid, start);
}

int sp_state_fmt_scale(const struct sp_state *st, char *buf, size_t len)
{
	char scale[40] = "", hst[24] = "";

	if (st->scale > 1)
		snprintf(scale, sizeof(scale), "scale %llu\n",
			 (unsigned long long)st->scale);
	if (st->has_hst)
		snprintf(hst, sizeof(hst), "hst %u\n", st->hst_shift);
	return sp_snprintf(buf, len, "%s%s", scale, hst);
}

int sp_state_fmt_calib(const struct sp_state_path *p, char *buf, size_t len)
{
	return sp_snprintf(buf, len, "calib %u %" PRId64 " %" PRId64 "\n",
			   p->index, p->calib_target_ns, p->calib_measured_ns);
}
