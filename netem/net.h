/* Links, addresses and named network namespaces: the one owner of what
 * slowpath did through `ip` (nothing else execs it). sp_net_real does
 * links and addresses over libnl-route-3 (net_nl.c) and namespaces as
 * iproute2 does, a bind mount under /run/netns (netns.c); callers take
 * the ops from struct sp_sys_ops, so unit tests hand in a mock. Every
 * call is 0 or -errno. The listings are in `ip`'s own line shapes, so
 * whoever reads them reads what ip printed. */
#ifndef SP_NET_H
#define SP_NET_H

#include <stddef.h>

#define SP_NETNS_DIR "/run/netns"

struct sp_net_ops {
	/* A named namespace, as `ip netns add` makes it. */
	int (*netns_add)(void *ctx, const char *ns);
	int (*netns_del)(void *ctx, const char *ns);
	/* The named namespaces, one name a line (`ip netns list`). */
	int (*netns_list)(void *ctx, char *buf, size_t len);
	/* The processes in ns, one PID a line (`ip netns pids`). */
	int (*netns_pids)(void *ctx, const char *ns, char *buf, size_t len);
	/* A veth pair: dev in our namespace, its peer moved into peer_ns. */
	int (*veth_add)(void *ctx, const char *dev, const char *peer,
			const char *peer_ns);
	/* cidr ("198.18.0.1/30") on dev, in ns (NULL: ours). */
	int (*addr_add)(void *ctx, const char *ns, const char *dev,
			const char *cidr);
	/* dev up (1) or down (0), in ns (NULL: ours). */
	int (*link_set)(void *ctx, const char *ns, const char *dev, int up);
	int (*link_del)(void *ctx, const char *dev);
	/* Our links as "INDEX: NAME" lines (`ip -o link show`'s start). */
	int (*link_list)(void *ctx, char *buf, size_t len);
	/* Our IPv4 addresses as "INDEX: DEV inet CIDR" lines
	 * (`ip -o -4 addr show`'s start). */
	int (*addr4_list)(void *ctx, char *buf, size_t len);
	void *ctx;
};

extern const struct sp_net_ops sp_net_real;

/* SP_NETNS_DIR/ns into path; -EINVAL for a name that is not one file
 * there. */
int sp_netns_path(const char *ns, char *path, size_t len);
/* Moves the calling process into the namespace bound at path: for a
 * child between fork and exec (a tgtd started inside its path's
 * namespace), so only open, setns and close. 0, or -1 with errno. */
int sp_netns_enter(const char *path);

#endif
