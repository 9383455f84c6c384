/* `slowpath down`: undo what the journal says `up` began, in reverse
 * (a dead run's fio, map, sessions and node records, tgtds, namespaces
 * and their qdiscs, veths, iscsid if ours, files), then sweep for
 * anything still wearing our prefixes, so a lost or torn journal still
 * gets cleaned. A map held open by someone else stops it before any
 * path goes. Safe to run any number of times. */
#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_chap.h"

#include "common/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTLEN 65536

struct down {
	const struct sp_sys_ops *ops;
	char *out;
	char left[SP_BRINGUP_ERRLEN];
	/* a map is held open: logging out now would leave it without
	 * paths under its user, so nothing below it is touched */
	int stop;
};

/* A process we may signal: PID, its journaled start time (0: an old
 * journal), the name it must have then, the namespace it must run in. */
struct victim {
	pid_t pid;
	unsigned long long start;
	const char *comm, *netns;
};

static void note_left(struct down *d, const char *fmt, const char *what)
{
	size_t n = strlen(d->left);

	snprintf(d->left + n, sizeof(d->left) - n, "%s", n ? "; " : "");
	n = strlen(d->left);
	snprintf(d->left + n, sizeof(d->left) - n, fmt, what);
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* fn on each line of text; fn may run commands itself, which reuse
 * d->out, so a copy. */
static void each_line_of(struct down *d, void (*fn)(struct down *, char *),
			 const char *text)
{
	char *line, *save, *copy = strdup(text);

	if (!copy)
		return;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fn(d, line);
	free(copy);
}

/* Runs a command whose stdout we walk line by line into fn. */
static void each_line(struct down *d, void (*fn)(struct down *, char *),
		      const char *const *argv)
{
	if (!d->ops->run(d->ops->ctx, argv, d->out, OUTLEN))
		each_line_of(d, fn, d->out);
}

/* "pid 1234 dd, holder dm-4" from dev_users' lines */
static void users_text(const char *lines, char *buf, size_t len)
{
	char copy[2048], *line, *save, a[32], b[64];
	size_t n = 0;

	snprintf(copy, sizeof(copy), "%s", lines);
	buf[0] = '\0';
	for (line = strtok_r(copy, "\n", &save); line && n + 1 < len;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31s %63s", a, b) != 2)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s %s",
				      n ? ", " : "",
				      strcmp(a, "holder") ? "pid " : "", a, b);
		if (n >= len)
			n = len - 1;
	}
}

/* 1 when someone holds the map open, noted with who; our own dead
 * run's fio is gone by now. A moment's grace for a closing user. */
static int map_held(struct down *d, const char *name)
{
	char users[2048], who[1024];
	struct sp_dm_info info;
	unsigned int open_count = 0;
	int round;

	for (round = 0; round < 10; round++) {
		if (d->ops->dm->info(d->ops->dm->ctx, name, &info))
			return 0;	/* the remove will tell */
		open_count = info.open_count > 0 ? (unsigned)info.open_count
						 : 0;
		if (!open_count)
			return 0;
		d->ops->sleep_ms(d->ops->ctx, 200);
	}
	users[0] = '\0';
	if (d->ops->dev_users)
		d->ops->dev_users(d->ops->ctx, info.major, info.minor, users,
				  sizeof(users));
	users_text(users, who, sizeof(who));
	snprintf(users, sizeof(users), "map %s is open %u time%s (%s): close "
		 "it, then run 'slowpath down' again", name, open_count,
		 open_count == 1 ? "" : "s",
		 who[0] ? who : "by no process we can see");
	note_left(d, "%s", users);
	d->stop = 1;
	return 1;
}

static void remove_map(struct down *d, const char *name)
{
	struct sp_dm_info info;

	if (d->ops->dm->info(d->ops->dm->ctx, name, &info))
		return;
	if (map_held(d, name))
		return;
	if (d->ops->dm->remove(d->ops->dm->ctx, name))
		note_left(d, "map %s (in use?)", name);
}

/* The fio of a `run` that died (SIGKILL). fio leads its own process
 * group, but each job process calls setsid(), and once the leader is
 * gone (PDEATHSIG) a job is a child of init: what ties it to the run
 * is being a fio started no earlier than the journaled leader and
 * either in the leader's group, a child of it, or holding our map open
 * (users: dev_users' lines for the map). The leader counts only with
 * its journaled start time; a leader PID now someone else's vouches
 * for no group or child. */
