/* The files, netem and device-mapper side of the bring-up tests' mock
 * (bringup_mock.h): the ctl and stats of a simulated delay store, /sys
 * and /proc as bring-up reads them, recorded netem and dm calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/harness/bringup/bringup_mock.h"

/* N of DIR/ctl-N/NAME, or 0. */
static unsigned int store_index(const char *path, const char *name)
{
	char fmt[96], tail[16] = "";
	unsigned int n;

	snprintf(fmt, sizeof(fmt), "%s/ctl-%%u/%%15s", dir);
	if (sscanf(path, fmt, &n, tail) != 2 || strcmp(tail, name) || !n ||
	    n > MAXN)
		return 0;
	return n;
}

static struct delay_opts *store_of(unsigned int n)
{
	if (!M.store_set[n]) {
		delay_opts_defaults(&M.store[n]);
		M.store_set[n] = 1;
	}
	return &M.store[n];
}

int m_read_file(void *ctx, const char *path, char *buf, size_t len)
{
	char d, rest[64] = "";
	unsigned int sn;

	(void)ctx;
	if (!strcmp(path, "/sys/devices/system/cpu/possible")) {
		snprintf(buf, len, "0-3\n");
		return 0;
	}
	if (M.qtimeout && !strcmp(path, SP_DM_QTIMEOUT_PARAM)) {
		snprintf(buf, len, "%s", M.qtimeout);
		return 0;
	}
	if (M.store_sim && (sn = store_index(path, "stats"))) {
		int n = snprintf(buf, len, "tid=1\nlun=1\n");

		delay_opts_format(store_of(sn), buf + n, len - (size_t)n);
		return 0;
	}
	if (M.builtin_list && !strncmp(path, "/lib/modules/", 13) &&
	    strstr(path, "/modules.builtin")) {
		snprintf(buf, len, "%s", M.builtin_list);
		return 0;
	}
	if (!strcmp(path, "/proc/net/unix")) {
		snprintf(buf, len, "Num RefCount Protocol Flags Type St Inode "
			 "Path\n%s", M.iscsid_up ? "0000: 00000002 00000000 "
			 "00010000 0001 01 15 @ISCSIADM_ABSTRACT_NAMESPACE\n"
			 : "");
		return 0;
	}
	if (!strcmp(path, "/sys/module/dm_historical_service_time/"
		    "parameters/bucket_shift") && M.hst_shift[0] && !M.hst_absent) {
		snprintf(buf, len, "%s", M.hst_shift);
		return 0;
	}
	if (!strcmp(path, "/sys/module/dm_historical_service_time/refcnt") &&
	    !M.hst_absent) {
		snprintf(buf, len, "%d\n", M.hst_refcnt);
		return 0;
	}
	if (strstr(path, "/ctl-2/stats")) {
		snprintf(buf, len, "read_delay_ns=10000000\n");
		return 0;
	}
	/* the state dir is a real one (journal, CHAP secret) */
	if (!strncmp(path, dir, strlen(dir)) && !strstr(path, "/ctl-"))
		return sp_file_read_prefix(path, buf, len);
	if (sscanf(path, "/sys/block/sd%c/%63s", &d, rest) != 2)
		return -ENOENT;
	if (!strcmp(rest, "dev")) {
		snprintf(buf, len, "8:%d\n", (d - 'a') * 16);
		return 0;
	}
	if (!strcmp(rest, "size")) {
		snprintf(buf, len, "4194304\n");
		return 0;
	}
	if (strstr(path, "/device/state")) {
		snprintf(buf, len, "running\n");
		return 0;
	}
	if (strstr(path, "/device/vendor")) {
		snprintf(buf, len, "IET     \n");
		return 0;
	}
	if (strstr(path, "/device/model")) {
		snprintf(buf, len, "VIRTUAL-DISK    \n");
		return 0;
	}
	return -ENOENT;
}

