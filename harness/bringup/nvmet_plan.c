/* The configfs plans of nvmet and their application (nvmet.h). The
 * plans are pure; every effect goes through struct sp_cfs_ops. */
#include "harness/bringup/nvmet.h"

#include "common/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct sp_cfs_step *add(struct sp_cfs_plan *plan, enum sp_cfs_op op,
			       int *ret)
{
	struct sp_cfs_step *s;

	if (plan->n == SP_NVMET_MAX_STEPS) {
		*ret = -ENOSPC;
		return NULL;
	}
	s = &plan->steps[plan->n++];
	memset(s, 0, sizeof(*s));
	s->op = op;
	return s;
}

static void mkdir_step(struct sp_cfs_plan *plan, int *ret, const char *dir)
{
	struct sp_cfs_step *s = add(plan, SP_CFS_MKDIR, ret);

	if (s && sp_snprintf(s->path, sizeof(s->path), "%s", dir))
		*ret = -ENOSPC;
}

static void write_step(struct sp_cfs_plan *plan, int *ret, const char *dir,
		       const char *attr, const char *text, const char *undo)
{
	struct sp_cfs_step *s = add(plan, SP_CFS_WRITE, ret);

	if (!s)
		return;
	if (sp_snprintf(s->path, sizeof(s->path), "%s/%s", dir, attr) ||
	    sp_snprintf(s->value, sizeof(s->value), "%s", text) ||
	    sp_snprintf(s->undo, sizeof(s->undo), "%s", undo ? undo : ""))
		*ret = -ENOSPC;
}

/* The subsystem nqn with namespace 1 on loop_dev, any host allowed. */
static int plan_subsys(const char *nqn, const char *loop_dev,
		       struct sp_cfs_plan *plan)
{
	char subsys[320], ns[352];
	int ret = 0;

	plan->n = 0;
	if (!sp_state_nqn_ok(nqn) || !sp_state_loop_ok(loop_dev))
		return -EINVAL;
	if (sp_snprintf(subsys, sizeof(subsys), "%s/subsystems/%s",
			SP_NVMET_CFS, nqn) ||
	    sp_snprintf(ns, sizeof(ns), "%s/namespaces/%d", subsys,
			SP_NVMET_NSID))
		return -ENOSPC;
	mkdir_step(plan, &ret, subsys);
	/* the ports listen only on addresses inside our namespaces; any
	 * host NQN may connect there (docs/nvme.md, "What is open") */
	write_step(plan, &ret, subsys, "attr_allow_any_host", "1", NULL);
	mkdir_step(plan, &ret, ns);
	/* a block device: Debian's nvmet gave a file namespace on the lab
	 * guest's overlay a size of 0 (tests/lab/250) */
	write_step(plan, &ret, ns, "device_path", loop_dev, NULL);
	write_step(plan, &ret, ns, "enable", "1", "0");
	return ret;
}

int sp_nvmet_plan_subsys(const struct sp_state *st, struct sp_cfs_plan *plan)
{
	return plan_subsys(st->nqn, st->loop_dev, plan);
}

int sp_nvmet_solo_nqn(const struct sp_state *st, const struct sp_state_path *p,
		      char *buf, size_t len)
{
	/* past 223 bytes (a buf of SP_NVMET_NQN_MAX) it is no NQN */
	if (sp_snprintf(buf, len, "%s.p%u", st->nqn, p->index))
		return -EINVAL;
	return sp_state_nqn_ok(buf) ? 0 : -EINVAL;
}

int sp_nvmet_plan_solo(const struct sp_state *st,
		       const struct sp_state_path *p, struct sp_cfs_plan *plan)
{
	char nqn[SP_NVMET_NQN_MAX];
	int ret = sp_nvmet_solo_nqn(st, p, nqn, sizeof(nqn));

	plan->n = 0;
	return ret ? ret : plan_subsys(nqn, st->loop_dev, plan);
}

/* port's link to the subsystem nqn, made from inside netns */
static void link_step(struct sp_cfs_plan *plan, int *ret, const char *port,
		      const char *nqn, const char *netns)
{
	struct sp_cfs_step *s = add(plan, SP_CFS_SYMLINK, ret);

	if (s && (sp_snprintf(s->path, sizeof(s->path), "%s/subsystems/%s",
			      port, nqn) ||
		  sp_snprintf(s->value, sizeof(s->value), "%s/subsystems/%s",
			      SP_NVMET_CFS, nqn) ||
		  sp_snprintf(s->netns, sizeof(s->netns), "%s", netns)))
		*ret = -ENOSPC;
}

