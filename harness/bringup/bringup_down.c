/* `slowpath down`: undo what the journal says `up` began, in reverse
 * (map, sessions and node records, tgtds, namespaces and their qdiscs,
 * veths, iscsid if ours, files), then sweep for anything still wearing
 * our prefixes, so a lost or torn journal still gets cleaned. Safe to
 * run any number of times. */
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

/* Runs a command whose stdout we walk line by line into fn. */
static void each_line(struct down *d, void (*fn)(struct down *, char *),
		      const char *const *argv)
{
	char *line, *save;

	if (d->ops->run(d->ops->ctx, argv, d->out, OUTLEN))
		return;
	/* fn may run commands itself, which reuse d->out */
	{
		char *copy = strdup(d->out);

		if (!copy)
			return;
		for (line = strtok_r(copy, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			fn(d, line);
		free(copy);
	}
}

static void remove_map(struct down *d, const char *name)
{
	if (sp_sys_runv(d->ops, NULL, 0, "dmsetup", "info", name, NULL))
		return;
	if (sp_sys_runv(d->ops, NULL, 0, "dmsetup", "remove", "--retry",
			"--noudevsync", name, NULL))
		note_left(d, "map %s (in use?)", name);
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
 * sessions would otherwise cost their grace period one after another. */
static void stop_pids(struct down *d, const pid_t *pids, size_t n,
		      const char *comm)
{
	size_t i, alive;
	int round;

	for (i = 0; i < n; i++)
		if (pids[i] > 0 && d->ops->pid_is(d->ops->ctx, pids[i], comm))
			d->ops->kill(d->ops->ctx, pids[i], SIGTERM);
	for (round = 0; round < 80; round++) {
		alive = 0;
		for (i = 0; i < n; i++)
			if (pids[i] > 0 &&
			    d->ops->pid_is(d->ops->ctx, pids[i], comm)) {
				alive++;
				/* 5 s of grace, then no more */
				if (round == 50)
					d->ops->kill(d->ops->ctx, pids[i],
						     SIGKILL);
			}
		if (!alive)
			return;
		d->ops->sleep_ms(d->ops->ctx, 100);
	}
	for (i = 0; i < n; i++)
		if (pids[i] > 0 && d->ops->pid_is(d->ops->ctx, pids[i], comm)) {
			char what[64];

			snprintf(what, sizeof(what), "%s %d", comm,
				 (int)pids[i]);
			note_left(d, "%s (still running)", what);
		}
}

static void stop_pid(struct down *d, pid_t pid, const char *comm)
{
	stop_pids(d, &pid, 1, comm);
}

static void kill_ns_pid(struct down *d, char *line)
{
	int pid = atoi(line);

	if (pid > 1)
		stop_pid(d, (pid_t)pid, "tgtd");
}

static void remove_netns(struct down *d, const char *ns)
{
	char path[128];
	const char *argv[] = { "ip", "netns", "pids", ns, NULL };

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if (!d->ops->exists(d->ops->ctx, path))
		return;
	/* tgtds found by namespace: also those a lost journal never named */
	each_line(d, kill_ns_pid, argv);
	if (sp_sys_runv(d->ops, NULL, 0, "ip", "netns", "del", ns, NULL))
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
	if (!sp_sys_runv(d->ops, NULL, 0, "ip", "link", "del", ifname, NULL))
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

/* The delay store removes it when tgtd closes the LUN; a killed tgtd
 * does not. */
static void remove_ctl_dir(struct down *d, const char *dir,
			   const struct sp_state_path *p)
{
	char ctl[256], path[300];

	sp_bringup_ctl_dir(dir, p, ctl, sizeof(ctl));
	if (!d->ops->exists(d->ops->ctx, ctl))
		return;
	snprintf(path, sizeof(path), "%s/ctl", ctl);
	d->ops->unlink(d->ops->ctx, path);
	snprintf(path, sizeof(path), "%s/stats", ctl);
	d->ops->unlink(d->ops->ctx, path);
	if (sp_sys_runv(d->ops, NULL, 0, "rmdir", ctl, NULL))
		note_left(d, "directory %s", ctl);
}

static void undo_journal(struct down *d, const struct sp_state *st,
			 const char *dir)
{
	char portal[64], path[512];
	size_t i;

	if (st->steps & (1u << SP_STEP_MAP) && st->map_name[0])
		remove_map(d, st->map_name);
	if (st->iqn[0]) {
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
	{
		pid_t pids[SP_TOPO_MAX_PATHS];
		size_t n = 0;

		for (i = 0; i < st->npaths; i++)
			if (st->paths[i].steps & (1u << SP_STEP_TGTD))
				pids[n++] = st->paths[i].tgtd_pid;
		stop_pids(d, pids, n, "tgtd");
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
		stop_pid(d, st->iscsid_pid, "iscsid");
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
	const char *maps[] = { "dmsetup", "info", "-c", "--noheadings", "-o",
			       "name,uuid", "--separator", " ", NULL };
	const char *sessions[] = { "iscsiadm", "-m", "session", NULL };
	const char *nodes[] = { "iscsiadm", "-m", "node", NULL };
	const char *netns[] = { "ip", "netns", "list", NULL };
	const char *links[] = { "ip", "-o", "link", "show", NULL };

	if (st)
		undo_journal(&d, st, state_dir);
	each_line(&d, sweep_map, maps);
	each_line(&d, sweep_iscsi, sessions);
	each_line(&d, sweep_iscsi, nodes);
	each_line(&d, sweep_netns, netns);
	each_line(&d, sweep_link, links);
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
