/* The checks of `slowpath up` that can refuse before the system is
 * touched: kernel pieces, the tgt store, address clashes, leftovers of
 * an earlier topology, room for the backing file. Apart from the steps
 * in bringup_up.c so each file reads as one thing. */
#include "harness/bringup/bringup.h"
#include "harness/bringup/nvmet.h"
#include "lab/doctor_check.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* modules.builtin of the running kernel can hold a few hundred lines */
#define BUILTIN_LIST_MAX (256 * 1024)

int sp_bringup_module_present(const struct sp_sys_ops *ops, const char *mod)
{
	char path[160], *list;
	struct utsname u;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/module/%s", mod);
	if (ops->exists(ops->ctx, path))
		return 1;
	/* built in without parameters: no /sys/module entry, but named in
	 * modules.builtin (the uml kernel has every piece built in) */
	if (uname(&u))
		return 0;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.builtin",
		 u.release);
	list = malloc(BUILTIN_LIST_MAX);
	if (list && !ops->read_file(ops->ctx, path, list, BUILTIN_LIST_MAX))
		found = sp_kmod_in_path_list(list, mod);
	free(list);
	return found;
}

/* There, or modprobe loads it. modprobe would find a built-in one too,
 * but a started process costs a lab guest ~35 ms of the host's CPU. */
static int have_module(const struct sp_sys_ops *ops, const char *mod)
{
	if (sp_bringup_module_present(ops, mod))
		return 1;
	return sp_sys_runv(ops, NULL, 0, "modprobe", "-q", mod, NULL) == 0;
}

static int wants_netem(const struct sp_state *st)
{
	size_t i;

	for (i = 0; i < st->npaths; i++)
		if (st->paths[i].netem_ns || st->paths[i].netem_jitter_ns ||
		    st->paths[i].mech != SP_MECH_BACKEND)
			return 1;
	return 0;
}

/* A new backing file is sparse and runs fill only what they write: the
 * published run writes 500M per case. So `up` refuses only when not even
 * that fits, and says how much a run may write when the whole disk does
 * not (the lab's RAM overlay has about 1 GiB for a 2 GiB topology). */
#define SP_BACKING_MIN_FREE (512ULL << 20)
static int backing_fits(const struct sp_sys_ops *ops,
			const struct sp_state *st, char *err, size_t errlen)
{
	uint64_t avail;
	int ret;

	if (!ops->free_bytes || ops->exists(ops->ctx, st->backing))
		return 0;
	ret = ops->free_bytes(ops->ctx, st->backing, &avail);
	if (ret)
		return sp_errf(err, errlen, ret, "backing file %s: cannot tell the free "
			     "space there: %s", st->backing, strerror(-ret));
	if (avail < st->size_bytes && avail < SP_BACKING_MIN_FREE)
		return sp_errf(err, errlen, -ENOSPC, "backing file %s needs %.1f GiB "
			     "(at least %.1f GiB for one published run) but only "
			     "%.1f GiB is free there: free some, or set "
			     "backing_file or a smaller size in the topology",
			     st->backing, sp_gib(st->size_bytes),
			     sp_gib(SP_BACKING_MIN_FREE), sp_gib(avail));
	if (avail < st->size_bytes)
		sp_warn("backing file %s: %.1f GiB free there for a %.1f GiB "
			"disk; runs that write more than that fail with ENOSPC",
			st->backing, sp_gib(avail), sp_gib(st->size_bytes));
	return 0;
}

/* The namespaces and addresses every transport needs. */
static int net_free(const struct sp_sys_ops *ops, const struct sp_state *st,
		    char *err, size_t errlen)
{
	char out[16384], path[256];
	size_t i;
	int ret;

	ret = ops->net->addr4_list(ops->net->ctx, out, sizeof(out));
	if (ret)
		return sp_errf(err, errlen, ret, "cannot list the addresses in "
			       "use: %s", strerror(-ret));
	ret = sp_bringup_addr_clash(st, out, err, errlen);
	for (i = 0; !ret && i < st->npaths; i++) {
		snprintf(path, sizeof(path), "/run/netns/%s",
			 st->paths[i].netns);
		if (ops->exists(ops->ctx, path))
			return sp_errf(err, errlen, -EEXIST, "namespace %s already exists "
				     "(slowpath down removes it)",
				     st->paths[i].netns);
	}
	return ret;
}

/* nvme-tcp: nvmet and the host side of NVMe/TCP, configfs mounted (the
 * lab guest does not mount it; systemd would), no port id of ours
 * taken. */