#define MAX_PIDS 8192
static int holds_map(const char *users, pid_t pid)
{
	char key[24];
	size_t n = (size_t)snprintf(key, sizeof(key), "%d ", (int)pid);
	const char *l;

	for (l = users; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1
						       : NULL)
		if (!strncmp(l, key, n))
			return 1;
	return 0;
}

static size_t fio_members(struct down *d, const struct sp_state *st,
			  const char *users, pid_t *out, size_t max)
{
	static pid_t pids[MAX_PIDS];
	struct sp_pid_info pi;
	int i, n = d->ops->list_pids(d->ops->ctx, pids, MAX_PIDS);
	int leader_ours = sp_bringup_pid_ours(d->ops, st->fio_pid,
					      st->fio_start, "fio", NULL);
	int trust = 1;
	size_t k = 0;

	memset(&pi, 0, sizeof(pi));
	if (!d->ops->pid_info(d->ops->ctx, st->fio_pid, &pi) &&
	    pi.state != 'Z' && !leader_ours)
		trust = 0;	/* the PID is someone else's now */
	for (i = 0; i < n && k < max; i++) {
		memset(&pi, 0, sizeof(pi));
		if (d->ops->pid_info(d->ops->ctx, pids[i], &pi) ||
		    pi.state == 'Z' || strcmp(pi.comm, "fio") ||
		    pi.start < st->fio_start)
			continue;
		if (pids[i] == st->fio_pid ? leader_ours :
		    (trust && (pi.pgid == st->fio_pid ||
			       pi.ppid == st->fio_pid)) ||
		    holds_map(users, pids[i]))
			out[k++] = pids[i];
	}
	return k;
}

static void stop_run(struct down *d, const struct sp_state *st)
{
	static char users[4096];
	pid_t members[256];
	struct sp_dm_info info;
	size_t i, n;
	int round;
	char what[64];

	if (st->fio_pid <= 0 || !d->ops->list_pids)
		return;
	/* results of a dead run are lost anyway: no grace */
	for (round = 0; round < 100; round++) {
		users[0] = '\0';
		if (st->map_name[0] && d->ops->dev_users &&
		    !d->ops->dm->info(d->ops->dm->ctx, st->map_name, &info) &&
		    info.open_count > 0)
			d->ops->dev_users(d->ops->ctx, info.major, info.minor,
					  users, sizeof(users));
		n = fio_members(d, st, users, members, 256);
		if (!n)
			return;
		if (round == 0)
			sp_info("stopping the fio of a run that died (pid %d, "
				"%zu process%s)", (int)st->fio_pid, n,
				n == 1 ? "" : "es");
		for (i = 0; i < n; i++)
			d->ops->kill(d->ops->ctx, members[i], SIGKILL);
		d->ops->sleep_ms(d->ops->ctx, 100);
	}
	snprintf(what, sizeof(what), "fio %d", (int)st->fio_pid);
	note_left(d, "%s (still running)", what);
}

/* "NAME UUID" */
static void sweep_map(struct down *d, char *line)
{
	char name[128], uuid[160];

	if (sscanf(line, "%127s %159s", name, uuid) == 2 &&
	    starts(name, SP_TOPO_MAP_PREFIX) && starts(uuid, SP_UP_UUID_PREFIX))
		remove_map(d, name);
}

static void forget_portal(struct down *d, const char *iqn, const char *portal)
{
	sp_sys_runv(d->ops, NULL, 0, "iscsiadm", "-m", "node", "-T", iqn,
		    "-p", portal, "--logout", NULL);
	sp_sys_runv(d->ops, NULL, 0, "iscsiadm", "-m", "node", "-T", iqn,
		    "-p", portal, "-o", "delete", NULL);
	sp_sys_runv(d->ops, NULL, 0, "iscsiadm", "-m", "discoverydb", "-t",
		    "st", "-p", portal, "-o", "delete", NULL);
}

/* session: "tcp: [3] 198.18.0.2:3260,1 IQN (non-flash)";
 * node: "198.18.0.2:3260,1 IQN" */
