/* `slowpath status` in the shape of `multipath -ll`, see the seeds:
 *
 *   slowpath-equal3 (slowpath-equal3-3fa2) dm-0 IET,VIRTUAL-DISK
 *   size=2.0G features='0' hwhandler='0' wp=rw
 *   `-+- policy='service-time 0' prio=0 status=active
 *     |- 2:0:0:1 sda 8:0  active undef running  a 198.18.0.2:3260 ...
 */
#include "harness/bringup/bringup_status.h"

#include "common/strbuf.h"
#include "common/units.h"
#include "lab/hst_info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_status_parse_dm(struct sp_status *s, const char *dm_status)
{
	char *copy = strdup(dm_status), *tok, *save, *prev = NULL;
	size_t i;

	if (!copy)
		return;
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     prev = tok, tok = strtok_r(NULL, " \t\n", &save)) {
		unsigned int maj, min;
		char extra;

		if (!prev || sscanf(prev, "%u:%u%c", &maj, &min, &extra) != 2)
			continue;
		for (i = 0; i < s->st->npaths; i++)
			if (s->st->paths[i].major == maj &&
			    s->st->paths[i].minor == min)
				snprintf(s->paths[i].dm_state,
					 sizeof(s->paths[i].dm_state), "%s",
					 !strcmp(tok, "A") ? "active"
					 : !strcmp(tok, "F") ? "failed"
							     : "undef");
	}
	free(copy);
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		s[--n] = '\0';
}

/* Which HST is loaded: what the runs under this journal will use. */
static void gather_hst(const struct sp_sys_ops *ops, struct sp_status *s)
{
	struct sp_hst_info info;

	if (sp_bringup_hst_loaded(ops, &info) ||
	    sp_hst_info_label(&info, s->hst, sizeof(s->hst)))
		snprintf(s->hst, sizeof(s->hst), "not loaded");
}

int sp_status_gather(const struct sp_sys_ops *ops, const struct sp_state *st,
		     struct sp_status *s)
{
	char out[8192], path[160], err[SP_DM_ERRLEN];
	struct sp_dm_info info;
	size_t i;

	memset(s, 0, sizeof(*s));
	gather_hst(ops, s);
	s->st = st;
	for (i = 0; i < st->npaths; i++) {
		struct sp_status_path *sp = &s->paths[i];
		const struct sp_state_path *p = &st->paths[i];

		snprintf(sp->hctl, sizeof(sp->hctl), "#:#:#:#");
		snprintf(sp->dm_state, sizeof(sp->dm_state), "undef");
		snprintf(sp->dev_state, sizeof(sp->dev_state), "gone");
		if (!p->has_disk)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/device", p->disk);
		ops->readlink_base(ops->ctx, path, sp->hctl, sizeof(sp->hctl));
		snprintf(path, sizeof(path), "/sys/block/%s/device/state",
			 p->disk);
		if (!ops->read_file(ops->ctx, path, sp->dev_state,
				    sizeof(sp->dev_state)))
			trim(sp->dev_state);
		/* nvme-tcp: no map; the dm column shows the path's ANA
		 * state instead (device/state is its controller's) */
		snprintf(path, sizeof(path), "/sys/block/%s/ana_state", p->disk);
		if (st->transport == SP_TRANSPORT_NVME_TCP &&
		    !ops->read_file(ops->ctx, path, sp->dm_state,
				    sizeof(sp->dm_state)))
			trim(sp->dm_state);
		if (!s->vendor[0]) {
			snprintf(path, sizeof(path),
				 "/sys/block/%s/device/vendor", p->disk);
			if (!ops->read_file(ops->ctx, path, s->vendor,
					    sizeof(s->vendor)))
				trim(s->vendor);
			snprintf(path, sizeof(path),
				 "/sys/block/%s/device/model", p->disk);
			if (!ops->read_file(ops->ctx, path, s->model,
					    sizeof(s->model)))
				trim(s->model);
		}
	}
	if (!st->map_name[0] ||
	    ops->dm->info(ops->dm->ctx, st->map_name, &info))
		return 0;
	s->map_present = 1;
	snprintf(s->dm_name, sizeof(s->dm_name), "dm-%u", info.minor);
	if (!ops->dm->table(ops->dm->ctx, st->map_name, out, sizeof(out)) &&
	    !sp_dm_table_parse(out, &s->table, err, sizeof(err)))
		s->has_table = 1;
	if (!ops->dm->status(ops->dm->ctx, st->map_name, out, sizeof(out)))
		sp_status_parse_dm(s, out);
	return 0;
}


