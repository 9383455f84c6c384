/* `slowpath down` of an nvme-tcp topology: the controllers first (an
 * nvmet port with a live controller still goes, but its host would
 * then retry for ctrl_loss_tmo), then every configfs step of up in
 * reverse, then the loop device. A sweep for subsystems of our NQN
 * prefix follows with or without a journal, so a crash anywhere in up
 * leaves nothing. Another's nvmet objects (tests/lab/250's, say) are
 * never touched. */
#include "harness/bringup/bringup.h"
#include "harness/bringup/nvmet.h"

#include "common/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct nvd {
	const struct sp_sys_ops *ops;
	char *left;
	size_t len;
};

static void left(struct nvd *d, const char *what, const char *why)
{
	size_t n = strlen(d->left);

	snprintf(d->left + n, d->len - n, "%s%s%s%s", n ? "; " : "", what,
		 why ? ": " : "", why ? why : "");
}

static void undo_plan(struct nvd *d, const struct sp_cfs_plan *plan)
{
	char err[512];

	if (sp_nvmet_undo(d->ops->cfs, plan, err, sizeof(err)))
		left(d, err, NULL);
}

static void disconnect(struct nvd *d, const char *nqn)
{
	/* every controller of the subsystem, whatever its name */
	sp_sys_runv(d->ops, NULL, 0, "nvme", "disconnect", "-n", nqn, NULL);
}

/* A controller's own delete_controller. One still in its first
 * connect refuses (EBUSY) until that connect is over: with the port
 * still there (controllers go first) that is moments; with it gone, the
 * kernel's admin timeout (60 s). So it is asked again, for at most
 * SETTLE_S. */
#define SETTLE_S 75
static int delete_one(struct nvd *d, const char *name)
{
	char path[160];
	int i, ret = 0;

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/delete_controller",
		 name);
	for (i = 0; i < SETTLE_S * 10; i++) {
		ret = d->ops->cfs->write(d->ops->cfs->ctx, path, "1");
		if (ret != -EBUSY)
			break;
		if (i == 10)
			sp_info("down: nvme controller %s is still connecting; "
				"waiting up to %d s", name, SETTLE_S);
		d->ops->sleep_ms(d->ops->ctx, 100);
	}
	return ret == -ENOENT ? 0 : ret;
}

/* Every controller whose subsystem NQN is ours, deleted through its
 * sysfs delete_controller: nvme-cli's disconnect misses one that is
 * still connecting or reconnecting (an up killed in the middle of its
 * `nvme connect`, whose target port is gone: the host would retry for
 * ctrl_loss_tmo, 600 s). */
