/* `slowpath up`: checks first (nothing changes until they pass), then
 * namespaces, veths and tgtds for every path at once, targets (address
 * ACL and CHAP), netem, discovery and one login per IQN, the disks, the
 * map. Every step is journaled before it is done; any failure or
 * SIGINT/SIGTERM runs `down` on what the journal says was begun. */
#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_chap.h"

#include "common/log.h"
#include "common/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t sp_bringup_interrupted;

struct up {
	const struct sp_sys_ops *ops;
	struct sp_state *st;
	const char *dir;
	int fd;
	char *err;
	size_t errlen;
	int64_t t0;
	char chap_secret[SP_CHAP_SECRET_MAX];
};

static int failf(struct up *u, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failf(struct up *u, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->err, u->errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static int journal(struct up *u, const char *line)
{
	int ret = sp_state_append(u->fd, line);

	return ret ? failf(u, ret, "cannot write the state in %s: %s",
			   u->dir, strerror(-ret)) : 0;
}

/* Written before the step is done: what `down` must look for. */
static int begin(struct up *u, enum sp_step step, struct sp_state_path *p)
{
	char line[64];

	if (sp_bringup_interrupted)
		return failf(u, -EINTR, "interrupted");
	sp_debug("%.1f s: %s %s", (double)(sp_now_ns() - u->t0) / 1e9,
		 sp_step_names[step], p ? p->label : "");
	if (p) {
		snprintf(line, sizeof(line), "begin %s %u\n",
			 sp_step_names[step], p->index);
		p->steps |= 1u << step;
	} else {
		snprintf(line, sizeof(line), "begin %s\n",
			 sp_step_names[step]);
		u->st->steps |= 1u << step;
	}
	return journal(u, line);
}

/* A run whose failure ends `up`: what names the step. */
#define RUN(u, what, ...) do {						\
	int r_ = sp_sys_runv((u)->ops, NULL, 0, __VA_ARGS__, NULL);	\
	if (r_)								\
		return sp_sys_failed((u)->ops, r_, what, (u)->err,	\
				     (u)->errlen);			\
} while (0)

static int write_plan(struct up *u)
{
	char buf[2048], path[256];
	size_t i;
	int ret, created = 0;

	u->st->backing_created = !u->ops->exists(u->ops->ctx,
						 u->st->backing);
	ret = sp_state_fmt_header(u->st, buf, sizeof(buf));
	if (!ret)
		ret = journal(u, buf);
	for (i = 0; !ret && i < u->st->npaths; i++) {
		ret = sp_state_fmt_path(&u->st->paths[i], buf, sizeof(buf));
		if (!ret)
			ret = journal(u, buf);
	}
	if (!ret) {
		snprintf(buf, sizeof(buf), "store %s\n", u->st->bstype);
		ret = journal(u, buf);
	}
	if (!ret && !sp_state_fmt_scale(u->st, buf, sizeof(buf)) && buf[0])
		ret = journal(u, buf);
	if (!ret && !sp_state_fmt_initiator(u->st, buf, sizeof(buf)) && buf[0])
		ret = journal(u, buf);
	if (!ret && !sp_state_fmt_nvme(u->st, buf, sizeof(buf)) && buf[0])
		ret = journal(u, buf);
	if (ret)
		return ret;
	ret = begin(u, SP_STEP_BACKING, NULL);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s", u->st->backing);
	ret = u->ops->make_file(u->ops->ctx, path, u->st->size_bytes,
				&created);
	if (ret == -ELOOP)
		return failf(u, ret, "backing file %s is a symbolic link: "
			     "slowpath writes only a regular file", path);
	if (ret == -EINVAL)
		return failf(u, ret, "backing file %s is not a regular file "
			     "(a device?): slowpath writes only a regular "
			     "file", path);
	if (ret == -EFBIG)
		return failf(u, ret, "backing file %s is smaller than the "
			     "topology's size (%.1f GiB)", path,
			     sp_gib(u->st->size_bytes));
	return ret ? failf(u, ret, "cannot create backing file %s: %s", path,
			   strerror(-ret)) : 0;
}

/* iscsiadm -m session reads sysfs and answers without iscsid; only
 * iscsid's abstract control socket says it is there. */
static int iscsid_answers(struct up *u)
{
	static char unix_socks[262144];

	if (u->ops->read_file(u->ops->ctx, "/proc/net/unix", unix_socks,
			      sizeof(unix_socks)))
		return 0;
	return strstr(unix_socks, "@ISCSIADM_ABSTRACT_NAMESPACE") != NULL;
}

static int ensure_iscsid(struct up *u)
{
	const char *argv[] = { "iscsid", "-f", NULL };
	char log[512], line[64];
	pid_t pid;
	int i, ret;

	if (iscsid_answers(u))
		return 0;
	ret = begin(u, SP_STEP_ISCSID, NULL);
	if (ret)
		return ret;
	snprintf(log, sizeof(log), "%s/iscsid.log", u->dir);
	ret = u->ops->spawn(u->ops->ctx, NULL, argv, log, &pid);
	if (ret)
		return failf(u, ret, "cannot start iscsid: %s", strerror(-ret));
	u->st->iscsid_pid = pid;
	u->st->iscsid_start = sp_bringup_pid_start(u->ops, pid);
	ret = sp_state_fmt_pid("iscsid", 0, pid, u->st->iscsid_start, line,
			       sizeof(line));
	if (!ret)
		ret = journal(u, line);
	for (i = 0; !ret && i < 100; i++) {
		if (iscsid_answers(u))
			return 0;
		u->ops->sleep_ms(u->ops->ctx, 100);
	}
	return ret ? ret : failf(u, -ETIMEDOUT, "iscsid did not answer "
				 "(log: %s)", log);
}

/* A failed net op as "path a: WHAT: ERROR". */
static int net_failed(struct up *u, const struct sp_state_path *p, int ret,
		      const char *what)
{
	return ret ? failf(u, ret, "path %s: %s: %s", p->label, what,
			   strerror(-ret)) : 0;
}

static int path_net(struct up *u, struct sp_state_path *p)
{
	const struct sp_net_ops *net = u->ops->net;
	char cidr[40], tcidr[40], what[96];
	int ret;

	snprintf(what, sizeof(what), "namespace %s", p->netns);
	ret = begin(u, SP_STEP_NETNS, p);
	if (!ret)
		ret = net_failed(u, p, net->netns_add(net->ctx, p->netns),
				 what);
	if (!ret)
		ret = begin(u, SP_STEP_VETH, p);
	if (ret)
		return ret;
	snprintf(cidr, sizeof(cidr), "%s/%d", p->initiator_ip, p->prefix_len);
	snprintf(tcidr, sizeof(tcidr), "%s/%d", p->target_ip, p->prefix_len);
	snprintf(what, sizeof(what), "veth %s <-> %s", p->host_if,
		 p->target_if);
	ret = net->veth_add(net->ctx, p->host_if, p->target_if, p->netns);
	if (!ret)
		ret = net->addr_add(net->ctx, NULL, p->host_if, cidr);
	if (!ret)
		ret = net->link_set(net->ctx, NULL, p->host_if, 1);
	if (!ret)
		ret = net->addr_add(net->ctx, p->netns, p->target_if, tcidr);
	if (!ret)
		ret = net->link_set(net->ctx, p->netns, p->target_if, 1);
	if (!ret)
		ret = net->link_set(net->ctx, p->netns, "lo", 1);
	return net_failed(u, p, ret, what);
}

static int path_tgtd(struct up *u, struct sp_state_path *p)
{
	char port[16], portal[64], log[512], line[64];
	const char *argv[12];
	pid_t pid;
	int ret;

	ret = begin(u, SP_STEP_TGTD, p);
	if (ret)
		return ret;
	snprintf(port, sizeof(port), "%u", p->ctl_port);
	snprintf(portal, sizeof(portal), "portal=%s:%u", p->target_ip,
		 p->portal_port);
	snprintf(log, sizeof(log), "%s/tgtd-%u.log", u->dir, p->index);
	argv[0] = "tgtd"; argv[1] = "-f"; argv[2] = "-C"; argv[3] = port;
	argv[4] = "--iscsi"; argv[5] = portal; argv[6] = NULL;
	ret = u->ops->spawn(u->ops->ctx, p->netns, argv, log, &pid);
	if (ret)
		return failf(u, ret, "path %s: cannot start tgtd: %s",
			     p->label, strerror(-ret));
	p->tgtd_pid = pid;
	/* so down never signals a later process under the same PID */
	p->tgtd_start = sp_bringup_pid_start(u->ops, pid);
	ret = sp_state_fmt_pid("tgtd", p->index, pid, p->tgtd_start, line,
			       sizeof(line));
	return ret ? failf(u, ret, "path %s: pid line", p->label)
		   : journal(u, line);
}

static int tgtd_wait(struct up *u, struct sp_state_path *p, unsigned int s)
{
	char port[16], log[512], tail[512] = "";
	unsigned int i;

	int64_t deadline = sp_now_ns() + (int64_t)s * SP_NSEC_PER_SEC;

	snprintf(port, sizeof(port), "%u", p->ctl_port);
	for (i = 0; i == 0 || sp_now_ns() < deadline; i++) {
		if (sp_bringup_interrupted)
			return failf(u, -EINTR, "interrupted");
		if (!sp_sys_runv(u->ops, NULL, 0, "tgtadm", "-C", port,
				 "--op", "show", "--mode", "sys", NULL))
			return 0;
		if (!u->ops->pid_is(u->ops->ctx, p->tgtd_pid, "tgtd"))
			break;	/* it died */
		u->ops->sleep_ms(u->ops->ctx, 200);
	}
	snprintf(log, sizeof(log), "%s/tgtd-%u.log", u->dir, p->index);
	u->ops->read_file(u->ops->ctx, log, tail, sizeof(tail));
	return failf(u, -EIO, "path %s: tgtd on control port %u did not come "
		     "up: %s", p->label, p->ctl_port, tail[0] ? tail : "");
}

static int path_target(struct up *u, struct sp_state_path *p)
{
	char port[16], bsopts[512], params[160], id[64], sn[64], what[64];
	char ctl[256];
	int ret;

	ret = begin(u, SP_STEP_TARGET, p);
	if (ret)
		return ret;
	snprintf(port, sizeof(port), "%u", p->ctl_port);
	snprintf(what, sizeof(what), "path %s: tgtadm", p->label);
	sp_bringup_scsi_ids(u->st, id, sizeof(id), sn, sizeof(sn));
	snprintf(params, sizeof(params), "scsi_id=%s,scsi_sn=%s", id, sn);
	/* our own control directory, so down knows where it is */
	sp_bringup_ctl_dir(u->dir, p, ctl, sizeof(ctl));
	ret = sp_bringup_bsopts(p, ctl, bsopts, sizeof(bsopts));
	if (ret)
		return failf(u, ret, "path %s: bsopts %s", p->label,
			     ret == -ENOSPC ? "too long" : strerror(-ret));
	RUN(u, what, "tgtadm", "-C", port, "--lld", "iscsi", "--op", "new",
	    "--mode", "target", "--tid", "1", "-T", u->st->iqn);
	if (!strcmp(u->st->bstype, "delay"))
		RUN(u, what, "tgtadm", "-C", port, "--lld", "iscsi", "--op",
		    "new", "--mode", "logicalunit", "--tid", "1", "--lun", "1",
		    "-b", u->st->backing, "--bstype", "delay", "--bsopts",
		    bsopts);
	else
		RUN(u, what, "tgtadm", "-C", port, "--lld", "iscsi", "--op",
		    "new", "--mode", "logicalunit", "--tid", "1", "--lun", "1",
		    "-b", u->st->backing);
	RUN(u, what, "tgtadm", "-C", port, "--lld", "iscsi", "--op", "update",
	    "--mode", "logicalunit", "--tid", "1", "--lun", "1", "--params",
	    params);
	/* the ACL: only this path's initiator address may log in */
	RUN(u, what, "tgtadm", "-C", port, "--lld", "iscsi", "--op", "bind",
	    "--mode", "target", "--tid", "1", "-I", p->initiator_ip);
	/* and only with the topology's secret */
	ret = sp_bringup_chap_target(u->ops, p, u->st->chap_user,
				     u->chap_secret, u->err, u->errlen);
	if (ret)
		return ret;
	if (!p->netem_ns && !p->netem_jitter_ns)
		return 0;
	ret = begin(u, SP_STEP_NETEM, p);
	return ret ? ret : sp_bringup_netem_apply(u->ops, p, u->err, u->errlen);
}

/* no_path_retry N: dm-multipath fails queued I/O N x 5 s after the last
 * path went. The timeout is the module's, for every map: what it was is
 * journaled first so down puts it back. */
static int queue_timeout(struct up *u)
{
	unsigned int want = sp_initiator_queue_timeout_s(&u->st->init);
	char now[32], line[48];
	unsigned long was;
	int ret;

	if (!want)
		return 0;
	if (u->ops->read_file(u->ops->ctx, SP_DM_QTIMEOUT_PARAM, now,
			      sizeof(now)))
		return failf(u, -ENOENT, "no_path_retry %d needs dm_multipath's "
			     "queue_if_no_path_timeout_secs (Linux 5.6 and "
			     "later), which %s does not have",
			     u->st->init.no_path_retry, SP_DM_QTIMEOUT_PARAM);
	was = strtoul(now, NULL, 10);
	u->st->has_qtimeout = 1;
	u->st->qtimeout_was = (unsigned int)was;
	snprintf(line, sizeof(line), "qtimeout %lu\n", was);
	ret = journal(u, line);
	if (ret)
		return ret;
	snprintf(now, sizeof(now), "%u\n", want);
	ret = u->ops->write_file(u->ops->ctx, SP_DM_QTIMEOUT_PARAM, now);
	return ret ? failf(u, ret, "cannot set %s: %s", SP_DM_QTIMEOUT_PARAM,
			   strerror(-ret)) : 0;
}

static int login_all(struct up *u)
{
	char portal[64], what[256];
	size_t i;
	int ret;

	for (i = 0; i < u->st->npaths; i++) {
		struct sp_state_path *p = &u->st->paths[i];

		ret = begin(u, SP_STEP_DISCOVERY, p);
		if (ret)
			return ret;
		sp_bringup_portal(p, portal, sizeof(portal));
		snprintf(what, sizeof(what), "path %s: iscsiadm discovery at "
			 "%s", p->label, portal);
		RUN(u, what, "iscsiadm", "-m", "discovery", "-t", "st", "-p",
		    portal);
	}
	for (i = 0; i < u->st->npaths; i++) {
		ret = begin(u, SP_STEP_LOGIN, &u->st->paths[i]);
		if (ret)
			return ret;
	}
	/* CHAP and timeouts into the records discovery made, before login
	 * reads them */
	ret = sp_bringup_node_settings(u->ops, u->st, u->chap_secret, u->err,
				       u->errlen);
	if (ret)
		return ret;
	/* one call logs in to every portal of the IQN in parallel */
	snprintf(what, sizeof(what), "iscsiadm login to %s", u->st->iqn);
	RUN(u, what, "iscsiadm", "-m", "node", "-T", u->st->iqn, "--login");
	return 0;
}

static int find_disks(struct up *u, unsigned int wait_s)
{
	static char out[65536];
	char path[128], dev[32], line[128];
	unsigned int i, found = 0;
	size_t k;
	int ret;

	/* by the clock: each iscsiadm takes seconds in a TCG guest */
	int64_t deadline = sp_now_ns() + (int64_t)wait_s * SP_NSEC_PER_SEC;

	for (i = 0; found < u->st->npaths &&
		    (i == 0 || sp_now_ns() < deadline); i++) {
		if (sp_bringup_interrupted)
			return failf(u, -EINTR, "interrupted");
		if (i)
			u->ops->sleep_ms(u->ops->ctx, 200);
		if (sp_sys_runv(u->ops, out, sizeof(out), "iscsiadm", "-m",
				"session", "-P3", NULL))
			continue;
		for (k = 0; k < u->st->npaths; k++) {
			struct sp_state_path *p = &u->st->paths[k];

			if (p->has_disk ||
			    sp_bringup_session_disk(out, u->st->iqn,
						    p->target_ip,
						    p->portal_port, p->disk,
						    sizeof(p->disk)))
				continue;
			snprintf(path, sizeof(path), "/sys/block/%s/dev",
				 p->disk);
			if (u->ops->read_file(u->ops->ctx, path, dev,
					      sizeof(dev)) ||
			    sscanf(dev, "%u:%u", &p->major, &p->minor) != 2)
				continue;
			p->has_disk = 1;
			found++;
			snprintf(line, sizeof(line), "disk %u %s %u:%u\n",
				 p->index, p->disk, p->major, p->minor);
			ret = journal(u, line);
			if (ret)
				return ret;
		}
	}
	if (found < u->st->npaths)
		return failf(u, -ETIMEDOUT, "only %u of %zu paths' disks "
			     "appeared within %u s", found, u->st->npaths,
			     wait_s);
	return 0;
}

static int make_map(struct up *u)
{
	struct sp_dm_map map;
	char table[4096], dmerr[SP_DM_ERRLEN], path[128], size[64], line[64];
	unsigned long long sectors;
	size_t i;
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/size",
		 u->st->paths[0].disk);
	if (u->ops->read_file(u->ops->ctx, path, size, sizeof(size)) ||
	    sscanf(size, "%llu", &sectors) != 1 || !sectors)
		return failf(u, -EIO, "cannot read the size of %s", path);
	u->st->sectors = sectors;
	snprintf(line, sizeof(line), "sectors %llu\n", sectors);
	ret = journal(u, line);
	if (ret)
		return ret;
	sp_dm_map_init(&map, u->st->sel.kind);
	map.sel = u->st->sel;
	map.queue_if_no_path = sp_initiator_queues(&u->st->init);
	map.queue_mode = u->st->init.queue_bio ? SP_DM_QUEUE_BIO : SP_DM_QUEUE_RQ;
	map.sectors = sectors;
	map.npaths = u->st->npaths;
	map.ncpus = sp_bringup_possible_cpus(u->ops);
	for (i = 0; i < map.npaths; i++) {
		map.paths[i].major = u->st->paths[i].major;
		map.paths[i].minor = u->st->paths[i].minor;
		if (sp_selector_info(map.sel.kind)->path_arg == SP_SEL_ARG_CPUMASK)
			map.paths[i].cpumask = u->st->paths[i].cpumask;
		if (map.sel.kind == SP_SEL_ST &&
		    u->st->paths[i].relative_throughput)
			map.paths[i].relative_throughput =
				u->st->paths[i].relative_throughput;
	}
	ret = sp_dm_table_build(&map, table, sizeof(table), dmerr,
				sizeof(dmerr));
	if (ret)
		return failf(u, ret, "map table: %s", dmerr);
	ret = begin(u, SP_STEP_MAP, NULL);
	if (!ret)
		ret = queue_timeout(u);
	if (ret)
		return ret;
	sp_debug("table: %s", table);
	ret = u->ops->dm->create(u->ops->dm->ctx, u->st->map_name,
				 u->st->map_uuid, table);
	return ret ? failf(u, ret, "creating map %s failed: %s",
			   u->st->map_name, strerror(-ret)) : 0;
}