/* multipath prints sizes as "2.0G" */
static void human_size(uint64_t bytes, char *buf, size_t len)
{
	const char *units = "KMGTP";
	double v = (double)bytes / 1024.0;
	int u = 0;

	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.1f%c", v, units[u]);
}

static void policy(const struct sp_dm_selector *sel, char *buf, size_t len)
{
	if (sel->kind == SP_SEL_HST && sel->threshold_multiplier >= 0)
		snprintf(buf, len, "%s 2 %" PRId64 " %" PRId64,
			 sp_selector_kernel_name(sel->kind),
			 sel->base_weight >= 0 ? sel->base_weight
					       : SP_HST_DEFAULT_BASE_WEIGHT,
			 sel->threshold_multiplier);
	else if (sel->kind == SP_SEL_HST && sel->base_weight >= 0)
		snprintf(buf, len, "%s 1 %" PRId64,
			 sp_selector_kernel_name(sel->kind), sel->base_weight);
	else
		snprintf(buf, len, "%s 0", sp_selector_kernel_name(sel->kind));
}

static void delay_text(const struct sp_state_path *p, char *buf, size_t len)
{
	char r[32], w[32], j[32];
	int64_t rd = p->read_ns + p->netem_ns, wr = p->write_ns + p->netem_ns;
	int64_t ji = p->jitter_ns + p->netem_jitter_ns;
	int n;

	sp_format_duration(rd, r, sizeof(r));
	sp_format_duration(wr, w, sizeof(w));
	if (rd == wr)
		n = snprintf(buf, len, "delay=%s", r);
	else
		n = snprintf(buf, len, "read=%s write=%s", r, w);
	if (ji && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " jitter=%s",
			      sp_format_duration(ji, j, sizeof(j)));
	if (p->servers && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " service=%s/%u",
			 sp_format_duration(p->service_ns, j, sizeof(j)),
			 p->servers);
}

