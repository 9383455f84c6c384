/* iscsi://HOST[:PORT]/IQN/LUN, parsed without libiscsi so a bad URL is
 * refused with a message saying which part is wrong, before any
 * connection is tried. */
#ifndef SP_PROBE_URL_H
#define SP_PROBE_URL_H

#include <stddef.h>

#define PROBE_DEFAULT_PORT 3260

struct probe_url {
	char host[256];		/* without brackets for IPv6 */
	int port;
	char portal[272];	/* what libiscsi connects to: host:port */
	char iqn[224];		/* iSCSI names are at most 223 bytes */
	int lun;
};

/* 0, or -EINVAL with one line in err naming the URL and what is wrong. */
int probe_url_parse(const char *text, struct probe_url *u, char *err,
		    size_t errlen);

#endif
