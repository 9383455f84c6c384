/* The bring-up mock's fake kernel interfaces: device-mapper
 * (dm/dm_dev.h) and links, addresses, namespaces (netem/net.h), each op
 * answered by the mock's m_run (bringup_mock.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/harness/bringup/bringup_mock.h"

/* The fake device-mapper (dm/dm_dev.h). Each op is logged as the
 * dmsetup line that would do the same and answered by m_run, so the
 * tests read one spelling and one fake kernel; M.in_fake tells m_run
 * the line is no exec of dmsetup (nor of ip, for the net ops below). */
static int m_dm(char *o, size_t olen, const char *const *argv)
{
	int r;

	M.in_fake = 1;
	r = m_run(NULL, argv, o, olen);
	M.in_fake = 0;
	return r;
}

static int m_dm_create(void *ctx, const char *name, const char *uuid,
		       const char *table)
{
	const char *argv[] = { "dmsetup", "create", name, "-u", uuid,
			       "--noudevsync", "--table", table, NULL };

	(void)ctx;
	return m_dm(NULL, 0, argv) ? -EIO : 0;
}

static int m_dm_text(const char *what, const char *name, char *buf,
		     size_t len)
{
	const char *argv[] = { "dmsetup", what, name, NULL };

	return m_dm(buf, len, argv) ? -ENXIO : 0;
}

static int m_dm_table(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	return m_dm_text("table", name, buf, len);
}

static int m_dm_status(void *ctx, const char *name, char *buf, size_t len)
{
	(void)ctx;
	return m_dm_text("status", name, buf, len);
}

static int m_dm_message(void *ctx, const char *name, const char *msg)
{
	const char *argv[] = { "dmsetup", "message", name, "0", msg, NULL };

	(void)ctx;
	return m_dm(NULL, 0, argv) ? -EIO : 0;
}

static int m_dm_info(void *ctx, const char *name, struct sp_dm_info *info)
{
	const char *argv[] = { "dmsetup", "info", "-c", "--noheadings",
			       "--separator", " ", "-o", "open,major,minor",
			       name, NULL };
	char o[64];

	(void)ctx;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	if (m_dm(o, sizeof(o), argv) ||
	    sscanf(o, "%d %u %u", &info->open_count, &info->major,
		   &info->minor) != 3)
		return -ENXIO;
	return 0;
}

static int m_dm_list(void *ctx, char *buf, size_t len)
{
	const char *argv[] = { "dmsetup", "info", "-c", "--noheadings", "-o",
			       "name,uuid", "--separator", " ", NULL };

	(void)ctx;
	return m_dm(buf, len, argv) ? -EIO : 0;
}

static int m_dm_remove(void *ctx, const char *name)
{
	const char *argv[] = { "dmsetup", "remove", "--retry", "--noudevsync",
			       name, NULL };

	(void)ctx;
	return m_dm(NULL, 0, argv) ? -EBUSY : 0;
}

static int m_dm_reload(void *ctx, const char *name, const char *table)
{
	(void)ctx;
	snprintf(M.cmds[M.ncmds++], sizeof(M.cmds[0]), "dm_reload %s %s",
		 name, table);
	if (!M.failed && M.fail_match && strstr(M.cmds[M.ncmds - 1],
						M.fail_match)) {
		M.failed = 1;
		return -EIO;
	}
	return 0;
}

const struct sp_dm_ops mock_dm = {
	.create = m_dm_create, .reload = m_dm_reload, .table = m_dm_table,
	.status = m_dm_status, .message = m_dm_message, .info = m_dm_info,
	.list = m_dm_list, .remove = m_dm_remove,
};

/* The fake links, addresses and namespaces (netem/net.h), logged as
 * the ip line that would do the same, as the dm ops are. */
static int m_net(char *o, size_t olen, const char *const *argv)
{
	return m_dm(o, olen, argv) ? -EIO : 0;
}

static int m_netns_add(void *ctx, const char *ns)
{
	const char *argv[] = { "ip", "netns", "add", ns, NULL };

	(void)ctx;
	return m_net(NULL, 0, argv);
}

static int m_netns_del(void *ctx, const char *ns)
{
	const char *argv[] = { "ip", "netns", "del", ns, NULL };

	(void)ctx;
	return m_net(NULL, 0, argv);
}

static int m_netns_list(void *ctx, char *buf, size_t len)
{
	const char *argv[] = { "ip", "netns", "list", NULL };

	(void)ctx;
	return m_net(buf, len, argv);
}

static int m_netns_pids(void *ctx, const char *ns, char *buf, size_t len)
{
	const char *argv[] = { "ip", "netns", "pids", ns, NULL };

	(void)ctx;
	return m_net(buf, len, argv);
}

static int m_veth_add(void *ctx, const char *dev, const char *peer,
		      const char *peer_ns)
{
	const char *argv[] = { "ip", "link", "add", dev, "type", "veth",
			       "peer", "name", peer, "netns", peer_ns, NULL };

	(void)ctx;
	return m_net(NULL, 0, argv);
}

static int m_addr_add(void *ctx, const char *ns, const char *dev,
		      const char *cidr)
{
	const char *in_ns[] = { "ip", "-n", ns, "addr", "add", cidr, "dev",
				dev, NULL };
	const char *here[] = { "ip", "addr", "add", cidr, "dev", dev, NULL };

	(void)ctx;
	return m_net(NULL, 0, ns ? in_ns : here);
}

static int m_link_set(void *ctx, const char *ns, const char *dev, int up)
{
	const char *in_ns[] = { "ip", "-n", ns, "link", "set", dev,
				up ? "up" : "down", NULL };
	const char *here[] = { "ip", "link", "set", "dev", dev,
			       up ? "up" : "down", NULL };

	(void)ctx;
	return m_net(NULL, 0, ns ? in_ns : here);
}

static int m_link_del(void *ctx, const char *dev)
{
	const char *argv[] = { "ip", "link", "del", dev, NULL };

	(void)ctx;
	return m_net(NULL, 0, argv);
}

static int m_link_list(void *ctx, char *buf, size_t len)
{
	const char *argv[] = { "ip", "-o", "link", "show", NULL };

	(void)ctx;
	return m_net(buf, len, argv);
}

static int m_addr4_list(void *ctx, char *buf, size_t len)
{
	const char *argv[] = { "ip", "-o", "-4", "addr", "show", NULL };

	(void)ctx;
	return m_net(buf, len, argv);
}

const struct sp_net_ops mock_net = {
	.netns_add = m_netns_add, .netns_del = m_netns_del,
	.netns_list = m_netns_list, .netns_pids = m_netns_pids,
	.veth_add = m_veth_add, .addr_add = m_addr_add,
	.link_set = m_link_set, .link_del = m_link_del,
	.link_list = m_link_list, .addr4_list = m_addr4_list,
};