static int preflight_nvme(const struct sp_sys_ops *ops, struct sp_state *st,
			  char *err, size_t errlen)
{
	const char *mods[] = { "nvme_tcp", "nvmet", "nvmet_tcp", "loop",
			       "veth", "sch_netem" };
	char path[320];
	size_t i, n = wants_netem(st) ? 6 : 5;
	int ret;

	for (i = 0; i < n; i++)
		if (!have_module(ops, mods[i]))
			return sp_errf(err, errlen, -ENOENT, "kernel piece missing: "
				       "module %s is neither loaded nor loadable "
				       "(nvme-tcp topologies need nvme_tcp, "
				       "nvmet, nvmet_tcp and loop)", mods[i]);
	if (!ops->exists(ops->ctx, SP_NVMET_CFS))
		sp_sys_runv(ops, NULL, 0, "mount", "-t", "configfs", "configfs",
			    "/sys/kernel/config", NULL);
	if (!ops->exists(ops->ctx, SP_NVMET_CFS))
		return sp_errf(err, errlen, -ENOENT, "%s is missing: configfs is "
			       "not mounted on /sys/kernel/config, or nvmet "
			       "is not loaded", SP_NVMET_CFS);
	snprintf(path, sizeof(path), "%s/subsystems/%s", SP_NVMET_CFS, st->nqn);
	if (ops->exists(ops->ctx, path))
		return sp_errf(err, errlen, -EEXIST, "nvmet subsystem %s already "
			       "exists (slowpath down removes it)", st->nqn);
	for (i = 0; i < st->npaths; i++) {
		snprintf(path, sizeof(path), "%s/ports/%u", SP_NVMET_CFS,
			 st->paths[i].ctl_port);
		if (ops->exists(ops->ctx, path))
			return sp_errf(err, errlen, -EADDRINUSE, "nvmet port %u of "
				       "path %s is taken (%s exists)",
				       st->paths[i].ctl_port,
				       st->paths[i].label, path);
	}
	snprintf(st->bstype, sizeof(st->bstype), "nvmet");
	ret = net_free(ops, st, err, errlen);
	return ret ? ret : backing_fits(ops, st, err, errlen);
}

int sp_bringup_preflight(const struct sp_sys_ops *ops, struct sp_state *st,
			 char *err, size_t errlen)
{
	/* sd_mod too: without udev (the lab) nothing loads it on demand,
	 * and the sessions' LUNs would never become disks */
	const char *mods[8] = { "dm_multipath", "iscsi_tcp", "veth", "sd_mod" };
	char path[256];
	size_t i, n = 4;
	int ret, all_netem = 1;

	if (st->transport == SP_TRANSPORT_NVME_TCP)
		return preflight_nvme(ops, st, err, errlen);
	ret = sp_bringup_load_selector(ops, st->sel.kind, err, errlen);
	if (ret == -EBUSY)
		return ret;
	if (ret)
		return sp_errf(err, errlen, -ENOENT, "kernel piece missing: the "
			     "%s selector's module %s is neither loaded nor "
			     "loadable (in the lab: build/slowpath lab run -- "
			     "slowpath up ...)", sp_selector_kernel_name(st->sel.kind),
			     sp_selector_module(st->sel.kind));
	if (wants_netem(st))
		mods[n++] = "sch_netem";
	for (i = 0; i < n; i++)
		if (!have_module(ops, mods[i]))
			return sp_errf(err, errlen, -ENOENT, "kernel piece missing: module "
				     "%s is neither loaded nor loadable (in "
				     "the lab: build/slowpath lab run -- "
				     "slowpath up ...)", mods[i]);
	for (i = 0; i < st->npaths; i++)
		if (st->paths[i].mech != SP_MECH_NETEM)
			all_netem = 0;
	snprintf(path, sizeof(path), "%s/bs_delay.so", SP_TGT_BSDIR);
	/* netem-only paths can do without our store, e.g. to tell its
	 * problems from the kernel's */
	if (all_netem && getenv("SLOWPATH_UP_RDWR")) {
		snprintf(st->bstype, sizeof(st->bstype), "rdwr");
	} else if (ops->exists(ops->ctx, path)) {
		snprintf(st->bstype, sizeof(st->bstype), "delay");
	} else if (all_netem) {
		sp_warn("tgt's delay store is not installed (%s); netem-only "
			"paths use rdwr and 'delay set' only changes netem",
			path);
		snprintf(st->bstype, sizeof(st->bstype), "rdwr");
	} else {
		return sp_errf(err, errlen, -ENOENT, "tgt's delay backing store is not "
			     "installed (%s missing): run 'make "
			     "install-backend', or use --mechanism netem",
			     path);
	}
	ret = net_free(ops, st, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < st->npaths; i++) {
		struct sp_state_path *p = &st->paths[i];

		snprintf(path, sizeof(path), "%s/socket.%u", SP_TGT_SOCKDIR,
			 p->ctl_port);
		if (ops->exists(ops->ctx, path))
			return sp_errf(err, errlen, -EADDRINUSE, "tgtd control port %u of "
				     "path %s is taken (%s exists)",
				     p->ctl_port, p->label, path);
	}
	return backing_fits(ops, st, err, errlen);
}
