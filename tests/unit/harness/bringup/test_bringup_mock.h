/* The mock system shared by test_bringup.c and test_bringup_live.c:
 * every command is recorded; namespaces, links, the map, daemons and
 * iSCSI logins are simulated so a teardown can be checked for leaving
 * nothing behind. Static on purpose: each test binary has its own. */
#ifndef SP_TEST_BRINGUP_MOCK_H
#define SP_TEST_BRINGUP_MOCK_H

#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_chap.h"
#include "common/file.h"
#include "common/opttab.h"
#include "tgt-backend/delay_opts.h"

#define MAXC 512
#define MAXE 64
#define MAXN 16

/* One call of the fake netem ops (M.cmds gets a line too, for order). */
struct netem_call {
	int clear, change;
	char netns[64], dev[32];
	struct sp_netem_spec spec;
};

struct mock {
	char cmds[MAXC][512];
	int ncmds;
	const char *fail_match;		/* first run containing it fails */
	int failed;
	const char *interrupt_match;
	char exists[MAXE][128];
	int nexists;
	int pid_alive[64], pid_is_iscsid[64];
	int npids;
	/* what /proc says of each: tgtds ignore SIGTERM (they go on
	 * SIGKILL or `tgtadm --op delete --mode system` on their port) */
	char pid_comm[64][16];
	int pid_ignore_term[64];
	unsigned int pid_port[64];
	unsigned long long pid_netns[64], pid_start[64];
	int pid_pgid[64];
	int pid_stopped[64];		/* SIGSTOP until SIGCONT */
	/* the delay store's ctl and stats, simulated with its own grammar
	 * (delay_opts) when a test sets store_sim; ctl_rejects: lines the
	 * store refused */
	int store_sim, ctl_rejects;
	const char *qtimeout;		/* dm_multipath's no-path timeout */
	struct delay_opts store[MAXN + 1];
	int store_set[MAXN + 1];
	/* someone outside holds the map open (dev_users names them) */
	int other_holders;
	const char *dev_users_out;
	jmp_buf *die;			/* longjmp here at die_match: SIGKILL */
	const char *die_match;
	int map_exists, iscsid_up, have_delay_store;
	const char *absent_module;	/* /sys/module/<it> is missing */
	const char *addr_out, *netns_out, *links_out, *dm_info_out;
	const char *dm_table_out, *dm_status_out, *session_out;
	int logged_in;
	struct netem_call netem[MAXN];
	int nnetem;
	int netem_clear_ret;		/* what the fake clear returns */
	int in_fake;		/* m_run answers for the fake dm/net ops */
	int dmsetup_execs;	/* dmsetup run as a program */
	int ip_execs;		/* ip run as a program */
	uint64_t free_bytes;		/* where the backing file goes */
	char free_asked[256];
	/* HST: not loaded, its bucket_shift file ("" none: a stock
	 * build), its refcnt; modprobe and rmmod change them */
	int hst_absent;
	char hst_shift[8];
	int hst_refcnt;
};

static struct mock M;
static char dir[64];

static void add_exists(const char *path)
{
	if (M.nexists < MAXE)
		snprintf(M.exists[M.nexists++], sizeof(M.exists[0]), "%s", path);
}

static void del_exists(const char *path)
{
	int i;

	for (i = 0; i < M.nexists; i++)
		if (!strcmp(M.exists[i], path))
			M.exists[i][0] = '\0';
}

static __attribute__((unused)) int count_exists(const char *prefix)
{
	int i, n = 0;

	for (i = 0; i < M.nexists; i++)
		if (M.exists[i][0] && !strncmp(M.exists[i], prefix,
					       strlen(prefix)))
			n++;
	return n;
}

static int ran(const char *needle)
{
	int i, n = 0;

	for (i = 0; i < M.ncmds; i++)
		if (strstr(M.cmds[i], needle))
			n++;
	return n;
}

static int first(const char *needle)
{
	int i;

	for (i = 0; i < M.ncmds; i++)
		if (strstr(M.cmds[i], needle))
			return i;
	return -1;
}

static void out(char *buf, size_t len, const char *text)
{
	if (buf && len)
		snprintf(buf, len, "%s", text ? text : "");
}

/* iscsiadm -m session -P3 for the logged-in paths of equal3 */
static char sessions[4096];

static void make_sessions(void)
{
	int i;
	size_t n = 0;

	sessions[0] = '\0';
	for (i = 0; i < 3; i++)
		n += (size_t)snprintf(sessions + n, sizeof(sessions) - n,
			"Target: iqn.2026-11.org.slowpath:up-equal3 (non-flash)\n"
			"\tCurrent Portal: 198.18.0.%d:3260,1\n"
			"\tPersistent Portal: 198.18.0.%d:3260,1\n"
			"\t\tAttached scsi disk sd%c\t\tState: running\n",
			4 * i + 2, 4 * i + 2, 'a' + i);
}

