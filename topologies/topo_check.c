/* The checks that need the whole topology file. */
#include "topologies/topo_internal.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

static int valid_map_name(const char *s)
{
	if (strncmp(s, SP_TOPO_MAP_PREFIX, strlen(SP_TOPO_MAP_PREFIX)) ||
	    !s[strlen(SP_TOPO_MAP_PREFIX)])
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.+", *s))
			return 0;
	return 1;
}

/* The selector's arguments and the failover keys, against each other. */
static int check_global_keys(struct sp_topo_parser *p)
{
	const struct sp_topo *t = p->topo;

	if (t->transport == SP_TRANSPORT_NVME_TCP && t->init.queue_bio)
		return sp_topo_perr(p, "transport nvme-tcp with queue_mode = bio: "
			    "the queue mode is dm-multipath's, native NVMe "
			    "multipath has none");
	if (t->inline_data_bytes && t->transport != SP_TRANSPORT_NVME_TCP) {
		p->line = t->inline_data_line;
		return sp_topo_perr(p, "inline_data is nvmet-tcp's in-capsule "
			    "data: for transport nvme-tcp only");
	}
	/* nvmet has no delay store: a serial nvme-tcp path is netem's
	 * rate, one transmitter per direction, which is one server
	 * (docs/nvme.md, "Serial service") */
	if (t->transport == SP_TRANSPORT_NVME_TCP && t->servers > 1) {
		p->line = t->transport_line;
		return sp_topo_perr(p, "transport nvme-tcp with servers = %u: "
			    "an nvme-tcp path serves through netem's rate, "
			    "one command at a time; set servers = 1 or 0",
			    t->servers);
	}
	if (t->selector.kind != SP_SEL_HST &&
	    (t->selector.base_weight >= 0 ||
	     t->selector.threshold_multiplier >= 0))
		return sp_topo_perr(p, "base_weight/threshold_multiplier are for "
			    "selector hst, not %s",
			    sp_selector_short_name(t->selector.kind));
	if (t->init.has_queue_if_no_path && t->init.no_path_retry != SP_NPR_UNSET &&
	    t->init.queue_if_no_path !=
	    (t->init.no_path_retry == SP_NPR_QUEUE || t->init.no_path_retry > 0))
		return sp_topo_perr(p, "queue_if_no_path = %s contradicts "
			    "no_path_retry (queue or N queues, fail or 0 does "
			    "not): give one of them",
			    t->init.queue_if_no_path ? "yes" : "no");
	return 0;
}

/* Path i's keys against the selector, its mechanism and servers. */
static int check_path_keys(struct sp_topo_parser *p, size_t i)
{
	const struct sp_topo *t = p->topo;
	const struct sp_topo_path *path = &t->paths[i];

	p->line = path->line;
	if (path->relative_throughput != 1 && t->selector.kind != SP_SEL_ST)
		return sp_topo_perr(p, "path %zu: relative_throughput is for "
			    "selector st, not %s", i + 1,
			    sp_selector_short_name(t->selector.kind));
	if (path->dist == SP_DIST_PARETONORMAL &&
	    path->jitter.kind != SP_JITTER_NONE && path->mech != SP_MECH_NETEM)
		return sp_topo_perr(p, "path %zu: distribution paretonormal is "
			    "netem's only; the tgt delay store knows "
			    "uniform, normal and pareto", i + 1);
	/* nvme-tcp's serial stage is a netem rate: a fixed time per byte,
	 * no distribution to draw it from */
	if (t->servers && t->transport == SP_TRANSPORT_NVME_TCP &&
	    path->jitter.kind != SP_JITTER_NONE)
		return sp_topo_perr(p, "path %zu: jitter with servers = %u on "
			    "nvme-tcp: its serial service is netem's rate, "
			    "the same time for every 4k I/O", i + 1,
			    t->servers);
	if (t->servers && path->mech != SP_MECH_BACKEND &&
	    t->transport != SP_TRANSPORT_NVME_TCP)
		return sp_topo_perr(p, "path %zu: servers = %u needs "
			    "mechanism backend: only the tgt delay store "
			    "serves commands in turn", i + 1, t->servers);
	if (t->servers && path->has_delay &&
	    path->read_delay_ns != path->write_delay_ns)
		return sp_topo_perr(p, "path %zu: with servers = %u the "
			    "delay is a service time for every command: "
			    "read_delay and write_delay must be equal",
			    i + 1, t->servers);
	if (path->mech == SP_MECH_NETEM && path->has_delay &&
	    path->read_delay_ns != path->write_delay_ns)
		return sp_topo_perr(p, "path %zu: netem delays every packet "
			    "alike, so read_delay and write_delay must "
			    "be equal (or use mechanism backend/both)",
			    i + 1);
	return 0;
}

/* addresses = a.b.c.d/len: inside slowpath's range, no host bits, room
 * for every path's subnet; into t->plan_addr/plan_len. */
