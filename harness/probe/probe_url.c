#include "harness/probe/probe_url.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"

#define URL_FORM "iscsi://HOST[:PORT]/IQN/LUN"

static int bad(const char *text, char *err, size_t errlen, const char *why)
{
	/* Cut a long URL so the reason still fits in err. */
	snprintf(err, errlen, "bad iSCSI URL '%.100s%s': %s (want " URL_FORM ")",
		 text, strlen(text) > 100 ? "..." : "", why);
	return -EINVAL;
}

/* Copies [start, end) into dst, refusing what does not fit. */
static int copy_part(char *dst, size_t dstlen, const char *start,
		     const char *end)
{
	size_t len = (size_t)(end - start);

	if (len >= dstlen)
		return -ENAMETOOLONG;
	memcpy(dst, start, len);
	dst[len] = '\0';
	return 0;
}

static int parse_authority(const char *text, const char *auth,
			   const char *end, struct probe_url *u, char *err,
			   size_t errlen)
{
	const char *host_end, *port_start = NULL;
	int64_t port;
	char port_buf[16];

	if (auth == end)
		return bad(text, err, errlen, "no host");
	if (memchr(auth, '@', (size_t)(end - auth)))
		return bad(text, err, errlen, "CHAP credentials do not go in the URL: use --chap-user and --chap-secret-file");
	if (*auth == '[') {
		host_end = memchr(auth, ']', (size_t)(end - auth));
		if (!host_end)
			return bad(text, err, errlen, "'[' without ']' around the IPv6 host");
		if (copy_part(u->host, sizeof(u->host), auth + 1, host_end))
			return bad(text, err, errlen, "host name too long");
		if (host_end + 1 < end) {
			if (host_end[1] != ':')
				return bad(text, err, errlen, "junk after ']'");
			port_start = host_end + 2;
		}
	} else {
		host_end = memchr(auth, ':', (size_t)(end - auth));
		if (!host_end)
			host_end = end;
		else
			port_start = host_end + 1;
		if (copy_part(u->host, sizeof(u->host), auth, host_end))
			return bad(text, err, errlen, "host name too long");
	}
	if (!u->host[0])
		return bad(text, err, errlen, "no host");
	u->port = PROBE_DEFAULT_PORT;
	if (port_start) {
		if (copy_part(port_buf, sizeof(port_buf), port_start, end) ||
		    sp_parse_int64(port_buf, 1, 65535, &port)) {
			char why[64];

			snprintf(why, sizeof(why), "port '%.*s' is not 1..65535",
				 (int)(end - port_start > 20 ? 20 : end - port_start),
				 port_start);
			return bad(text, err, errlen, why);
		}
		u->port = (int)port;
	}
	snprintf(u->portal, sizeof(u->portal), strchr(u->host, ':') ?
		 "[%s]:%d" : "%s:%d", u->host, u->port);
	return 0;
}

int probe_url_parse(const char *text, struct probe_url *u, char *err,
		    size_t errlen)
{
	static const char scheme[] = "iscsi://";
	const char *auth, *slash, *lun_start;
	int64_t lun;
	int ret;

	memset(u, 0, sizeof(*u));
	if (!text || !*text)
		return bad("", err, errlen, "empty");
	if (strncmp(text, scheme, sizeof(scheme) - 1))
		return bad(text, err, errlen, "it does not start with iscsi://");
	auth = text + sizeof(scheme) - 1;
	slash = strchr(auth, '/');
	if (!slash)
		return bad(text, err, errlen, "no target name (IQN) after the host");
	ret = parse_authority(text, auth, slash, u, err, errlen);
	if (ret)
		return ret;
	/* The LUN is the last component: IQNs contain ':' and '.', never '/'. */
	lun_start = strrchr(slash, '/');
	if (lun_start == slash)
		return bad(text, err, errlen, "no LUN after the target name");
	if (copy_part(u->iqn, sizeof(u->iqn), slash + 1, lun_start))
		return bad(text, err, errlen, "target name longer than 223 bytes");
	if (!u->iqn[0])
		return bad(text, err, errlen, "empty target name");
	if (strchr(u->iqn, '/'))
		return bad(text, err, errlen, "'/' inside the target name");
	if (strncmp(u->iqn, "iqn.", 4) && strncmp(u->iqn, "eui.", 4) &&
	    strncmp(u->iqn, "naa.", 4))
		return bad(text, err, errlen,
			   "target name does not start with iqn., eui. or naa.");
	if (!lun_start[1])
		return bad(text, err, errlen, "empty LUN");
	if (sp_parse_int64(lun_start + 1, 0, 16383, &lun))
		return bad(text, err, errlen, "LUN is not a number 0..16383");
	u->lun = (int)lun;
	return 0;
}
