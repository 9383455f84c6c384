/* The pure half of `up`: what every path will be called and where it
 * lives, decided before anything touches the system, and the parsers of
 * the tools' output that `up`, `down` and `status` read. */
#include "harness/bringup/bringup.h"
#include "harness/bringup/nvme_serial.h"
#include "harness/bringup/nvmet.h"
#include "common/machine.h"

#include "common/strbuf.h"
#include "common/units.h"
#include "tgt-backend/delay_opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int valid_tag(const char *tag)
{
	size_t i;

	for (i = 0; tag[i]; i++)
		if (!isxdigit((unsigned char)tag[i]) ||
		    isupper((unsigned char)tag[i]))
			return 0;
	return i == 4;
}

/* IQNs allow lower-case letters, digits, '-', '.' and ':' only. */
static void iqn_safe(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++) {
		char c = (char)tolower((unsigned char)in[i]);

		out[i] = (isalnum((unsigned char)c) || c == '-' || c == '.')
				 ? c : '-';
	}
	out[i] = '\0';
}

/* k times every delay, each part within the 60 s one command may be
 * held (the store's read/write plus the wire's, jitter included). */
/* The serial base joins every serial path's service before k, so the
 * 60 s bound is checked once, on the sum, by scale_delays (and here
 * when nothing is scaled). */
static int add_serial_base(const struct sp_topo *t, int64_t serial_base_ns,
			   struct sp_topo_resolved_path *rp, char *err,
			   size_t errlen)
{
	size_t i;

	if (serial_base_ns < 0)
		return sp_errf(err, errlen, -EINVAL, "a serial base cannot be "
			     "negative");
	for (i = 0; i < t->npaths; i++) {
		if (!rp[i].servers)
			continue;
		rp[i].backend_service_ns += serial_base_ns;
		if (rp[i].backend_service_ns > SP_DELAY_MAX_NS)
			return sp_errf(err, errlen, -ERANGE, "path %s: service "
				     "plus serial base is over 60s, the most "
				     "one command may be held", rp[i].label);
	}
	return 0;
}

static int scale_delays(const struct sp_topo *t, uint64_t k,
			struct sp_topo_resolved_path *rp, char *err,
			size_t errlen)
{
	char a[32], b[32];
	size_t i;

	if (k <= 1)
		return 0;
	if (k & (k - 1))
		return sp_errf(err, errlen, -EINVAL, "scale %llu is not a "
			     "power of two", (unsigned long long)k);
	for (i = 0; i < t->npaths; i++) {
		struct sp_topo_resolved_path *r = &rp[i];
		int64_t store = r->backend_read_ns > r->backend_write_ns
					? r->backend_read_ns
					: r->backend_write_ns;
		double worst = ((double)store + (double)r->backend_jitter_ns +
				(double)r->netem_delay_ns +
				(double)r->netem_jitter_ns) * (double)k;
		double plain = (double)store + (double)r->netem_delay_ns;

		if (worst > (double)SP_DELAY_MAX_NS)
			return sp_errf(err, errlen, -ERANGE, "path %s: %s "
				     "(with jitter %s) scaled by %llu is over "
				     "60s, the most one command may be held: "
				     "use a smaller --scale", r->label,
				     sp_format_duration((int64_t)plain, a,
							sizeof(a)),
				     sp_format_duration(r->backend_jitter_ns +
							r->netem_jitter_ns, b,
							sizeof(b)),
				     (unsigned long long)k);
		if ((double)r->backend_service_ns * (double)k >
		    (double)SP_DELAY_MAX_NS)
			return sp_errf(err, errlen, -ERANGE, "path %s: service "
				     "%s scaled by %llu is over 60s: use a "
				     "smaller --scale", r->label,
				     sp_format_duration(r->backend_service_ns,
							a, sizeof(a)),
				     (unsigned long long)k);
		r->backend_service_ns *= (int64_t)k;
		r->backend_read_ns *= (int64_t)k;
		r->backend_write_ns *= (int64_t)k;
		r->backend_jitter_ns *= (int64_t)k;
		r->netem_delay_ns *= (int64_t)k;
		r->netem_jitter_ns *= (int64_t)k;
	}
	return 0;
}

