/* The netem ops over libnl-route-3. A socket opened inside a network
 * namespace stays bound to it, so we enter /run/netns/NAME only around
 * nl_connect() and return at once; the process is single-threaded. */
#include "netem/netem.h"
#include "netem/netns.h"
#include "netem/nl_sock.h"

#include "common/file.h"
#include "common/log.h"
#include "common/units.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/pkt_sched.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/tc.h>

#define DEFAULT_LIMIT 1000	/* what tc sets; the kernel drops all at 0 */

int sp_nl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0: return 0;
	case NLE_NODEV: return -ENODEV;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	case NLE_PERM: return -EPERM;
	case NLE_NOACCESS: return -EACCES;
	case NLE_INVAL: return -EINVAL;
	case NLE_RANGE: return -ERANGE;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_EXIST: return -EEXIST;
	case NLE_BUSY: return -EBUSY;
	case NLE_NOMEM: return -ENOMEM;
	default: return -EIO;
	}
}

static uint32_t pct_to_u32(double pct)
{
	return (uint32_t)llround(pct / 100.0 * (double)UINT32_MAX);
}

static double u32_to_pct(uint32_t v)
{
	return round((double)v * 100.0 / (double)UINT32_MAX * 1000.0) / 1000.0;
}

int sp_nl_open_sock(const char *netns, struct nl_sock **out)
{
	int fd = -1, saved = -1, ret = 0;
	struct nl_sock *sk;

	if (netns) {
		fd = sp_netns_open(netns);
		if (fd < 0)
			return fd;
		saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (saved < 0 || setns(fd, CLONE_NEWNET)) {
			ret = -errno;
			close(fd);
			if (saved >= 0)
				close(saved);
			return ret;
		}
		close(fd);
	}
	sk = nl_socket_alloc();
	if (!sk)
		ret = -ENOMEM;
	else if ((ret = nl_connect(sk, NETLINK_ROUTE))) {
		ret = sp_nl_errno(ret);
		nl_socket_free(sk);
	}
	if (saved >= 0) {
		/* never leave the caller in the other namespace */
		if (setns(saved, CLONE_NEWNET))
			sp_err("cannot return from netns %s: %s", netns,
			       strerror(errno));
		close(saved);
	}
	if (!ret)
		*out = sk;
	return ret;
}

static int dev_index(struct nl_sock *sk, const char *dev, int *idx)
{
	struct rtnl_link *link = NULL;
	int ret = rtnl_link_get_kernel(sk, 0, dev, &link);

	if (ret) {
		ret = sp_nl_errno(ret);
		return ret == -ENOENT ? -ENODEV : ret;
	}
	*idx = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return 0;
}

static int load_dist(enum sp_dist dist, int16_t **data, size_t *n)
{
	char path[PATH_MAX], *text;
	int ret;

	if (sp_netem_dist_path(sp_dist_names[dist], path, sizeof(path))) {
		sp_err("no %s.dist table (iproute2 installs them under "
		       "/usr/lib/<arch>/tc)", sp_dist_names[dist]);
		return -ENOENT;
	}
	/* iproute2's tables are some 20 KiB */
	ret = sp_file_read(path, 256 * 1024, &text, NULL);
	if (ret == -EFBIG)
		sp_err("%s: not a netem distribution table", path);
	if (ret)
		return ret;
	*data = calloc(SP_NETEM_DIST_MAX, sizeof(**data));
	if (!*data) {
		free(text);
		return -ENOMEM;
	}
	ret = sp_netem_parse_dist(text, *data, SP_NETEM_DIST_MAX, n);
	free(text);
	if (ret) {
		sp_err("%s: not a netem distribution table", path);
		free(*data);
		*data = NULL;
	}
	return ret;
}

/* libnl 3.7's length fix-up for netem's nested attributes overshoots:
 * the message it builds runs past TCA_OPTIONS, its last attribute, into
 * bytes it never wrote (valgrind sees them uninitialised). Cut the
 * message at the end of TCA_OPTIONS, stepping only over attributes
 * libnl did write (TCA_KIND comes first). */
static int trim_after_options(struct nl_msg *msg, struct nlattr **opts)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	char *end = (char *)nlh + nlh->nlmsg_len;
	struct nlattr *a = nlmsg_attrdata(nlh, sizeof(struct tcmsg));

	while ((char *)a + NLA_HDRLEN <= end && a->nla_len >= NLA_HDRLEN &&
	       (char *)a + a->nla_len <= end) {
		if (nla_type(a) == TCA_OPTIONS) {
			nlh->nlmsg_len = (uint32_t)((char *)a +
						    NLA_ALIGN(a->nla_len) -
						    (char *)nlh);
			*opts = a;
			return 0;
		}
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return -EPROTO;
}

