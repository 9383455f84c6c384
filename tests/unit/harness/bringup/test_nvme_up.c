/* `up` over nvme-tcp against a fake kernel whose namespace scans finish
 * after `nvme connect` has returned, a slow path's later, as 6.12's do:
 * the head lists its paths in the order their scans finished, numa
 * takes the first, so up waits for each path's disk before the next
 * connect and the head's order is the topology's. Before, up connected
 * every path and then waited: the fast path's scan finished first and
 * numa, meant for path 1, ran on path 2 (reproduce nvme-latency-2025 on
 * the 6.12 exact-time lab: numa 113 MiB/s on the fast path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/nvmet.h"

#define NQN "nqn.2026-12.io.slowpath:up-t-3fa2"
#define MAXCTRL 8

/* The fake kernel: controllers in connect order, each scanned once
 * lag[path] sleeps have passed since its connect. */
static struct {
	int nctrl;
	int path_of[MAXCTRL];		/* controller -> path (0-based) */
	int solo[MAXCTRL];		/* of the path's own subsystem */
	int wait_left[MAXCTRL];		/* sleeps until scanned, -1 done */
	int lag[2];
	int head_order[MAXCTRL], nhead;	/* shared: paths as scanned */
	int connects_before_first_scan;
} K;

static const char *ips[2] = { "198.18.0.2", "198.18.0.6" };

static int path_of_ip(const char *ip)
{
	return !strcmp(ip, ips[0]) ? 0 : !strcmp(ip, ips[1]) ? 1 : -1;
}

static int f_run(void *ctx, const char *const *argv, char *out, size_t len)
{
	const char *ip = NULL, *nqn = NULL;
	int i, c;

	(void)ctx;
	if (!strcmp(argv[0], "losetup")) {
		snprintf(out, len, "/dev/loop3\n");
		return 0;
	}
	if (strcmp(argv[0], "nvme") || strcmp(argv[1], "connect"))
		return 0;
	for (i = 2; argv[i] && argv[i + 1]; i++) {
		if (!strcmp(argv[i], "-a"))
			ip = argv[i + 1];
		if (!strcmp(argv[i], "-n"))
			nqn = argv[i + 1];
	}
	assert_non_null(ip);
	assert_non_null(nqn);
	c = K.nctrl++;
	K.path_of[c] = path_of_ip(ip);
	K.solo[c] = strcmp(nqn, NQN) != 0;
	K.wait_left[c] = K.solo[c] ? 0 : K.lag[K.path_of[c]];
	if (!K.solo[c] && !K.nhead)
		K.connects_before_first_scan++;
	return 0;
}

static void scan(void)
{
	int c;

	for (c = 0; c < K.nctrl; c++) {
		if (K.wait_left[c] > 0) {
			K.wait_left[c]--;
			continue;
		}
		if (K.wait_left[c] == 0 && !K.solo[c])
			K.head_order[K.nhead++] = K.path_of[c];
		if (K.wait_left[c] == 0)
			K.wait_left[c] = -1;
	}
}

static void f_sleep(void *ctx, unsigned int ms)
{
	(void)ctx;
	(void)ms;
	scan();
}

/* subsystem 0 is the shared one, s >= 1 path s-1's own */
static int subsys_of(int c)
{
	return K.solo[c] ? K.path_of[c] + 1 : 0;
}

static int scanned_ctrl(int s, int k)
{
	return k < K.nctrl && subsys_of(k) == s && K.wait_left[k] < 0;
}

static int f_read(void *ctx, const char *path, char *buf, size_t len)
{
	int s, k, n;

	(void)ctx;
	/* %n is set only when the whole literal matched: n stays 0 else */
	n = 0;
	if (sscanf(path, "/sys/class/nvme-subsystem/nvme-subsys%d/subsysnqn%n",
		   &s, &n) == 1 && n && !path[n]) {
		if (s == 0)
			snprintf(buf, len, "%s\n", NQN);
		else
			snprintf(buf, len, "%s.p%d\n", NQN, s);
		return 0;
	}
	n = 0;
	if (sscanf(path, "/sys/class/nvme/nvme%d/address%n", &k, &n) == 1 &&
	    n && !path[n] && k < K.nctrl) {
		snprintf(buf, len, "traddr=%s,trsvcid=4420\n",
			 ips[K.path_of[k]]);
		return 0;
	}
	n = 0;
	if (sscanf(path, "/sys/class/block/nvme%dc%dn1/size%n", &s, &k, &n) == 2 &&
	    n && !path[n] && scanned_ctrl(s, k)) {
		snprintf(buf, len, "4194304\n");
		return 0;
	}
	n = 0;
	if (sscanf(path, "/sys/class/block/nvme%dn1/%n", &s, &n) == 1 && n) {
		for (k = 0; k < K.nctrl; k++)
			if (scanned_ctrl(s, k))
				break;
		if (k == K.nctrl)
			return -ENOENT;
		snprintf(buf, len, !strcmp(path + n, "size") ? "4194304\n"
				   : "259:%d\n", s);
		return 0;
	}
	if (strstr(path, "/iopolicy")) {
		snprintf(buf, len, "numa\n");
		return 0;
	}
	return -ENOENT;
}