static void sweep_iscsi(struct down *d, char *line)
{
	char portal[64], iqn[224];
	char *p = strchr(line, ']');

	p = p ? p + 1 : line;
	if (sscanf(p, " %63[^,],%*u %223s", portal, iqn) == 2 &&
	    starts(iqn, SP_UP_IQN_PREFIX))
		forget_portal(d, iqn, portal);
}


/* TERM to all first, then one wait for all: tgtds that linger on their
 * sessions would otherwise cost their grace period one after another.
 * Only a process that is still the one journaled is signalled. */
static void stop_victims(struct down *d, const struct victim *v, size_t n)
{
	size_t i, alive;
	int round;

	for (i = 0; i < n; i++)
		if (sp_bringup_pid_ours(d->ops, v[i].pid, v[i].start,
					v[i].comm, v[i].netns))
			d->ops->kill(d->ops->ctx, v[i].pid, SIGTERM);
	for (round = 0; round < 80; round++) {
		alive = 0;
		for (i = 0; i < n; i++)
			if (sp_bringup_pid_ours(d->ops, v[i].pid, v[i].start,
						v[i].comm, v[i].netns)) {
				alive++;
				/* 5 s of grace, then no more */
				if (round == 50)
					d->ops->kill(d->ops->ctx, v[i].pid,
						     SIGKILL);
			}
		if (!alive)
			return;
		d->ops->sleep_ms(d->ops->ctx, 100);
	}
	for (i = 0; i < n; i++)
		if (sp_bringup_pid_ours(d->ops, v[i].pid, v[i].start,
					v[i].comm, v[i].netns)) {
			char what[64];

			snprintf(what, sizeof(what), "%s %d", v[i].comm,
				 (int)v[i].pid);
			note_left(d, "%s (still running)", what);
		}
}

static void stop_pid(struct down *d, pid_t pid, const char *comm,
		     const char *netns)
{
	struct victim v = { pid, 0, comm, netns };

	stop_victims(d, &v, 1);
}

/* tgtd ignores SIGTERM: its own shutdown is the target's removal
 * (which closes the LUN, so the delay store cleans its directory) and
 * then `--op delete --mode system`, through the path's control port. */
static void stop_tgtds(struct down *d, const struct sp_state *st)
{
	struct victim v[SP_TOPO_MAX_PATHS];
	char port[16];
	size_t i, n = 0;

	for (i = 0; i < st->npaths; i++) {
		const struct sp_state_path *p = &st->paths[i];

		if (!(p->steps & (1u << SP_STEP_TGTD)))
			continue;
		v[n].pid = p->tgtd_pid;
		v[n].start = p->tgtd_start;
		v[n].comm = "tgtd";
		v[n].netns = p->netns;
		if (sp_bringup_pid_ours(d->ops, v[n].pid, v[n].start,
					v[n].comm, v[n].netns)) {
			/* a hang fault stopped it: a stopped tgtd would
			 * answer no tgtadm and ignore SIGTERM */
			d->ops->kill(d->ops->ctx, v[n].pid, SIGCONT);
			snprintf(port, sizeof(port), "%u", p->ctl_port);
			if (p->steps & (1u << SP_STEP_TARGET))
				sp_sys_runv(d->ops, NULL, 0, "tgtadm", "-C",
					    port, "--lld", "iscsi", "--op",
					    "delete", "--mode", "target",
					    "--tid", "1", "--force", NULL);
			sp_sys_runv(d->ops, NULL, 0, "tgtadm", "-C", port,
				    "--lld", "iscsi", "--op", "delete",
				    "--mode", "system", NULL);
		}
		n++;
	}
	/* a moment for them to go on their own before any signal */
	for (i = 0; i < 30; i++) {
		size_t k, alive = 0;

		for (k = 0; k < n; k++)
			alive += (size_t)sp_bringup_pid_ours(d->ops, v[k].pid,
					v[k].start, v[k].comm, v[k].netns);
		if (!alive)
			return;
		d->ops->sleep_ms(d->ops->ctx, 100);
	}
	stop_victims(d, v, n);
}

/* Found by namespace, so in it: the name is check enough. */
static void kill_ns_pid(struct down *d, char *line)
{
	int pid = atoi(line);

	if (pid > 1)
		stop_pid(d, (pid_t)pid, "tgtd", NULL);
}