static int check_address_plan(struct sp_topo_parser *p)
{
	struct sp_topo *t = p->topo;
	uint32_t plan, need, have;
	char a[16];
	int len;

	p->line = p->addresses_line;
	if (sp_topo_parse_cidr(p->addresses_buf, &plan, &len))
		return sp_topo_perr(p, "bad address plan '%s': want a.b.c.d/len",
			    p->addresses_buf);
	if (len < SP_TOPO_RANGE_LEN ||
	    !sp_topo_cidr_overlap(plan, len, SP_TOPO_RANGE_ADDR,
				  SP_TOPO_RANGE_LEN))
		return sp_topo_perr(p, "address plan '%s' is outside 198.18.0.0/15, "
			    "the only range slowpath uses", p->addresses_buf);
	if (plan & ~sp_topo_mask(len))
		return sp_topo_perr(p, "address plan '%s' has host bits set (did you "
			    "mean %s/%d?)", p->addresses_buf,
			    sp_topo_fmt_addr(plan & sp_topo_mask(len), a, sizeof(a)),
			    len);
	if (len > t->path_prefix)
		return sp_topo_perr(p, "address plan '%s' is smaller than one /%d "
			    "path subnet", p->addresses_buf, t->path_prefix);
	have = 1u << (t->path_prefix - len) > SP_TOPO_MAX_PATHS
		       ? SP_TOPO_MAX_PATHS
		       : 1u << (t->path_prefix - len);
	need = (uint32_t)t->npaths;
	if (need > have)
		return sp_topo_perr(p, "address plan '%s' is too small for %zu paths "
			    "of /%d each", p->addresses_buf, t->npaths,
			    t->path_prefix);
	t->plan_addr = plan;
	t->plan_len = len;
	return 0;
}

/* Each path's subnet: the next one of the plan when it names none,
 * else its own checked to lie inside the plan. */
static int place_subnets(struct sp_topo_parser *p)
{
	struct sp_topo *t = p->topo;
	uint32_t plan = t->plan_addr;
	int len = t->plan_len;
	char a[16];
	size_t i;

	for (i = 0; i < t->npaths; i++) {
		struct sp_topo_path *path = &t->paths[i];

		p->line = path->line;
		if (!path->has_subnet) {
			path->subnet = plan + (uint32_t)i *
				       (1u << (32 - t->path_prefix));
			path->subnet_len = t->path_prefix;
			continue;
		}
		sp_topo_fmt_addr(path->subnet, a, sizeof(a));
		if (path->subnet_len > 30 || path->subnet_len < len)
			return sp_topo_perr(p, "path %zu: subnet %s/%d must be /30 or "
				    "larger and inside %s", i + 1, a,
				    path->subnet_len, p->addresses_buf);
		if (path->subnet & ~sp_topo_mask(path->subnet_len))
			return sp_topo_perr(p, "path %zu: subnet %s/%d has host bits "
				    "set", i + 1, a, path->subnet_len);
		if (!sp_topo_cidr_overlap(path->subnet, path->subnet_len, plan,
					  len))
			return sp_topo_perr(p, "path %zu: subnet %s/%d is outside the "
				    "address plan %s", i + 1, a,
				    path->subnet_len, p->addresses_buf);
	}
	return 0;
}

static int check_subnet_overlaps(struct sp_topo_parser *p)
{
	const struct sp_topo *t = p->topo;
	char a[16], b[16];
	size_t i, j;

	for (i = 0; i < t->npaths; i++) {
		for (j = 0; j < i; j++) {
			if (!sp_topo_cidr_overlap(t->paths[i].subnet,
						  t->paths[i].subnet_len,
						  t->paths[j].subnet,
						  t->paths[j].subnet_len))
				continue;
			p->line = t->paths[i].has_subnet ? t->paths[i].line
							 : t->paths[j].line;
			return sp_topo_perr(p, "path %zu's subnet %s/%d overlaps path "
				    "%zu's %s/%d", i + 1,
				    sp_topo_fmt_addr(t->paths[i].subnet, a,
						     sizeof(a)),
				    t->paths[i].subnet_len, j + 1,
				    sp_topo_fmt_addr(t->paths[j].subnet, b,
						     sizeof(b)),
				    t->paths[j].subnet_len);
		}
	}
	return 0;
}

/* Everything that needs the whole file: selector arguments, map name,
 * the address plan and the paths' subnets within it. */
int sp_topo_check_whole(struct sp_topo_parser *p)
{
	struct sp_topo *t = p->topo;
	size_t i;
	int ret;

	p->line = 0;
	ret = check_global_keys(p);
	for (i = 0; !ret && i < t->npaths; i++)
		ret = check_path_keys(p, i);
	if (ret)
		return ret;
	p->line = 0;	/* the whole file's, not the last path's */
	if (!valid_map_name(t->map_name))
		return sp_topo_perr(p, "map_name '%s' must start with '%s' and hold "
			    "only letters, digits and -_.+", t->map_name,
			    SP_TOPO_MAP_PREFIX);
	ret = check_address_plan(p);
	if (!ret)
		ret = place_subnets(p);
	return ret ? ret : check_subnet_overlaps(p);
}