int sp_nvmet_plan_port(const struct sp_state *st,
		       const struct sp_state_path *p, struct sp_cfs_plan *plan)
{
	char port[320], svc[16], inl[24], solo[SP_NVMET_NQN_MAX];
	int ret = 0;

	plan->n = 0;
	if (!sp_state_nqn_ok(st->nqn) || !p->ctl_port || !p->target_ip[0] ||
	    strpbrk(p->target_ip, "/ \t\n") ||
	    sp_nvmet_solo_nqn(st, p, solo, sizeof(solo)))
		return -EINVAL;
	if (sp_snprintf(port, sizeof(port), "%s/ports/%u", SP_NVMET_CFS,
			p->ctl_port))
		return -ENOSPC;
	snprintf(svc, sizeof(svc), "%d", SP_NVME_TCP_PORT);
	mkdir_step(plan, &ret, port);
	write_step(plan, &ret, port, "addr_trtype", "tcp", NULL);
	write_step(plan, &ret, port, "addr_adrfam", "ipv4", NULL);
	write_step(plan, &ret, port, "addr_traddr", p->target_ip, NULL);
	write_step(plan, &ret, port, "addr_trsvcid", svc, NULL);
	/* before the link below enables the port: nvmet refuses it after */
	if (st->inline_data) {
		snprintf(inl, sizeof(inl), "%llu",
			 (unsigned long long)st->inline_data);
		write_step(plan, &ret, port, "param_inline_data_size", inl,
			   NULL);
	}
	link_step(plan, &ret, port, st->nqn, p->netns);
	link_step(plan, &ret, port, solo, p->netns);
	return ret;
}

int sp_nvmet_ana_state_ok(const char *state)
{
	return !strcmp(state, "optimized") || !strcmp(state, "non-optimized") ||
	       !strcmp(state, "inaccessible");
}

int sp_nvmet_plan_ana(const struct sp_state_path *p, const char *state,
		      struct sp_cfs_plan *plan)
{
	char group[352];
	int ret = 0;

	plan->n = 0;
	if (!p->ctl_port || !sp_nvmet_ana_state_ok(state))
		return -EINVAL;
	if (sp_snprintf(group, sizeof(group), "%s/ports/%u/ana_groups/%d",
			SP_NVMET_CFS, p->ctl_port, SP_NVMET_ANA_GRPID))
		return -ENOSPC;
	write_step(plan, &ret, group, "ana_state", state, NULL);
	return ret;
}

static const char *op_name(enum sp_cfs_op op)
{
	return op == SP_CFS_MKDIR ? "mkdir" : op == SP_CFS_WRITE ? "write"
								   : "symlink";
}

int sp_nvmet_apply(const struct sp_cfs_ops *ops,
		   const struct sp_cfs_plan *plan, char *err, size_t errlen)
{
	size_t i;
	int ret;

	for (i = 0; i < plan->n; i++) {
		const struct sp_cfs_step *s = &plan->steps[i];

		if (s->op == SP_CFS_MKDIR)
			ret = ops->mkdir(ops->ctx, s->path);
		else if (s->op == SP_CFS_WRITE)
			ret = ops->write(ops->ctx, s->path, s->value);
		else
			ret = ops->symlink(ops->ctx, s->netns, s->value,
					   s->path);
		if (ret)
			return sp_errf(err, errlen, ret, "nvmet: %s %s%s%s: %s",
				       op_name(s->op), s->path,
				       s->op == SP_CFS_WRITE ? " = " : "",
				       s->op == SP_CFS_WRITE ? s->value : "",
				       strerror(-ret));
	}
	return 0;
}

int sp_nvmet_undo(const struct sp_cfs_ops *ops,
		  const struct sp_cfs_plan *plan, char *err, size_t errlen)
{
	size_t i;
	int ret, first = 0;

	for (i = plan->n; i-- > 0;) {
		const struct sp_cfs_step *s = &plan->steps[i];

		if (s->op == SP_CFS_MKDIR)
			ret = ops->rmdir(ops->ctx, s->path);
		else if (s->op == SP_CFS_SYMLINK)
			ret = ops->unlink(ops->ctx, s->path);
		else if (s->undo[0])
			ret = ops->write(ops->ctx, s->path, s->undo);
		else
			ret = 0;
		if (!ret || ret == -ENOENT || first)
			continue;
		first = sp_errf(err, errlen, ret, "nvmet %s: %s", s->path,
				strerror(-ret));
	}
	return first;
}