/* libnl 3.7 has no netem rate: put TCA_NETEM_RATE inside TCA_OPTIONS,
 * after the nested attributes libnl put there. */
static int append_rate(struct nl_msg *msg, struct nlattr *opts, uint64_t bps)
{
	struct tc_netem_rate rate = { .rate = (uint32_t)(bps / 8) };

	if (nla_put(msg, TCA_NETEM_RATE, sizeof(rate), &rate))
		return -EMSGSIZE;
	opts->nla_len = (uint16_t)((char *)nlmsg_tail(nlmsg_hdr(msg)) -
				   (char *)opts);
	return 0;
}

static int get_root(struct nl_sock *sk, int idx, struct nl_cache **cache,
		    struct rtnl_qdisc **q)
{
	int ret = rtnl_qdisc_alloc_cache(sk, cache);
	const char *kind;

	if (ret)
		return sp_nl_errno(ret);
	*q = rtnl_qdisc_get_by_parent(*cache, idx, TC_H_ROOT);
	kind = *q ? rtnl_tc_get_kind(TC_CAST(*q)) : NULL;
	if (!kind || strcmp(kind, "netem")) {
		if (*q)
			rtnl_qdisc_put(*q);
		*q = NULL;
		return -ENOENT;
	}
	return 0;
}

/* libnl hands back u32 probabilities as int (so above 50% they look
 * negative) and -NLE_NOATTR for what the kernel did not report. */
static int got(int v, uint32_t *out)
{
	if (v == 0 || v == -NLE_NOATTR)
		return 0;
	*out = (uint32_t)v;
	return 1;
}

static void read_spec(struct rtnl_qdisc *q, struct sp_netem_spec *s)
{
	uint32_t v;

	memset(s, 0, sizeof(*s));
	s->has = SP_NETEM_HAS_DELAY | SP_NETEM_HAS_LIMIT;
	if (rtnl_netem_get_delay(q) > 0)
		s->delay_ns = (int64_t)rtnl_netem_get_delay(q) *
			      SP_NSEC_PER_USEC;
	if (rtnl_netem_get_jitter(q) > 0)
		s->jitter_ns = (int64_t)rtnl_netem_get_jitter(q) *
			       SP_NSEC_PER_USEC;
	if (got(rtnl_netem_get_delay_correlation(q), &v))
		s->delay_corr_pct = u32_to_pct(v);
	if (got(rtnl_netem_get_loss(q), &v)) {
		s->has |= SP_NETEM_HAS_LOSS;
		s->loss_pct = u32_to_pct(v);
		if (got(rtnl_netem_get_loss_correlation(q), &v))
			s->loss_corr_pct = u32_to_pct(v);
	}
	if (rtnl_netem_get_limit(q) > 0)
		s->limit = (uint32_t)rtnl_netem_get_limit(q);
	/* the kernel never dumps the distribution table, so it stays NONE */
}

/* Opens the socket, finds dev's netem root and hands it to act: only a
 * netem root is ever read or deleted, never someone else's qdisc. */
static int on_netem_root(const char *netns, const char *dev,
			 int (*act)(struct nl_sock *sk, struct rtnl_qdisc *q,
				    void *arg), void *arg)
{
	struct nl_sock *sk;
	struct nl_cache *cache = NULL;
	struct rtnl_qdisc *q = NULL;
	int idx, ret;

	if ((ret = sp_nl_open_sock(netns, &sk)))
		return ret;
	ret = dev_index(sk, dev, &idx);
	if (!ret)
		ret = get_root(sk, idx, &cache, &q);
	if (!ret) {
		ret = act(sk, q, arg);
		rtnl_qdisc_put(q);
	}
	if (cache)
		nl_cache_free(cache);
	nl_socket_free(sk);
	return ret;
}

static int read_root(struct nl_sock *sk, struct rtnl_qdisc *q, void *spec)
{
	(void)sk;
	read_spec(q, spec);
	return 0;
}

static int delete_root(struct nl_sock *sk, struct rtnl_qdisc *q, void *arg)
{
	(void)arg;
	return sp_nl_errno(rtnl_qdisc_delete(sk, q));
}

static int nl_get(void *ctx, const char *netns, const char *dev,
		  struct sp_netem_spec *spec)
{
	(void)ctx;
	return on_netem_root(netns, dev, read_root, spec);
}