static unsigned long long ns_ino(const char *name)
{
	unsigned long long h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return h;
}

/* A process of the mock's; pgid 0: its own group. */
static int add_proc(const char *comm, int pgid)
{
	int i = M.npids++;

	M.pid_alive[i] = 1;
	M.pid_is_iscsid[i] = !strcmp(comm, "iscsid");
	snprintf(M.pid_comm[i], sizeof(M.pid_comm[i]), "%s", comm);
	M.pid_ignore_term[i] = !strcmp(comm, "tgtd");
	M.pid_start[i] = 7000 + (unsigned long long)i;
	M.pid_pgid[i] = pgid ? pgid : 1000 + i;
	return 1000 + i;
}

static void record_cmd(const char *line)
{
	if (M.ncmds < MAXC)
		snprintf(M.cmds[M.ncmds++], sizeof(M.cmds[0]), "%.500s", line);
}

/* The map's openers: our fios (a dead run's) and anyone else. */
static int map_open_count(void)
{
	int i, n = M.other_holders;

	for (i = 0; i < M.npids; i++)
		if (M.pid_alive[i] && !strcmp(M.pid_comm[i], "fio"))
			n++;
	return n;
}

#define OPEN_QUERY "dmsetup info -c --noheadings --separator   -o " \
		   "open,major,minor"

static int m_run(void *ctx, const char *const *argv, char *o, size_t olen)
{
	char line[512] = "";
	size_t n = 0;
	int i;

	(void)ctx;
	for (i = 0; argv[i]; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s",
				      i ? " " : "", argv[i]);
	if (M.ncmds < MAXC)
		snprintf(M.cmds[M.ncmds++], sizeof(M.cmds[0]), "%s", line);
	if (!M.in_fake && !strcmp(argv[0], "dmsetup"))
		M.dmsetup_execs++;
	if (!M.in_fake && !strcmp(argv[0], "ip"))
		M.ip_execs++;
	out(o, olen, "");
	if (M.interrupt_match && strstr(line, M.interrupt_match))
		sp_bringup_interrupted = 1;
	if (!M.failed && M.fail_match && strstr(line, M.fail_match)) {
		M.failed = 1;
		return 1;
	}
	if (M.die && M.die_match && strstr(line, M.die_match))
		longjmp(*M.die, 1);
	if (!strncmp(line, "tgtadm -C ", 10) &&
	    strstr(line, "--op delete --mode system"))
		for (i = 0; i < M.npids; i++)
			if (M.pid_port[i] == (unsigned int)atoi(argv[2]) &&
			    !strcmp(M.pid_comm[i], "tgtd") &&
			    !M.pid_stopped[i])	/* a stopped one hears none */
				M.pid_alive[i] = 0;
	if (!strncmp(line, "rmdir ", 6) && !strncmp(argv[1], dir, strlen(dir)))
		return rmdir(argv[1]) ? 1 : 0;
	if (!strncmp(line, OPEN_QUERY, strlen(OPEN_QUERY))) {
		char txt[32];

		snprintf(txt, sizeof(txt), "%d 253 3\n", map_open_count());
		out(o, olen, txt);
		return M.map_exists ? 0 : 1;
	}
	if (!strncmp(line, "dmsetup remove", 14) && map_open_count())
		return 1;	/* "Device or resource busy" */
	if (!strcmp(line, "iscsiadm -m session"))
		return M.iscsid_up ? (M.logged_in ? 0 : 21) : 20;
	if (!strcmp(line, "iscsiadm -m session -P3")) {
		out(o, olen, M.logged_in ? sessions : "");
		return M.logged_in ? 0 : 21;
	}
	if (!strncmp(line, "modprobe -q dm_historical_service_time", 38)) {
		const char *b = strstr(line, "bucket_shift=");

		M.hst_absent = 0;
		snprintf(M.hst_shift, sizeof(M.hst_shift), "%s\n",
			 b ? b + 13 : "24");
	}
	if (!strcmp(line, "rmmod dm_historical_service_time")) {
		M.hst_absent = 1;
		M.hst_shift[0] = '\0';
	}
	if (strstr(line, "--login"))
		M.logged_in = 1;
	if (strstr(line, "--logout"))
		M.logged_in = 0;
	if (!strcmp(line, "ip -o -4 addr show"))
		out(o, olen, M.addr_out);
	if (!strcmp(line, "ip netns list"))
		out(o, olen, M.netns_out);
	if (!strcmp(line, "ip -o link show"))
		out(o, olen, M.links_out);
	if (!strncmp(line, "dmsetup info -c --noheadings -o name,uuid", 41))
		out(o, olen, M.dm_info_out);
	if (!strncmp(line, "dmsetup info -c --noheadings -o minor", 37)) {
		out(o, olen, "3\n");
		return M.map_exists ? 0 : 1;
	}
	if (!strncmp(line, "dmsetup info ", 13))
		return M.map_exists ? 0 : 1;
	if (!strncmp(line, "dmsetup table", 13)) {
		out(o, olen, M.dm_table_out);
		return M.map_exists ? 0 : 1;
	}
	if (!strncmp(line, "dmsetup status", 14))
		out(o, olen, M.dm_status_out);
	if (!strncmp(line, "dmsetup create", 14))
		M.map_exists = 1;
	if (!strncmp(line, "dmsetup remove", 14))
		M.map_exists = 0;
	/* What the commands create and remove, as a probe would see it. */
	static const struct {
		const char *cmd, *path_fmt;
		int adds;
	} made[] = {
		{ "ip netns add ", "/run/netns/%s", 1 },
		{ "ip netns del ", "/run/netns/%s", 0 },
		{ "ip link add ", "/sys/class/net/%s", 1 },
		{ "ip link del ", "/sys/class/net/%s", 0 },
	};
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		char p[128];

		if (strncmp(line, made[i].cmd, strlen(made[i].cmd)))
			continue;
		snprintf(p, sizeof(p), made[i].path_fmt, argv[3]);
		if (made[i].adds)
			add_exists(p);
		else
			del_exists(p);
	}
	return 0;
}