static int do_up(struct up *u, const struct sp_up_opts *o)
{
	size_t i;
	int ret;

	ret = write_plan(u);
	/* nvme-tcp: the same namespaces and veths, then nvmet instead of
	 * tgtds and native multipath instead of a map (bringup_nvme.c) */
	for (i = 0; !ret && u->st->transport == SP_TRANSPORT_NVME_TCP &&
		    i < u->st->npaths; i++)
		ret = path_net(u, &u->st->paths[i]);
	if (!ret && u->st->transport == SP_TRANSPORT_NVME_TCP) {
		ret = sp_bringup_nvme_up(u->ops, u->st, u->fd, o->disk_wait_s,
					 u->err, u->errlen);
		goto done;
	}
	if (!ret)
		ret = sp_bringup_chap_setup(u->fd, u->dir, u->st,
					    u->chap_secret,
					    sizeof(u->chap_secret), u->err,
					    u->errlen);
	if (!ret)
		ret = ensure_iscsid(u);
	for (i = 0; !ret && i < u->st->npaths; i++) {
		ret = path_net(u, &u->st->paths[i]);
		if (!ret)
			ret = path_tgtd(u, &u->st->paths[i]);
	}
	for (i = 0; !ret && i < u->st->npaths; i++) {
		ret = tgtd_wait(u, &u->st->paths[i], o->tgtd_wait_s);
		if (!ret)
			ret = path_target(u, &u->st->paths[i]);
	}
	if (!ret)
		ret = login_all(u);
	if (!ret)
		ret = find_disks(u, o->disk_wait_s);
	if (!ret)
		ret = make_map(u);
done:
	if (!ret && sp_bringup_interrupted)
		ret = failf(u, -EINTR, "interrupted");
	if (!ret) {
		u->st->complete = 1;
		ret = journal(u, "complete\n");
	}
	return ret;
}