/* $SLOWPATH_STORE_IO (pool or inline) puts the store's I/O where it
 * says instead, so that make bench-syscalls can set the two side by
 * side. 0, or -EINVAL for any other value. */
static int store_io_override(int *io)
{
	const char *v = getenv("SLOWPATH_STORE_IO");

	if (!v)
		return 0;
	if (!strcmp(v, "pool"))
		*io = DELAY_IO_POOL;
	else if (!strcmp(v, "inline"))
		*io = DELAY_IO_INLINE;
	else
		return -EINVAL;
	return 0;
}

/* nvme-tcp: nvmet has no delay store, so every path's delay goes on
 * the wire (netem on the path's veths). A serial topology's delay
 * becomes each path's service through netem's rate (nvme_serial), or,
 * with o->not_serial, plain latency (docs/nvme.md). */
static int nvme_delays(struct sp_topo *t, const struct sp_up_opts *o,
		       char *err, size_t errlen)
{
	size_t i;

	if (t->transport != SP_TRANSPORT_NVME_TCP)
		return 0;
	if (t->servers > 1 && !o->not_serial)
		return sp_errf(err, errlen, -EINVAL, "%s: servers = %u over "
			       "nvme-tcp: a path serves through netem's rate, "
			       "one command at a time (servers = 1); add "
			       "--not-serial to run its delays as latency",
			       t->file, t->servers);
	if (o->has_mech && o->mech != SP_MECH_NETEM)
		return sp_errf(err, errlen, -EINVAL, "--mechanism %s: nvme-tcp "
			       "paths are delayed by netem only",
			       sp_mech_names[o->mech]);
	if (o->not_serial)
		t->servers = 0;
	for (i = 0; i < t->npaths; i++)
		t->paths[i].mech = SP_MECH_NETEM;
	return 0;
}

/* A serial nvme-tcp path: its delay is its service, one 4k I/O's
 * transfer at netem's rate (nvme_serial.c), with no latency besides. */
static int nvme_serial(const struct sp_topo *t,
		       struct sp_topo_resolved_path *rp, char *err,
		       size_t errlen)
{
	size_t i;

	if (t->transport != SP_TRANSPORT_NVME_TCP || !t->servers)
		return 0;
	for (i = 0; i < t->npaths; i++) {
		struct sp_topo_resolved_path *r = &rp[i];

		if (r->netem_jitter_ns)
			return sp_errf(err, errlen, -EINVAL, "path %s: jitter "
				       "on a serial nvme-tcp path: its service "
				       "is netem's rate, the same for every "
				       "4k I/O; add --not-serial", r->label);
		r->backend_service_ns = r->netem_delay_ns;
		r->servers = 1;
		r->netem_delay_ns = 0;
	}
	return 0;
}

/* The selector as the transport's multipath knows it: `rr` is
 * dm's round-robin over iSCSI and NVMe's over nvme-tcp. A topology file's
 * dm selector (the shipped ones say st) gives way to NVMe's default,
 * numa; one asked for with --selector does not. */
static int family_selector(const struct sp_topo *t,
			   const struct sp_up_opts *o, struct sp_state *st,
			   char *err, size_t errlen)
{
	enum sp_sel_family fam = t->transport == SP_TRANSPORT_NVME_TCP
					 ? SP_SEL_FAMILY_NVME
					 : SP_SEL_FAMILY_DM;
	enum sp_selector kind;

	if (!sp_selector_for_family(st->sel.kind, fam, &kind)) {
		if (kind != st->sel.kind)
			sp_dm_selector_init(&st->sel, kind);
		return 0;
	}
	if (fam == SP_SEL_FAMILY_NVME && !o->has_selector) {
		sp_dm_selector_init(&st->sel, SP_SEL_NUMA);
		return 0;
	}
	return sp_errf(err, errlen, -EINVAL, "selector %s is %s; transport %s "
		       "runs %s", sp_selector_short_name(st->sel.kind),
		       fam == SP_SEL_FAMILY_NVME ? "dm-multipath's"
						 : "an NVMe iopolicy",
		       sp_transport_names[t->transport],
		       fam == SP_SEL_FAMILY_NVME ? "numa, rr or qd"
						 : "st, hst, ql, rr or ioa");
}