static void delete_controllers(struct nvd *d, int note)
{
	static char list[4096];
	char path[160], nqn[256], *name, *save;

	if (d->ops->cfs->list_dir(d->ops->cfs->ctx, "/sys/class/nvme", list,
				  sizeof(list)))
		return;
	for (name = strtok_r(list, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		if (strncmp(name, "nvme", 4) ||
		    strspn(name + 4, "0123456789") != strlen(name + 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/subsysnqn",
			 name);
		if (d->ops->read_file(d->ops->ctx, path, nqn, sizeof(nqn)))
			continue;
		nqn[strcspn(nqn, "\n")] = '\0';
		if (!sp_state_nqn_ok(nqn))
			continue;
		if (delete_one(d, name) && note)
			left(d, name, "controller of ours still there");
	}
}

/* Every loop device losetup lists over file (NULL: over any file in
 * SP_BACKING_DIR, where only up puts files), detached. Lines read
 * "/dev/loop0: [0022]:28 (/var/lib/slowpath/equal3-c4ba.img)". */
static void loop_detach(struct nvd *d, const char *file)
{
	static char out[8192];
	char *line, *save, *colon, *open;

	if (file ? sp_sys_runv(d->ops, out, sizeof(out), "losetup", "-j",
			       file, NULL)
		 : sp_sys_runv(d->ops, out, sizeof(out), "losetup", "-a", NULL))
		out[0] = '\0';
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		open = strrchr(line, '(');
		if (!colon || !open ||
		    strncmp(open + 1, file ? file : SP_BACKING_DIR "/",
			    strlen(file ? file : SP_BACKING_DIR "/")))
			continue;
		*colon = '\0';
		if (sp_state_loop_ok(line) &&
		    sp_sys_runv(d->ops, NULL, 0, "losetup", "-d", line, NULL))
			left(d, line, "losetup -d failed");
	}
}

static void undo_journal(struct nvd *d, const struct sp_state *st)
{
	struct sp_state copy = *st;
	struct sp_cfs_plan plan;
	size_t i;
	int connected = 0;

	for (i = 0; i < st->npaths; i++)
		connected |= !!(st->paths[i].steps & (1u << SP_STEP_CONNECT));
	if (connected) {
		disconnect(d, st->nqn);
		delete_controllers(d, 0);
	}
	for (i = st->npaths; i-- > 0;)
		if (st->paths[i].steps & (1u << SP_STEP_PORT) &&
		    !sp_nvmet_plan_port(st, &st->paths[i], &plan))
			undo_plan(d, &plan);
	/* a crash before losetup answered: the plan's device is not used
	 * by its undo, any loop name makes the plan */
	if (!copy.loop_dev[0])
		snprintf(copy.loop_dev, sizeof(copy.loop_dev), "/dev/loop0");
	if (st->steps & (1u << SP_STEP_NVMET) &&
	    !sp_nvmet_plan_subsys(&copy, &plan))
		undo_plan(d, &plan);
	if (st->steps & (1u << SP_STEP_LOOP) && st->backing[0])
		loop_detach(d, st->backing);
}

static int ours(const char *name)
{
	return sp_state_nqn_ok(name);
}

/* ports/ID/subsystems/OURS unlinked; the port goes when that was all */
static void sweep_ports(struct nvd *d)
{
	static char ports[8192];
	char dir[320], subs[2048], link[640], *id, *save, *s, *save2;
	int mine, others;

	if (d->ops->cfs->list_dir(d->ops->cfs->ctx, SP_NVMET_CFS "/ports",
				  ports, sizeof(ports)))
		return;
	for (id = strtok_r(ports, "\n", &save); id;
	     id = strtok_r(NULL, "\n", &save)) {
		snprintf(dir, sizeof(dir), "%s/ports/%s/subsystems",
			 SP_NVMET_CFS, id);
		if (d->ops->cfs->list_dir(d->ops->cfs->ctx, dir, subs,
					  sizeof(subs)))
			continue;
		mine = others = 0;
		for (s = strtok_r(subs, "\n", &save2); s;
		     s = strtok_r(NULL, "\n", &save2)) {
			if (!ours(s)) {
				others = 1;
				continue;
			}
			mine = 1;
			snprintf(link, sizeof(link), "%s/%s", dir, s);
			if (d->ops->cfs->unlink(d->ops->cfs->ctx, link))
				left(d, link, "cannot unlink");
		}
		snprintf(dir, sizeof(dir), "%s/ports/%s", SP_NVMET_CFS, id);
		if (mine && !others &&
		    d->ops->cfs->rmdir(d->ops->cfs->ctx, dir))
			left(d, dir, "cannot remove");
	}
}

static void sweep_subsystem(struct nvd *d, const char *nqn)
{
	char dir[320], nss[1024], path[400], *ns, *save;

	snprintf(dir, sizeof(dir), "%s/subsystems/%s/namespaces", SP_NVMET_CFS,
		 nqn);
	if (!d->ops->cfs->list_dir(d->ops->cfs->ctx, dir, nss, sizeof(nss)))
		for (ns = strtok_r(nss, "\n", &save); ns;
		     ns = strtok_r(NULL, "\n", &save)) {
			snprintf(path, sizeof(path), "%s/%s/enable", dir, ns);
			d->ops->cfs->write(d->ops->cfs->ctx, path, "0");
			snprintf(path, sizeof(path), "%s/%s", dir, ns);
			d->ops->cfs->rmdir(d->ops->cfs->ctx, path);
		}
	snprintf(dir, sizeof(dir), "%s/subsystems/%s", SP_NVMET_CFS, nqn);
	if (d->ops->cfs->rmdir(d->ops->cfs->ctx, dir))
		left(d, dir, "cannot remove (a namespace or port still uses it)");
}

static void sweep(struct nvd *d)
{
	static char subs[8192];
	char *nqn, *save, *mine[32];
	size_t n = 0, i;

	if (!d->ops->exists(d->ops->ctx, SP_NVMET_CFS "/subsystems") ||
	    d->ops->cfs->list_dir(d->ops->cfs->ctx, SP_NVMET_CFS "/subsystems",
				  subs, sizeof(subs)))
		return;
	for (nqn = strtok_r(subs, "\n", &save); nqn && n < 32;
	     nqn = strtok_r(NULL, "\n", &save))
		if (ours(nqn))
			mine[n++] = nqn;
	/* hosts first, then the ports that serve them, then the rest */
	for (i = 0; i < n; i++)
		disconnect(d, mine[i]);
	delete_controllers(d, 0);
	sweep_ports(d);
	for (i = 0; i < n; i++)
		sweep_subsystem(d, mine[i]);
}

void sp_bringup_nvme_down(const struct sp_sys_ops *ops,
			  const struct sp_state *st, char *leftbuf, size_t len)
{
	struct nvd d = { ops, leftbuf, len };

	int ours = st && st->transport == SP_TRANSPORT_NVME_TCP && st->nqn[0];

	/* without nvmet in configfs (up's preflight mounts it before
	 * anything) nothing of an nvme-tcp up can be there: an iSCSI down
	 * spends no execs on the sweep */
	if (!ops->cfs || (!ours && !ops->exists(ops->ctx, SP_NVMET_CFS)))
		return;
	if (ours)
		undo_journal(&d, st);
	sweep(&d);
	/* also those whose subsystem is gone from nvmet already */
	delete_controllers(&d, 1);
	loop_detach(&d, NULL);
}