/* The secret up wrote, for a tgtd started again. */
static int read_secret(struct up *u)
{
	char path[512];
	int ret;

	if (!u->st->chap_user[0])
		return 0;
	sp_bringup_chap_file(u->dir, path, sizeof(path));
	ret = u->ops->read_file(u->ops->ctx, path, u->chap_secret,
				sizeof(u->chap_secret));
	if (ret)
		return failf(u, ret, "cannot read the CHAP secret %s: %s", path,
			     strerror(-ret));
	u->chap_secret[strcspn(u->chap_secret, "\n")] = '\0';
	return u->chap_secret[0] ? 0 : failf(u, -EINVAL, "%s is empty", path);
}

int sp_bringup_tgtd_restart(const struct sp_sys_ops *ops, struct sp_state *st,
			    struct sp_state_path *p, const char *state_dir,
			    unsigned int wait_s, char *err, size_t errlen)
{
	struct up u = { .ops = ops, .st = st, .dir = state_dir, .fd = -1,
			.err = err, .errlen = errlen, .t0 = sp_now_ns() };
	int ret = sp_state_open_append(state_dir, &u.fd);

	if (ret)
		return failf(&u, ret, "cannot open the state in %s: %s",
			     state_dir, strerror(-ret));
	/* the same steps as up, so the initiator finds the same LUN */
	ret = read_secret(&u);
	if (!ret)
		ret = path_tgtd(&u, p);
	if (!ret)
		ret = tgtd_wait(&u, p, wait_s);
	if (!ret)
		ret = path_target(&u, p);
	explicit_bzero(u.chap_secret, sizeof(u.chap_secret));
	close(u.fd);
	return ret;
}