int m_exists(void *ctx, const char *path)
{
	int i;

	(void)ctx;
	if (!strcmp(path, "/sys/module/dm_historical_service_time"))
		return !M.hst_absent;
	if (M.absent_module && !strncmp(path, "/sys/module/", 12) &&
	    !strcmp(path + 12, M.absent_module))
		return 0;
	if (!strncmp(path, "/sys/module/", 12))
		return 1;
	if (!strncmp(path, dir, strlen(dir)))
		return access(path, F_OK) == 0;
	if (strstr(path, "bs_delay.so"))
		return M.have_delay_store;
	for (i = 0; i < M.nexists; i++)
		if (!strcmp(M.exists[i], path))
			return 1;
	return 0;
}

int m_readlink_base(void *ctx, const char *path, char *buf,
			   size_t len)
{
	char d;

	(void)ctx;
	if (sscanf(path, "/sys/block/sd%c/device", &d) != 1)
		return -ENOENT;
	snprintf(buf, len, "%d:0:0:1", d - 'a' + 2);
	return 0;
}

int m_make_file(void *ctx, const char *path, uint64_t size,
		       int *created)
{
	(void)ctx;
	(void)size;
	*created = 1;
	add_exists(path);
	return 0;
}

int m_free_bytes(void *ctx, const char *path, uint64_t *avail)
{
	(void)ctx;
	snprintf(M.free_asked, sizeof(M.free_asked), "%s", path);
	*avail = M.free_bytes;
	return 0;
}

int m_unlink(void *ctx, const char *path)
{
	char line[600];

	(void)ctx;
	snprintf(line, sizeof(line), "unlink %s", path);
	record_cmd(line);
	del_exists(path);
	/* the state dir is a real one: the ctl dirs' files are real */
	if (!strncmp(path, dir, strlen(dir)) && unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

int m_write_file(void *ctx, const char *path, const char *text)
{
	unsigned int sn;

	(void)ctx;
	snprintf(M.cmds[M.ncmds++], sizeof(M.cmds[0]), "write %s %s", path,
		 text);
	if (M.store_sim && (sn = store_index(path, "ctl"))) {
		char line[512], err[SP_OPT_ERRLEN];

		snprintf(line, sizeof(line), "%s", text);
		line[strcspn(line, "\n")] = '\0';
		if (delay_opts_parse(store_of(sn), line, DELAY_OPTS_RUNTIME, err,
				     sizeof(err)))
			M.ctl_rejects++;
	}
	return 0;
}

void m_sleep(void *ctx, unsigned int ms)
{
	(void)ctx;
	(void)ms;
}

static int m_netem_record(int clear, const char *netns, const char *dev,
			  const struct sp_netem_spec *spec, int change)
{
	struct netem_call *c;

	if (M.nnetem >= MAXN)
		return -ENOSPC;
	c = &M.netem[M.nnetem++];
	memset(c, 0, sizeof(*c));
	c->clear = clear;
	c->change = change;
	snprintf(c->netns, sizeof(c->netns), "%s", netns ? netns : "");
	snprintf(c->dev, sizeof(c->dev), "%s", dev);
	if (spec)
		c->spec = *spec;
	snprintf(M.cmds[M.ncmds++], sizeof(M.cmds[0]), "netem %s %s %s",
		 clear ? "clear" : "set", netns ? netns : "", dev);
	return 0;
}

static int m_netem_set(void *ctx, const char *netns, const char *dev,
		       const struct sp_netem_spec *spec, int change)
{
	(void)ctx;
	return m_netem_record(0, netns, dev, spec, change);
}

static int m_netem_clear(void *ctx, const char *netns, const char *dev)
{
	(void)ctx;
	m_netem_record(1, netns, dev, NULL, 0);
	return M.netem_clear_ret;
}

static int m_netem_get(void *ctx, const char *netns, const char *dev,
		       struct sp_netem_spec *spec)
{
	(void)ctx;
	(void)netns;
	(void)dev;
	(void)spec;
	return -ENOENT;
}

const struct sp_netem_ops mock_netem = {
	.set = m_netem_set, .clear = m_netem_clear, .get = m_netem_get,
};

/* The last netem call on dev, or NULL. */
const struct netem_call *netem_on(
	const char *dev)
{
	int i;

	for (i = M.nnetem - 1; i >= 0; i--)
		if (!strcmp(M.netem[i].dev, dev))
			return &M.netem[i];
	return NULL;
}