static int m_spawn(void *ctx, const char *netns, const char *const *argv,
		   const char *log, pid_t *pid)
{
	int i, iscsid = !strcmp(argv[0], "iscsid");
	char line[512] = "spawn";

	(void)ctx;
	(void)log;
	if (netns)
		snprintf(line, sizeof(line), "spawn in %s:", netns);
	for (i = 0; argv[i]; i++)
		strncat(line, " ", sizeof(line) - strlen(line) - 1),
		strncat(line, argv[i], sizeof(line) - strlen(line) - 1);
	record_cmd(line);
	*pid = add_proc(iscsid ? "iscsid" : "tgtd", 0);
	if (iscsid)
		M.iscsid_up = 1;
	/* "tgtd -f -C PORT ..." in its netns */
	if (netns)
		M.pid_netns[*pid - 1000] = ns_ino(netns);
	for (i = 0; argv[i]; i++) {
		if (!strcmp(argv[i], "-C") && argv[i + 1])
			M.pid_port[*pid - 1000] = (unsigned int)atoi(argv[i + 1]);
	}
	return 0;
}

static void m_signal(int i, int sig)
{
	if (sig == SIGSTOP || sig == SIGCONT) {
		M.pid_stopped[i] = sig == SIGSTOP;
		return;
	}
	/* a stopped process takes nothing but KILL until it continues */
	if (M.pid_stopped[i] && sig != SIGKILL)
		return;
	if (sig == SIGTERM && M.pid_ignore_term[i])
		return;
	M.pid_alive[i] = 0;
	if (M.pid_is_iscsid[i])
		M.iscsid_up = 0;
}

static int m_kill(void *ctx, pid_t pid, int sig)
{
	char line[64];
	int i;

	(void)ctx;
	snprintf(line, sizeof(line), "kill %d %d", sig, (int)pid);
	record_cmd(line);
	if (pid < 0) {
		for (i = 0; i < M.npids; i++)
			if (M.pid_alive[i] && M.pid_pgid[i] == -pid)
				m_signal(i, sig);
	} else if (pid >= 1000 && pid < 1000 + M.npids) {
		m_signal(pid - 1000, sig);
	}
	return 0;
}

static int m_pid_is(void *ctx, pid_t pid, const char *comm)
{
	(void)ctx;
	if (pid < 1000 || pid >= 1000 + M.npids || !M.pid_alive[pid - 1000])
		return 0;
	return !strcmp(comm, M.pid_comm[pid - 1000]);
}

static int m_pid_info(void *ctx, pid_t pid, struct sp_pid_info *pi)
{
	int i = pid - 1000;

	(void)ctx;
	if (i < 0 || i >= M.npids || !M.pid_alive[i])
		return -ENOENT;
	snprintf(pi->comm, sizeof(pi->comm), "%s", M.pid_comm[i]);
	pi->state = 'S';
	pi->pgid = M.pid_pgid[i];
	pi->start = M.pid_start[i];
	pi->netns = M.pid_netns[i];
	return 0;
}

static int m_exists(void *ctx, const char *path);

static int m_file_ino(void *ctx, const char *path, unsigned long long *ino)
{
	if (strncmp(path, "/run/netns/", 11) || !m_exists(ctx, path))
		return -ENOENT;
	*ino = ns_ino(path + 11);
	return 0;
}

