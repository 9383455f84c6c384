/* The room's shared libnl socket: inside a named namespace or ours.
 * Internal to netem/ (netem_nl.c, net_nl.c). */
#ifndef SP_NL_SOCK_H
#define SP_NL_SOCK_H

struct nl_sock;

/* A NETLINK_ROUTE socket bound to netns (NULL: ours); -ESRCH when
 * there is no such namespace. Free with nl_socket_free. */
int sp_nl_open_sock(const char *netns, struct nl_sock **out);
/* A libnl error as -errno. */
int sp_nl_errno(int nlerr);

#endif
