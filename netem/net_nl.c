/* Links and addresses over libnl-route-3 (net.h): what `ip link` and
 * `ip addr` did, in process. */
#include "netem/net.h"
#include "netem/netns.h"
#include "netem/nl_sock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>

static int nl_veth_add(void *ctx, const char *dev, const char *peer,
		       const char *peer_ns)
{
	struct rtnl_link *veth, *other;
	struct nl_sock *sk;
	int nsfd, ret;

	(void)ctx;
	nsfd = sp_netns_open(peer_ns);
	if (nsfd < 0)
		return nsfd;
	ret = sp_nl_open_sock(NULL, &sk);
	if (ret) {
		close(nsfd);
		return ret;
	}
	veth = rtnl_link_veth_alloc();
	if (!veth) {
		ret = -ENOMEM;
		goto out;
	}
	other = rtnl_link_veth_get_peer(veth);
	rtnl_link_set_name(veth, dev);
	rtnl_link_set_name(other, peer);
	rtnl_link_set_ns_fd(other, nsfd);
	ret = sp_nl_errno(rtnl_link_add(sk, veth, NLM_F_CREATE | NLM_F_EXCL));
	rtnl_link_put(other);
	rtnl_link_veth_release(veth);
out:
	nl_socket_free(sk);
	close(nsfd);
	return ret;
}

/* fn on dev's link in ns (NULL: ours), through one socket there. */
static int on_link(const char *ns, const char *dev,
		   int (*fn)(struct nl_sock *, struct rtnl_link *, const void *),
		   const void *arg)
{
	struct rtnl_link *link = NULL;
	struct nl_sock *sk;
	int ret;

	if ((ret = sp_nl_open_sock(ns, &sk)))
		return ret;
	ret = rtnl_link_get_kernel(sk, 0, dev, &link);
	if (ret) {
		ret = sp_nl_errno(ret);
		ret = ret == -ENOENT ? -ENODEV : ret;
	} else {
		ret = fn(sk, link, arg);
		rtnl_link_put(link);
	}
	nl_socket_free(sk);
	return ret;
}

static int add_addr(struct nl_sock *sk, struct rtnl_link *link,
		    const void *cidr)
{
	struct rtnl_addr *addr = rtnl_addr_alloc();
	struct nl_addr *local = NULL;
	int ret;

	if (!addr)
		return -ENOMEM;
	ret = sp_nl_errno(nl_addr_parse(cidr, AF_INET, &local));
	if (!ret) {
		rtnl_addr_set_ifindex(addr, rtnl_link_get_ifindex(link));
		rtnl_addr_set_local(addr, local);
		rtnl_addr_set_prefixlen(addr, nl_addr_get_prefixlen(local));
		ret = sp_nl_errno(rtnl_addr_add(sk, addr, 0));
		nl_addr_put(local);
	}
	rtnl_addr_put(addr);
	return ret;
}

static int nl_addr_add(void *ctx, const char *ns, const char *dev,
		       const char *cidr)
{
	(void)ctx;
	return on_link(ns, dev, add_addr, cidr);
}

static int set_flags(struct nl_sock *sk, struct rtnl_link *link,
		     const void *up)
{
	struct rtnl_link *change = rtnl_link_alloc();
	int ret;

	if (!change)
		return -ENOMEM;
	if (*(const int *)up)
		rtnl_link_set_flags(change, IFF_UP);
	else
		rtnl_link_unset_flags(change, IFF_UP);
	ret = sp_nl_errno(rtnl_link_change(sk, link, change, 0));
	rtnl_link_put(change);
	return ret;
}

static int nl_link_set(void *ctx, const char *ns, const char *dev, int up)
{
	(void)ctx;
	return on_link(ns, dev, set_flags, &up);
}

static int nl_link_del(void *ctx, const char *dev)
{
	struct rtnl_link *link;
	struct nl_sock *sk;
	int ret;

	(void)ctx;
	if ((ret = sp_nl_open_sock(NULL, &sk)))
		return ret;
	link = rtnl_link_alloc();
	if (link) {
		rtnl_link_set_name(link, dev);
		ret = sp_nl_errno(rtnl_link_delete(sk, link));
		rtnl_link_put(link);
	} else {
		ret = -ENOMEM;
	}
	nl_socket_free(sk);
	return ret;
}

/* buf gets what line() makes of each object of cache, in order. */
struct lines {
	char *buf;
	size_t len, at;
	struct nl_cache *links;
};

static void link_line(struct nl_object *obj, void *arg)
{
	struct rtnl_link *link = (struct rtnl_link *)obj;
	struct lines *l = arg;

	l->at += (size_t)snprintf(l->buf + l->at, l->at < l->len ?
				  l->len - l->at : 0, "%d: %s\n",
				  rtnl_link_get_ifindex(link),
				  rtnl_link_get_name(link));
}

static void addr4_line(struct nl_object *obj, void *arg)
{
	struct rtnl_addr *addr = (struct rtnl_addr *)obj;
	struct lines *l = arg;
	char name[IF_NAMESIZE + 1], cidr[64];
	int idx = rtnl_addr_get_ifindex(addr);

	if (rtnl_addr_get_family(addr) != AF_INET ||
	    !rtnl_addr_get_local(addr))
		return;
	if (!rtnl_link_i2name(l->links, idx, name, sizeof(name)))
		snprintf(name, sizeof(name), "?");
	nl_addr2str(rtnl_addr_get_local(addr), cidr, sizeof(cidr));
	l->at += (size_t)snprintf(l->buf + l->at, l->at < l->len ?
				  l->len - l->at : 0, "%d: %s inet %s\n",
				  idx, name, cidr);
}

static int list(char *buf, size_t len, int addrs)
{
	struct lines l = { buf, len, 0, NULL };
	struct nl_cache *cache = NULL;
	struct nl_sock *sk;
	int ret;

	if ((ret = sp_nl_open_sock(NULL, &sk)))
		return ret;
	buf[0] = '\0';
	ret = sp_nl_errno(rtnl_link_alloc_cache(sk, AF_UNSPEC, &l.links));
	if (!ret && addrs)
		ret = sp_nl_errno(rtnl_addr_alloc_cache(sk, &cache));
	if (!ret)
		nl_cache_foreach(addrs ? cache : l.links,
				 addrs ? addr4_line : link_line, &l);
	if (cache)
		nl_cache_free(cache);
	if (l.links)
		nl_cache_free(l.links);
	nl_socket_free(sk);
	return ret ? ret : l.at < len ? 0 : -ENOSPC;
}

static int nl_link_list(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	return list(buf, len, 0);
}

static int nl_addr4_list(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	return list(buf, len, 1);
}

const struct sp_net_ops sp_net_real = {
	.netns_add = sp_netns_add,
	.netns_del = sp_netns_del,
	.netns_list = sp_netns_list,
	.netns_pids = sp_netns_pids,
	.veth_add = nl_veth_add,
	.addr_add = nl_addr_add,
	.link_set = nl_link_set,
	.link_del = nl_link_del,
	.link_list = nl_link_list,
	.addr4_list = nl_addr4_list,
	.ctx = NULL,
};
