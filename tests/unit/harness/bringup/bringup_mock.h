/* The mock system of the bring-up and fault tests (test_bringup*.c,
 * test_fault_apply.c, test_fault_own.c): every command is recorded;
 * namespaces, links, the map, daemons and iSCSI logins are simulated so
 * a teardown can be checked for leaving nothing behind. Compiled once
 * (bringup_mock.c, bringup_mock_files.c) and linked into each test that names it in
 * MOCKS_<test> (harness/bringup/module.mk). */
#ifndef SP_TEST_BRINGUP_MOCK_H
#define SP_TEST_BRINGUP_MOCK_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
	const char *builtin_list;	/* modules.builtin ("": none) */
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

extern struct mock M;
extern char dir[64];		/* the state dir: a real one, per test */
extern char sessions[4096];	/* iscsiadm -m session -P3 of equal3 */
extern const struct sp_sys_ops mock_ops;
extern const struct sp_netem_ops mock_netem;
/* the fake device-mapper and links, addresses, namespaces, each op
 * logged as the dmsetup or ip line that would do the same and answered
 * by m_run (bringup_mock_kernel.c) */
extern const struct sp_dm_ops mock_dm;
extern const struct sp_net_ops mock_net;
extern const char *equal3_text;
extern struct sp_topo topo;	/* equal3, parsed by setup() */

void add_exists(const char *path);
void del_exists(const char *path);
/* how many simulated paths start with prefix */
int count_exists(const char *prefix);
/* how many recorded commands contain needle; the first one's index or -1 */
int ran(const char *needle);
int first(const char *needle);
void out(char *buf, size_t len, const char *text);
void make_sessions(void);
unsigned long long ns_ino(const char *name);
/* A process of the mock's; pgid 0: its own group. Its pid. */
int add_proc(const char *comm, int pgid);
void record_cmd(const char *line);
int m_spawn(void *ctx, const char *netns, const char *const *argv,
	    const char *log, pid_t *pid);
/* the fake kernel's commands (mock_ops.run): what a line answers */
int m_run(void *ctx, const char *const *argv, char *o, size_t olen);
/* The last netem call on dev, or NULL. */
const struct netem_call *netem_on(const char *dev);
/* mock_ops' members for files, /sys, /proc and dm (bringup_mock_files.c) */
int m_read_file(void *ctx, const char *path, char *buf, size_t len);
int m_exists(void *ctx, const char *path);
int m_readlink_base(void *ctx, const char *path, char *buf, size_t len);
int m_make_file(void *ctx, const char *path, uint64_t size, int *created);
int m_free_bytes(void *ctx, const char *path, uint64_t *avail);
int m_unlink(void *ctx, const char *path);
int m_write_file(void *ctx, const char *path, const char *text);
void m_sleep(void *ctx, unsigned int ms);
/* cmocka group setup and teardown: M cleared, equal3 parsed, dir made */
int setup(void **state);
int teardown(void **state);
/* up's options with tag 3fa2 and one-second waits */
void opts(struct sp_up_opts *o);

#endif