static int m_list_pids(void *ctx, pid_t *pids, size_t max)
{
	int i;
	size_t n = 0;

	(void)ctx;
	for (i = 0; i < M.npids && n < max; i++)
		if (M.pid_alive[i])
			pids[n++] = 1000 + i;
	return (int)n;
}

static int m_dev_users(void *ctx, unsigned int major, unsigned int minor,
		       char *buf, size_t len)
{
	(void)ctx;
	(void)major;
	(void)minor;
	out(buf, len, M.dev_users_out);
	return 0;
}

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

static int m_read_file(void *ctx, const char *path, char *buf, size_t len)
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
	if (!strcmp(path, "/proc/net/unix")) {
		snprintf(buf, len, "Num RefCount Protocol Flags Type St Inode "
			 "Path\n%s", M.iscsid_up ? "0000: 00000002 00000000 "
			 "00010000 0001 01 15 @ISCSIADM_ABSTRACT_NAMESPACE\n"
			 : "");
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

static int m_exists(void *ctx, const char *path)
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

static int m_readlink_base(void *ctx, const char *path, char *buf,
			   size_t len)
{
	char d;

	(void)ctx;
	if (sscanf(path, "/sys/block/sd%c/device", &d) != 1)
		return -ENOENT;
	snprintf(buf, len, "%d:0:0:1", d - 'a' + 2);
	return 0;
}

static int m_make_file(void *ctx, const char *path, uint64_t size,
		       int *created)
{
	(void)ctx;
	(void)size;
	*created = 1;
	add_exists(path);
	return 0;
}

static int m_free_bytes(void *ctx, const char *path, uint64_t *avail)
{
	(void)ctx;
	snprintf(M.free_asked, sizeof(M.free_asked), "%s", path);
	*avail = M.free_bytes;
	return 0;
}

static int m_unlink(void *ctx, const char *path)
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

static int m_write_file(void *ctx, const char *path, const char *text)
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

static void m_sleep(void *ctx, unsigned int ms)
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

static const struct sp_netem_ops mock_netem = {
	.set = m_netem_set, .clear = m_netem_clear, .get = m_netem_get,
};

/* The last netem call on dev, or NULL. */
static __attribute__((unused)) const struct netem_call *netem_on(
	const char *dev)
{
	int i;

	for (i = M.nnetem - 1; i >= 0; i--)
		if (!strcmp(M.netem[i].dev, dev))
			return &M.netem[i];
	return NULL;
}

#include "tests/unit/harness/bringup/test_bringup_kernel.h"

static const struct sp_sys_ops mock_ops = {
	.run = m_run, .spawn = m_spawn, .kill = m_kill, .pid_is = m_pid_is,
	.read_file = m_read_file, .exists = m_exists,
	.readlink_base = m_readlink_base, .make_file = m_make_file,
	.free_bytes = m_free_bytes,
	.unlink = m_unlink, .sleep_ms = m_sleep, .write_file = m_write_file,
	.dm = &mock_dm,
	.netem = &mock_netem, .net = &mock_net,
	.pid_info = m_pid_info, .file_ino = m_file_ino,
	.list_pids = m_list_pids, .list_files = sp_sys_list_files,
	.dev_users = m_dev_users,
};

static const char *equal3_text =
	"[topology]\nunit = 500us\nsize = 2G\nselector = st\n"
	"map_name = slowpath-equal3\naddresses = 198.18.0.0/24\n"
	"mechanism = backend\n[path a]\nmultiplier = 1\n"
	"[path b]\nmultiplier = 1\n[path c]\nmultiplier = 2\n";

static struct sp_topo topo;

static int setup(void **state)
{
	char err[SP_TOPO_ERRLEN];

	(void)state;
	memset(&M, 0, sizeof(M));
	M.have_delay_store = 1;
	M.iscsid_up = 1;
	M.free_bytes = UINT64_MAX;
	M.addr_out = "1: lo    inet 127.0.0.1/8 scope host lo\n"
		     "2: eth0    inet 10.0.2.15/24 brd 10.0.2.255 scope global\n";
	make_sessions();
	sp_bringup_interrupted = 0;
	snprintf(dir, sizeof(dir), "/tmp/sp-test-bringup-XXXXXX");
	assert_non_null(mkdtemp(dir));
	if (sp_topo_parse(equal3_text, "equal3.ini", "equal3", &topo, err,
			  sizeof(err)))
		fail_msg("topology: %s", err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sp_state_remove(dir);
	sp_bringup_chap_remove(dir);
	rmdir(dir);
	return 0;
}

static void opts(struct sp_up_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->tag, sizeof(o->tag), "3fa2");
	o->tgtd_wait_s = 1;
	o->disk_wait_s = 1;
}

#endif