int sp_bringup_up(const struct sp_sys_ops *ops, const struct sp_topo *topo,
		  const struct sp_up_opts *o, const char *state_dir, char *err,
		  size_t errlen)
{
	static struct sp_state st;
	struct up u = { .ops = ops, .st = &st, .dir = state_dir, .fd = -1,
			.err = err, .errlen = errlen, .t0 = sp_now_ns() };
	char derr[SP_BRINGUP_ERRLEN];
	int ret;
	char journal_file[512];

	ret = sp_bringup_plan(topo, o, &st, err, errlen);
	if (ret)
		return ret;
	snprintf(journal_file, sizeof(journal_file), "%s/%s", state_dir,
		 SP_STATE_FILE);
	if (ops->exists(ops->ctx, journal_file))
		return failf(&u, -EEXIST, "a topology is already up (%s "
			     "exists): 'slowpath down' first", journal_file);
	ret = sp_bringup_preflight(ops, u.st, u.err, u.errlen);
	if (!ret)
		ret = sp_bringup_hst_ensure(ops, st.scale, &st.has_hst,
					    &st.hst_shift, err, errlen);
	if (!ret)
		ret = sp_bringup_hst_build_ready(ops, o->hst_build, &o->hst_skew_ns,
						 err, errlen);
	if (ret)
		return ret;
	ret = sp_state_create(state_dir, &u.fd);
	if (ret == -EEXIST)
		return failf(&u, -EEXIST, "a topology is already up (%s/%s "
			     "exists): 'slowpath down' first", state_dir,
			     SP_STATE_FILE);
	if (ret)
		return failf(&u, ret, "cannot create %s/%s: %s", state_dir,
			     SP_STATE_FILE, strerror(-ret));
	ret = do_up(&u, o);
	explicit_bzero(u.chap_secret, sizeof(u.chap_secret));
	close(u.fd);
	if (!ret)
		return 0;
	sp_info("up failed, tearing down what was set up");
	if (sp_bringup_down(ops, &st, state_dir, derr, sizeof(derr)))
		sp_err("teardown after the failure was incomplete: %s", derr);
	return ret;
}