static int f_list(void *ctx, const char *dir, char *buf, size_t len)
{
	size_t o = 0;
	int s, k, n, any = 0;

	(void)ctx;
	buf[0] = '\0';
	if (!strcmp(dir, "/sys/class/nvme-subsystem")) {
		for (s = 0; s <= 2; s++)
			for (k = 0; k < K.nctrl; k++)
				if (subsys_of(k) == s) {
					o += (size_t)snprintf(buf + o, len - o,
						"nvme-subsys%d\n", s);
					break;
				}
		return 0;
	}
	n = 0;
	if (sscanf(dir, "/sys/class/nvme-subsystem/nvme-subsys%d%n", &s, &n) != 1 ||
	    !n || dir[n])
		return -ENOENT;
	for (k = 0; k < K.nctrl; k++)
		any |= scanned_ctrl(s, k);
	if (any)
		o += (size_t)snprintf(buf + o, len - o, "nvme%dn1\n", s);
	for (k = 0; k < K.nctrl; k++)
		if (subsys_of(k) == s)
			o += (size_t)snprintf(buf + o, len - o, "nvme%d\n", k);
	return 0;
}

static int f_cfs_ok(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return 0;
}

static int f_cfs_write(void *ctx, const char *path, const char *text)
{
	(void)ctx;
	(void)path;
	(void)text;
	return 0;
}

static int f_symlink(void *ctx, const char *netns, const char *target,
		     const char *linkpath)
{
	(void)ctx;
	(void)netns;
	(void)target;
	(void)linkpath;
	return 0;
}

static int f_exists(void *ctx, const char *path)
{
	(void)ctx;
	return !strncmp(path, "/sys/module/", 12);
}

static int f_write(void *ctx, const char *path, const char *text)
{
	(void)ctx;
	(void)path;
	(void)text;
	return 0;
}

static const char *f_error(void *ctx)
{
	(void)ctx;
	return "";
}

static int f_create(void *ctx, const char *name, const char *uuid,
		    const char *table)
{
	(void)ctx;
	(void)name;
	(void)uuid;
	assert_non_null(strstr(table, "queue_mode bio"));
	return 0;
}

static const struct sp_cfs_ops fake_cfs = {
	.mkdir = f_cfs_ok, .rmdir = f_cfs_ok, .write = f_cfs_write,
	.symlink = f_symlink, .unlink = f_cfs_ok, .list_dir = f_list,
};
static const struct sp_dm_ops fake_dm = { .create = f_create };

static struct sp_sys_ops fake_ops(void)
{
	struct sp_sys_ops o;

	memset(&o, 0, sizeof(o));
	o.run = f_run;
	o.read_file = f_read;
	o.exists = f_exists;
	o.write_file = f_write;
	o.sleep_ms = f_sleep;
	o.last_error = f_error;
	o.dm = &fake_dm;
	o.cfs = &fake_cfs;
	return o;
}

/* two paths, path 1 (a) the slow one */
static void two_paths(struct sp_state *st)
{
	size_t i;

	sp_state_init(st);
	st->transport = SP_TRANSPORT_NVME_TCP;
	snprintf(st->nqn, sizeof(st->nqn), "%s", NQN);
	snprintf(st->backing, sizeof(st->backing), "/var/lib/slowpath/t.img");
	snprintf(st->map_name, sizeof(st->map_name), "slowpath-t");
	snprintf(st->map_uuid, sizeof(st->map_uuid), "slowpath-t-3fa2");
	sp_dm_selector_init(&st->sel, SP_SEL_NUMA);
	st->npaths = 2;
	for (i = 0; i < 2; i++) {
		struct sp_state_path *p = &st->paths[i];

		p->index = (unsigned int)i + 1;
		snprintf(p->label, sizeof(p->label), "%c", (char)('a' + i));
		snprintf(p->netns, sizeof(p->netns), "slowpath-t-3fa2-%zu",
			 i + 1);
		snprintf(p->target_ip, sizeof(p->target_ip), "%s", ips[i]);
		p->ctl_port = 20001 + (unsigned int)i;
	}
}

static void head_lists_paths_in_topology_order(void **state)
{
	static struct sp_state st;
	struct sp_sys_ops ops = fake_ops();
	char err[512], journal[] = "/tmp/test_nvme_up.XXXXXX";
	int fd = mkstemp(journal);

	(void)state;
	assert_true(fd >= 0);
	memset(&K, 0, sizeof(K));
	K.lag[0] = 5;	/* the slow path's scan: five looks later */
	two_paths(&st);
	assert_int_equal(sp_bringup_nvme_up(&ops, &st, fd, 5, err,
					    sizeof(err)), 0);
	/* path 1 scanned first, alone: the second connect waited for it */
	assert_int_equal(K.nhead, 2);
	assert_int_equal(K.head_order[0], 0);
	assert_int_equal(K.head_order[1], 1);
	assert_int_equal(K.connects_before_first_scan, 1);
	assert_string_equal(st.head, "nvme0n1");
	assert_string_equal(st.paths[0].disk, "nvme0c0n1");
	assert_string_equal(st.paths[1].disk, "nvme0c1n1");
	/* each path's own subsystem after the shared one's */
	assert_true(st.paths[0].has_solo);
	assert_string_equal(st.paths[1].solo_head, "nvme2n1");
	close(fd);
	unlink(journal);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(head_lists_paths_in_topology_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