int sp_bringup_plan(const struct sp_topo *topo, const struct sp_up_opts *o,
		    struct sp_state *st, char *err, size_t errlen)
{
	struct sp_topo_resolved_path rp[SP_TOPO_MAX_PATHS];
	struct sp_topo t = *topo;
	const char *backing_dir = o->backing_dir ? o->backing_dir
						 : SP_BACKING_DIR;
	char safe[64];
	unsigned int tagnum;
	size_t i;
	int ret;

	/* the journal's folder; the backing file no longer lives there */
	if (!valid_tag(o->tag))
		return sp_errf(err, errlen, -EINVAL, "tag '%s' is not 4 "
			     "lower-case hex digits", o->tag);
	if (!t.npaths)
		return sp_errf(err, errlen, -EINVAL, "%s has no paths", t.file);
	if (store_io_override(&(int){ 0 }))
		return sp_errf(err, errlen, -EINVAL, "SLOWPATH_STORE_IO=%s: "
			     "want pool or inline", getenv("SLOWPATH_STORE_IO"));
	if (o->has_mech)
		for (i = 0; i < t.npaths; i++)
			t.paths[i].mech = o->mech;
	if (o->has_transport)
		t.transport = o->transport;
	ret = nvme_delays(&t, o, err, errlen);
	if (!ret)
		ret = sp_topo_resolve(&t, o->unit_ns, rp, err, errlen);
	if (!ret)
		ret = nvme_serial(&t, rp, err, errlen);
	if (!ret)
		ret = add_serial_base(&t, o->serial_base_ns, rp, err, errlen);
	if (!ret)
		ret = scale_delays(&t, o->scale, rp, err, errlen);
	if (ret)
		return ret;

	sp_state_init(st);
	tagnum = (unsigned int)strtoul(o->tag, NULL, 16);
	snprintf(st->topology, sizeof(st->topology), "%s", t.name);
	snprintf(st->topo_file, sizeof(st->topo_file), "%s", t.file);
	snprintf(st->tag, sizeof(st->tag), "%s", o->tag);
	iqn_safe(t.name, safe, sizeof(safe));
	snprintf(st->iqn, sizeof(st->iqn), "%s%s", SP_UP_IQN_PREFIX, safe);
	if (strncmp(t.map_name, SP_TOPO_MAP_PREFIX,
		    strlen(SP_TOPO_MAP_PREFIX)))
		return sp_errf(err, errlen, -EINVAL, "%s: map_name '%s' does not "
			     "start with '%s'", t.file, t.map_name,
			     SP_TOPO_MAP_PREFIX);
	snprintf(st->map_name, sizeof(st->map_name), "%s", t.map_name);
	snprintf(st->map_uuid, sizeof(st->map_uuid), "%s%s-%s",
		 SP_UP_UUID_PREFIX, safe, o->tag);
	if (t.backing_file[0]) {
		snprintf(st->backing, sizeof(st->backing), "%s",
			 t.backing_file);
	} else if ((size_t)snprintf(st->backing, sizeof(st->backing),
				    "%s/%s-%s.img", backing_dir, safe, o->tag)
		   >= sizeof(st->backing)) {
		return sp_errf(err, errlen, -ENAMETOOLONG, "backing directory "
			     "'%s' is too long", backing_dir);
	}
	if (strpbrk(st->backing, " \t\n") || strpbrk(st->topo_file, " \t\n"))
		return sp_errf(err, errlen, -EINVAL, "'%s': slowpath cannot "
			     "record paths with blanks in them",
			     strpbrk(st->backing, " \t\n") ? st->backing
							    : st->topo_file);
	st->transport = t.transport;
	st->inline_data = t.inline_data_bytes;
	if (t.transport == SP_TRANSPORT_NVME_TCP &&
	    sp_snprintf(st->nqn, sizeof(st->nqn), "%s%s-%s", SP_UP_NQN_PREFIX,
			safe, o->tag))
		return sp_errf(err, errlen, -ENAMETOOLONG, "nqn too long");
	st->size_bytes = t.size_bytes;
	st->scale = o->scale > 1 ? o->scale : 1;
	st->sel = o->has_selector ? o->sel : t.selector;
	st->sel.hst_build = o->hst_build;
	ret = family_selector(&t, o, st, err, errlen);
	if (ret)
		return ret;
	st->init = t.init;