static int fill(struct rtnl_qdisc *q, const struct sp_netem_spec *s)
{
	int16_t *table = NULL;
	size_t n;
	int ret;

	rtnl_netem_set_limit(q, s->limit ? (int)s->limit : DEFAULT_LIMIT);
	if (s->has & SP_NETEM_HAS_DELAY) {
		rtnl_netem_set_delay(q, (int)(s->delay_ns / SP_NSEC_PER_USEC));
		rtnl_netem_set_jitter(q, (int)(s->jitter_ns / SP_NSEC_PER_USEC));
		rtnl_netem_set_delay_correlation(
			q, (int)pct_to_u32(s->delay_corr_pct));
	}
	if (s->dist != SP_DIST_UNIFORM) {
		ret = load_dist(s->dist, &table, &n);
		if (ret)
			return ret;
		ret = rtnl_netem_set_delay_distribution_data(q, table, n);
		free(table);
		if (ret < 0)
			return sp_nl_errno(ret);
	}
	if (s->has & SP_NETEM_HAS_LOSS) {
		rtnl_netem_set_loss(q, (int)pct_to_u32(s->loss_pct));
		rtnl_netem_set_loss_correlation(q,
						(int)pct_to_u32(s->loss_corr_pct));
	}
	return 0;
}

static int nl_clear(void *ctx, const char *netns, const char *dev);

/* change: what is set now, with the given words replacing theirs. */
static void merge(struct sp_netem_spec *cur, const struct sp_netem_spec *s)
{
	if (s->has & SP_NETEM_HAS_DELAY) {
		cur->delay_ns = s->delay_ns;
		cur->jitter_ns = s->jitter_ns;
		cur->delay_corr_pct = s->delay_corr_pct;
		cur->dist = s->dist;
	}
	if (s->has & SP_NETEM_HAS_LOSS) {
		cur->loss_pct = s->loss_pct;
		cur->loss_corr_pct = s->loss_corr_pct;
	}
	if (s->has & SP_NETEM_HAS_RATE)
		cur->rate_bps = s->rate_bps;
	if (s->has & SP_NETEM_HAS_LIMIT)
		cur->limit = s->limit;
	cur->has |= s->has;
}

static int nl_set(void *ctx, const char *netns, const char *dev,
		  const struct sp_netem_spec *spec, int change)
{
	struct sp_netem_spec want = *spec;
	struct nl_sock *sk;
	struct rtnl_qdisc *q = NULL;
	struct nl_msg *msg = NULL;
	struct nlattr *opts = NULL;
	int idx, ret;

	if (change) {
		/* netem forgets what a change does not repeat, so merge */
		if ((ret = nl_get(ctx, netns, dev, &want)))
			return ret;
		merge(&want, spec);
	}
	if (!change) {
		/* A replace would keep the old netem's rate and distribution
		 * table wherever the new words leave them out: start clean. */
		ret = nl_clear(ctx, netns, dev);
		if (ret && ret != -ENOENT)
			return ret;
	}
	if ((ret = sp_nl_open_sock(netns, &sk)))
		return ret;
	if ((ret = dev_index(sk, dev, &idx)))
		goto out;
	q = rtnl_qdisc_alloc();
	if (!q) {
		ret = -ENOMEM;
		goto out;
	}
	rtnl_tc_set_ifindex(TC_CAST(q), idx);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	if ((ret = rtnl_tc_set_kind(TC_CAST(q), "netem"))) {
		ret = sp_nl_errno(ret);
		goto out;
	}
	if ((ret = fill(q, &want)))
		goto out;
	ret = rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE,
					   &msg);
	if (ret) {
		ret = sp_nl_errno(ret);
		goto out;
	}
	if ((ret = trim_after_options(msg, &opts)) ||
	    ((want.has & SP_NETEM_HAS_RATE) &&
	     (ret = append_rate(msg, opts, want.rate_bps)))) {
		nlmsg_free(msg);
		goto out;
	}
	ret = nl_send_sync(sk, msg);	/* frees msg */
	/* the device exists, so "not found" is the qdisc kind itself */
	ret = sp_nl_errno(ret);
	if (ret == -ENOENT)
		ret = -ENOPKG;
out:
	if (q)
		rtnl_qdisc_put(q);
	nl_socket_free(sk);
	return ret;
}

static int nl_clear(void *ctx, const char *netns, const char *dev)
{
	(void)ctx;
	return on_netem_root(netns, dev, delete_root, NULL);
}

const struct sp_netem_ops sp_netem_nl_ops = {
	.set = nl_set,
	.clear = nl_clear,
	.get = nl_get,
	.ctx = NULL,
};
