/* The one compiled copy of the bring-up tests' mock system
 * (bringup_mock.h says what it simulates). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/harness/bringup/bringup_mock.h"

struct mock M;
char dir[64];
void add_exists(const char *path)
{
	if (M.nexists < MAXE)
		snprintf(M.exists[M.nexists++], sizeof(M.exists[0]), "%s", path);
}

void del_exists(const char *path)
{
	int i;

	for (i = 0; i < M.nexists; i++)
		if (!strcmp(M.exists[i], path))
			M.exists[i][0] = '\0';
}

int count_exists(const char *prefix)
{
	int i, n = 0;

	for (i = 0; i < M.nexists; i++)
		if (M.exists[i][0] && !strncmp(M.exists[i], prefix,
					       strlen(prefix)))
			n++;
	return n;
}

int ran(const char *needle)
{
	int i, n = 0;

	for (i = 0; i < M.ncmds; i++)
		if (strstr(M.cmds[i], needle))
			n++;
	return n;
}

int first(const char *needle)
{
	int i;

	for (i = 0; i < M.ncmds; i++)
		if (strstr(M.cmds[i], needle))
			return i;
	return -1;
}

void out(char *buf, size_t len, const char *text)
{
	if (buf && len)
		snprintf(buf, len, "%s", text ? text : "");
}

/* iscsiadm -m session -P3 for the logged-in paths of equal3 */
char sessions[4096];

void make_sessions(void)
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

unsigned long long ns_ino(const char *name)
{
	unsigned long long h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return h;
}

/* A process of the mock's; pgid 0: its own group. */
int add_proc(const char *comm, int pgid)
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

void record_cmd(const char *line)
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

int m_run(void *ctx, const char *const *argv, char *o, size_t olen)
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

int m_spawn(void *ctx, const char *netns, const char *const *argv,
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

const struct sp_sys_ops mock_ops = {
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

const char *equal3_text =
	"[topology]\nunit = 500us\nsize = 2G\nselector = st\n"
	"map_name = slowpath-equal3\naddresses = 198.18.0.0/24\n"
	"mechanism = backend\n[path a]\nmultiplier = 1\n"
	"[path b]\nmultiplier = 1\n[path c]\nmultiplier = 2\n";

struct sp_topo topo;

int setup(void **state)
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

int teardown(void **state)
{
	(void)state;
	sp_state_remove(dir);
	sp_bringup_chap_remove(dir);
	rmdir(dir);
	return 0;
}

void opts(struct sp_up_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->tag, sizeof(o->tag), "3fa2");
	o->tgtd_wait_s = 1;
	o->disk_wait_s = 1;
}