int sp_status_render(const struct sp_status *s, char *buf, size_t len)
{
	const struct sp_state *st = s->st;
	struct sp_strbuf o = SP_STRBUF(buf, len);
	char size[32], pol[96], portal[64], mm[24], delay[96];
	const struct sp_dm_selector *sel = s->has_table ? &s->table.sel
							: &st->sel;
	size_t i, mmw = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	sp_strbuf_printf(&o, "topology %s (%s) tag %s, %s\n", st->topology, st->topo_file,
	     st->tag, st->complete ? "up" : "INCOMPLETE: run slowpath down");
	/* only when scaled or calibrated: unscaled status reads as before */
	if (st->scale > 1 || (s->hst[0] && strcmp(s->hst, "stock")))
		sp_strbuf_printf(&o, "scale k=%llu (every delay x %llu), "
				 "historical-service-time: %s\n",
				 (unsigned long long)st->scale,
				 (unsigned long long)st->scale,
				 s->hst[0] ? s->hst : "?");
	human_size(st->sectors ? st->sectors * 512 : st->size_bytes, size,
		   sizeof(size));
	if (st->transport == SP_TRANSPORT_NVME_TCP)
		/* no map: native multipath's disk (docs/nvme.md) */
		sp_strbuf_printf(&o, "nvme-tcp %s on %s (%s), loop %s\n",
				 st->head[0] ? st->head : "?",
				 st->subsys[0] ? st->subsys : "?", st->nqn,
				 st->loop_dev[0] ? st->loop_dev : "?");
	if (st->transport == SP_TRANSPORT_NVME_TCP && s->map_present)
		sp_strbuf_printf(&o, "and %s (%s) %s: dm-multipath's %s over "
				 "each path's own subsystem\n", st->map_name,
				 st->map_uuid, s->dm_name, s->has_table
				 ? sp_dm_selector_kernel_name(&s->table.sel)
				 : "?");
	else if (st->transport != SP_TRANSPORT_NVME_TCP)
		sp_strbuf_printf(&o, "%s (%s) %s %s,%s\n", st->map_name,
		     st->map_uuid, s->map_present ? s->dm_name : "(no map)",
		     s->vendor[0] ? s->vendor : "?",
		     s->model[0] ? s->model : "?");
	{	/* the features as multipath -ll and the table count them */
		int q = s->has_table && s->table.queue_if_no_path;
		int bio = s->has_table && s->table.queue_mode == SP_DM_QUEUE_BIO;

		sp_strbuf_printf(&o, "size=%s features='%d%s%s' hwhandler='0' wp=rw\n",
				 size, q + 2 * bio, q ? " queue_if_no_path" : "",
				 bio ? " queue_mode bio" : "");
	}
	/* only when the topology set any: older status reads as before */
	if (!sp_initiator_format(&st->init, pol, sizeof(pol)) && pol[0])
		sp_strbuf_printf(&o, "failover: %s%s\n", pol,
				 sp_initiator_queue_timeout_s(&st->init)
				 ? " (dm_multipath queues with no path for "
				   "that many x 5 s)" : "");
	policy(sel, pol, sizeof(pol));
	if (st->transport == SP_TRANSPORT_NVME_TCP)	/* the journaled iopolicy */
		snprintf(pol, sizeof(pol), "iopolicy %s",
			 sp_selector_kernel_name(st->sel.kind));
	sp_strbuf_printf(&o, "`-+- policy='%s' prio=0 status=%s\n", pol,
	     s->map_present || (st->transport == SP_TRANSPORT_NVME_TCP &&
				st->has_head) ? "active" : "absent");
	for (i = 0; i < st->npaths; i++) {
		size_t w = (size_t)snprintf(mm, sizeof(mm), "%u:%u",
					    st->paths[i].major,
					    st->paths[i].minor);
		if (w > mmw)
			mmw = w;
	}
	for (i = 0; i < st->npaths; i++) {
		const struct sp_state_path *p = &st->paths[i];
		const struct sp_status_path *sp = &s->paths[i];

		snprintf(mm, sizeof(mm), "%u:%u", p->major, p->minor);
		sp_bringup_portal(p, portal, sizeof(portal));
		delay_text(p, delay, sizeof(delay));
		sp_strbuf_printf(&o, "  %s %s %s %-*s %s undef %s  %s %s %s %s\n",
		     i + 1 == st->npaths ? "`-" : "|-", sp->hctl,
		     p->has_disk ? p->disk : "-", (int)mmw,
		     p->has_disk ? mm : "-", sp->dm_state, sp->dev_state,
		     p->label, portal, delay, sp_mech_names[p->mech]);
		if (p->has_solo)
			sp_strbuf_printf(&o, "     own subsystem: %s %u:%u (%s)\n",
					 p->solo_head, p->solo_major,
					 p->solo_minor, p->solo_disk);
		if (p->fault_how[0])
			sp_strbuf_printf(&o, "     fault: %s (%s; 'slowpath "
					 "fault %s restore' undoes it)\n",
					 p->fault_how, p->fault_spec, p->label);
		if (p->has_calib)
			sp_strbuf_printf(&o, "     calibrated: p50 %.3f ms for "
					 "%.3f ms (%+.1f %%)\n",
					 (double)p->calib_measured_ns / 1e6,
					 (double)p->calib_target_ns / 1e6,
					 100 * sp_state_calib_residual(p));
	}
	/* the user only: the secret stays in its root-only file */
	if (st->chap_user[0])
		sp_strbuf_printf(&o, "chap: on, user %s (secret root-only in "
				 "the state directory)\n", st->chap_user);
	return o.overflow ? -ENOSPC : 0;
}