	st->npaths = t.npaths;
	for (i = 0; i < t.npaths; i++) {
		struct sp_state_path *p = &st->paths[i];
		const struct sp_topo_resolved_path *r = &rp[i];

		p->index = r->index;
		snprintf(p->label, sizeof(p->label), "%s", r->label);
		snprintf(p->netns, sizeof(p->netns), "%s%s-%u",
			 SP_UP_NETNS_PREFIX, o->tag, p->index);
		/* IFNAMSIZ is 16: "spu" + tag + 'h' + two digits fits */
		snprintf(p->host_if, sizeof(p->host_if), "%s%sh%u",
			 SP_UP_IF_PREFIX, o->tag, p->index);
		snprintf(p->target_if, sizeof(p->target_if), "%s%st%u",
			 SP_UP_IF_PREFIX, o->tag, p->index);
		snprintf(p->initiator_ip, sizeof(p->initiator_ip), "%s",
			 r->initiator_ip);
		snprintf(p->target_ip, sizeof(p->target_ip), "%s",
			 r->target_ip);
		p->prefix_len = r->prefix_len;
		p->portal_port = t.transport == SP_TRANSPORT_NVME_TCP
					 ? SP_NVME_TCP_PORT : SP_PORTAL_PORT;
		/* one block of 16 control ports per tag keeps two ups'
		 * tgtds apart; tgtd keeps the port in a short, < 32768 */
		p->ctl_port = 20000 + (tagnum % 700) * 16 + p->index - 1;
		p->mech = r->mech;
		p->dist = r->dist;
		p->read_ns = r->backend_read_ns;
		p->write_ns = r->backend_write_ns;
		p->jitter_ns = r->backend_jitter_ns;
		p->netem_ns = r->netem_delay_ns;
		p->netem_jitter_ns = r->netem_jitter_ns;
		p->relative_throughput = r->relative_throughput;
		p->servers = r->servers;
		p->service_ns = r->backend_service_ns;
		p->cpumask = r->cpumask;
	}
	return 0;
}

/* "N: eth0    inet 10.0.2.15/24 brd ..." lines */
int sp_bringup_addr_clash(const struct sp_state *st, const char *ip_addr,
			  char *err, size_t errlen)
{
	const char *line = ip_addr;
	size_t i;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[512], ifname[64] = "", cidr[64] = "";
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *inet;
		uint32_t addr;
		int alen;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : NULL;
		inet = strstr(buf, " inet ");
		if (!inet || sscanf(buf, "%*u: %63s", ifname) != 1 ||
		    sscanf(inet, " inet %63s", cidr) != 1 ||
		    sp_topo_parse_cidr(cidr, &addr, &alen))
			continue;
		for (i = 0; i < st->npaths; i++) {
			const struct sp_state_path *p = &st->paths[i];
			uint32_t mine;
			int mlen;
			char pc[40];

			snprintf(pc, sizeof(pc), "%s/%d", p->initiator_ip,
				 p->prefix_len);
			if (sp_topo_parse_cidr(pc, &mine, &mlen))
				continue;
			if (sp_topo_cidr_overlap(mine, mlen, addr, alen))
				return sp_errf(err, errlen, -EADDRINUSE,
					     "address clash: path %s wants "
					     "%s but %s already has %s",
					     p->label, pc, ifname, cidr);
		}
	}
	return 0;
}

