/* Named network namespaces (netns.c), the real ops of net.h's
 * netns_* for net_nl.c's sp_net_real. Internal to netem/. */
#ifndef SP_NETNS_H
#define SP_NETNS_H

#include <stddef.h>

int sp_netns_add(void *ctx, const char *ns);
int sp_netns_del(void *ctx, const char *ns);
int sp_netns_list(void *ctx, char *buf, size_t len);
int sp_netns_pids(void *ctx, const char *ns, char *buf, size_t len);
/* An O_RDONLY fd on the namespace (-ESRCH when there is none). */
int sp_netns_open(const char *ns);

#endif