static void remove_netns(struct down *d, const char *ns)
{
	const struct sp_net_ops *net = d->ops->net;
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", SP_NETNS_DIR, ns);
	if (!d->ops->exists(d->ops->ctx, path))
		return;
	/* tgtds found by namespace: also those a lost journal never named */
	if (!net->netns_pids(net->ctx, ns, d->out, OUTLEN))
		each_line_of(d, kill_ns_pid, d->out);
	if (net->netns_del(net->ctx, ns))
		note_left(d, "namespace %s", ns);
}

/* "slowpath-up-3fa2-1 (id: 0)" */
static void sweep_netns(struct down *d, char *line)
{
	char ns[64];

	if (sscanf(line, "%63s", ns) == 1 && starts(ns, SP_UP_NETNS_PREFIX))
		remove_netns(d, ns);
}

static void remove_link(struct down *d, const char *ifname)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/net/%s", ifname);
	if (!d->ops->exists(d->ops->ctx, path))
		return;
	if (!d->ops->net->link_del(d->ops->net->ctx, ifname))
		return;
	/* a veth whose peer's namespace just went disappears by itself,
	 * a moment later */
	d->ops->sleep_ms(d->ops->ctx, 200);
	if (d->ops->exists(d->ops->ctx, path))
		note_left(d, "link %s", ifname);
}

/* "12: spu3fa2h1@if11: <...>" */
static void sweep_link(struct down *d, char *line)
{
	char name[64], *at;
	size_t i, n = strlen(SP_UP_IF_PREFIX);

	if (sscanf(line, "%*u: %63[^:@ ]", name) != 1 ||
	    !starts(name, SP_UP_IF_PREFIX))
		return;
	for (i = n; i < n + 4; i++)
		if (!strchr("0123456789abcdef", name[i]) || !name[i])
			return;
	if (name[n + 4] != 'h' && name[n + 4] != 't')
		return;
	at = strchr(name, '@');
	if (at)
		*at = '\0';
	remove_link(d, name);
}

/* What the delay store makes in its directory: ctl, stats, hist, and the
 * atomic writer's temp files (".stats.PID.N.tmp"), which a tgtd killed
 * mid-write leaves behind. */
static int store_file(const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(name, "ctl") || !strcmp(name, "stats") || !strcmp(name, "hist"))
		return 1;
	return (!strncmp(name, ".ctl.", 5) || !strncmp(name, ".stats.", 7) ||
		!strncmp(name, ".hist.", 6)) &&
	       n > 4 && !strcmp(name + n - 4, ".tmp");
}

/* The delay store removes it when tgtd closes the LUN; a killed tgtd
 * does not. Only regular files of the store's go; a symlink is never
 * followed, and anything else keeps the directory (and says so). */
static void remove_ctl_dir(struct down *d, const char *dir,
			   const struct sp_state_path *p)
{
	char ctl[256], path[512], names[4096], *name, *save;

	sp_bringup_ctl_dir(dir, p, ctl, sizeof(ctl));
	if (!d->ops->exists(d->ops->ctx, ctl))
		return;
	if (d->ops->list_files &&
	    !d->ops->list_files(d->ops->ctx, ctl, names, sizeof(names)))
		for (name = strtok_r(names, "\n", &save); name;
		     name = strtok_r(NULL, "\n", &save))
			if (store_file(name)) {
				snprintf(path, sizeof(path), "%s/%s", ctl,
					 name);
				d->ops->unlink(d->ops->ctx, path);
			}
	if (sp_sys_runv(d->ops, NULL, 0, "rmdir", ctl, NULL))
		note_left(d, "directory %s", ctl);
}