/* Target: IQN ... Current Portal: IP:PORT,TPGT ... Attached scsi disk sdX */
int sp_bringup_session_disk(const char *text, const char *iqn,
			    const char *ip, unsigned int port, char *disk,
			    size_t len)
{
	char want[64], target[256] = "", portal[64] = "";
	const char *line = text;

	snprintf(want, sizeof(want), "%s:%u", ip, port);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[512], word[64];
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *s;

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		line = nl ? nl + 1 : NULL;
		for (s = buf; *s == ' ' || *s == '\t'; s++)
			;
		if (sscanf(s, "Target: %255s", target) == 1) {
			portal[0] = '\0';
		} else if (sscanf(s, "Current Portal: %63[^,]", portal) == 1) {
			continue;
		} else if (sscanf(s, "Attached scsi disk %63s", word) == 1 &&
			   !strcmp(target, iqn) && !strcmp(portal, want)) {
			if (strlen(word) >= len)
				return -ENOSPC;
			strcpy(disk, word);
			return 0;
		}
	}
	return -ENOENT;
}

void sp_bringup_scsi_ids(const struct sp_state *st, char *id, size_t idlen,
			 char *sn, size_t snlen)
{
	/* tgt keeps at most 36 bytes of either */
	snprintf(id, idlen, "slowpath-%.20s-%s", st->topology, st->tag);
	snprintf(sn, snlen, "SP%s", st->tag);
}

int sp_bringup_bsopts(const struct sp_state_path *p, const char *ctl,
		      char *buf, size_t len)
{
	struct delay_opts o;

	delay_opts_defaults(&o);
	o.read_delay_ns = p->read_ns;
	o.write_delay_ns = p->write_ns;
	o.jitter_ns = p->jitter_ns;
	if (p->servers) {
		o.service_ns = p->service_ns;
		o.servers = p->servers;
	}
	/* paretonormal is netem's only (topo_check keeps it off the
	 * store's jitter): then the store has no jitter to shape */
	if (p->dist == SP_DIST_PARETONORMAL && p->jitter_ns)
		return -EINVAL;
	if (p->dist != SP_DIST_PARETONORMAL)
		o.dist = p->dist;
	/* On exact time a deadline is met exactly by a timer, and a
	 * busy-wait never ends: the clock stands still while the CPU works.
	 * Nor does a worker thread buy anything there, and handing each
	 * command to one and back costs system calls, each a ptrace stop of
	 * the guest (docs/lab.md, make bench-syscalls). */
	if (sp_machine_exact_time())
		o.poll_max_ns = 0;
	/* where the I/O runs is fixed when the LUN is made (ctl given); a
	 * ctl line at run time says nothing of it */
	if (ctl && sp_machine_exact_time())
		o.io = DELAY_IO_INLINE;
	if (ctl && store_io_override(&o.io))
		return -EINVAL;
	o.ctl = ctl;
	return delay_opts_format_kv(&o, buf, len);
}

void sp_bringup_ctl_dir(const char *state_dir, const struct sp_state_path *p,
			char *buf, size_t len)
{
	snprintf(buf, len, "%s/ctl-%u", state_dir, p->index);
}

void sp_bringup_portal(const struct sp_state_path *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", p->target_ip, p->portal_port);
}

void sp_bringup_netem_spec(const struct sp_state_path *p,
			   struct sp_netem_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->has = SP_NETEM_HAS_DELAY;
	/* netem keeps whole microseconds */
	spec->delay_ns = p->netem_ns / SP_NSEC_PER_USEC * SP_NSEC_PER_USEC;
	/* a serial nvme-tcp path's target end also has its rate */
	if (sp_nvme_serial_path(p) &&
	    !sp_nvme_serial_rate(p->service_ns, SP_NVME_SERIAL_READ_WIRE,
				 &spec->rate_bps))
		spec->has |= SP_NETEM_HAS_RATE;
	if (p->netem_jitter_ns <= 0)
		return;
	spec->jitter_ns = p->netem_jitter_ns / SP_NSEC_PER_USEC *
			  SP_NSEC_PER_USEC;
	spec->dist = p->dist;
}