static void undo_journal(struct down *d, const struct sp_state *st,
			 const char *dir)
{
	char portal[64], path[512];
	size_t i;

	stop_run(d, st);
	if (st->steps & (1u << SP_STEP_MAP) && st->map_name[0])
		remove_map(d, st->map_name);
	if (d->stop)
		return;
	/* controllers before the namespaces their paths run through */
	sp_bringup_nvme_down(d->ops, st, d->left, sizeof(d->left));
	if (st->transport == SP_TRANSPORT_ISCSI && st->iqn[0]) {
		/* all portals at once, as up logged in */
		sp_sys_runv(d->ops, NULL, 0, "iscsiadm", "-m", "node", "-T",
			    st->iqn, "--logout", NULL);
		sp_sys_runv(d->ops, NULL, 0, "iscsiadm", "-m", "node", "-T",
			    st->iqn, "-o", "delete", NULL);
		for (i = 0; i < st->npaths; i++) {
			const struct sp_state_path *p = &st->paths[i];

			if (!(p->steps & (1u << SP_STEP_DISCOVERY)))
				continue;
			sp_bringup_portal(p, portal, sizeof(portal));
			sp_sys_runv(d->ops, NULL, 0, "iscsiadm", "-m",
				    "discoverydb", "-t", "st", "-p", portal,
				    "-o", "delete", NULL);
		}
	}
	stop_tgtds(d, st);
	if (st->has_qtimeout) {
		char was[32];

		/* the module's, not the map's: put back what up found */
		snprintf(was, sizeof(was), "%u\n", st->qtimeout_was);
		if (d->ops->write_file(d->ops->ctx, SP_DM_QTIMEOUT_PARAM, was))
			note_left(d, "%s (set it back by hand)",
				  SP_DM_QTIMEOUT_PARAM);
	}
	for (i = 0; i < st->npaths; i++) {
		const struct sp_state_path *p = &st->paths[i];

		/* the namespace takes its qdisc and the veth's far end */
		if (p->steps & (1u << SP_STEP_NETNS))
			remove_netns(d, p->netns);
		if (p->steps & (1u << SP_STEP_VETH))
			remove_link(d, p->host_if);
		if (p->steps & (1u << SP_STEP_TGTD)) {
			snprintf(path, sizeof(path), "%s/socket.%u",
				 SP_TGT_SOCKDIR, p->ctl_port);
			d->ops->unlink(d->ops->ctx, path);
			snprintf(path, sizeof(path), "%s/socket.%u.lock",
				 SP_TGT_SOCKDIR, p->ctl_port);
			d->ops->unlink(d->ops->ctx, path);
			snprintf(path, sizeof(path), "%s/tgtd-%u.log", dir,
				 p->index);
			d->ops->unlink(d->ops->ctx, path);
			remove_ctl_dir(d, dir, p);
		}
	}
	if (st->steps & (1u << SP_STEP_ISCSID)) {
		struct victim v = { st->iscsid_pid, st->iscsid_start,
				    "iscsid", NULL };

		stop_victims(d, &v, 1);
		snprintf(path, sizeof(path), "%s/iscsid.log", dir);
		d->ops->unlink(d->ops->ctx, path);
	}
	if (st->steps & (1u << SP_STEP_BACKING) && st->backing_created &&
	    st->backing[0] && d->ops->unlink(d->ops->ctx, st->backing))
		note_left(d, "file %s", st->backing);
}

int sp_bringup_down(const struct sp_sys_ops *ops, const struct sp_state *st,
		    const char *state_dir, char *err, size_t errlen)
{
	static char out[OUTLEN];
	struct down d = { .ops = ops, .out = out };
	const char *sessions[] = { "iscsiadm", "-m", "session", NULL };
	const char *nodes[] = { "iscsiadm", "-m", "node", NULL };

	if (st)
		undo_journal(&d, st, state_dir);
	/* maps first: one over nvme-tcp paths' own disks holds them */
	if (!d.stop && !ops->dm->list(ops->dm->ctx, out, sizeof(out)))
		each_line_of(&d, sweep_map, out);
	if (!st && !d.stop)
		sp_bringup_nvme_down(ops, NULL, d.left, sizeof(d.left));
	if (!d.stop) {
		each_line(&d, sweep_iscsi, sessions);
		each_line(&d, sweep_iscsi, nodes);
		if (!ops->net->netns_list(ops->net->ctx, out, sizeof(out)))
			each_line_of(&d, sweep_netns, out);
		if (!ops->net->link_list(ops->net->ctx, out, sizeof(out)))
			each_line_of(&d, sweep_link, out);
	}
	if (d.left[0]) {
		snprintf(err, errlen, "still there: %s", d.left);
		return -EBUSY;
	}
	/* by its fixed name: also when the journal that named it is gone */
	if (sp_bringup_chap_remove(state_dir)) {
		snprintf(err, errlen, "cannot remove %s/%s", state_dir,
			 SP_CHAP_SECRET_FILE);
		return -EIO;
	}
	if (sp_state_remove(state_dir)) {
		snprintf(err, errlen, "cannot remove %s/%s", state_dir,
			 SP_STATE_FILE);
		return -EIO;
	}
	return 0;
}
