/* `slowpath up` and `down` of an nvme-tcp topology (docs/nvme.md): a
 * loop device over the backing file, one nvmet subsystem serving it as
 * namespace 1, one nvmet-tcp port per path on the target address inside
 * the path's namespace, one `nvme connect` per path from here over the
 * path's veth. The kernel's native multipath makes one disk of them
 * (nvmeSnH) with a hidden disk per path (nvmeScKnH), whose counts are in
 * /proc/diskstats: those are the paths' disks.
 *
 * nvme-cli rather than writing option strings to /dev/nvme-fabrics:
 * it fills in the host NQN and host ID the way every other tool on the
 * machine sees them (/etc/nvme), and `nvme disconnect -n NQN` removes
 * every controller of our subsystem by name, so `down` after a crash
 * needs no controller names from the journal. */
#include "harness/bringup/bringup.h"
#include "harness/bringup/nvme_serial.h"
#include "harness/bringup/nvmet.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYSFS_SUBSYS "/sys/class/nvme-subsystem"
#define SYSFS_CTRL "/sys/class/nvme"

struct nv {
	const struct sp_sys_ops *ops;
	struct sp_state *st;
	int fd;
	char *err;
	size_t errlen;
};

static int journal(struct nv *n, const char *line)
{
	int ret = sp_state_append(n->fd, line);

	return ret ? sp_errf(n->err, n->errlen, ret, "cannot write the state: "
			     "%s", strerror(-ret)) : 0;
}

static int begin(struct nv *n, enum sp_step step, struct sp_state_path *p)
{
	char line[64];

	if (sp_bringup_interrupted)
		return sp_errf(n->err, n->errlen, -EINTR, "interrupted");
	if (p) {
		snprintf(line, sizeof(line), "begin %s %u\n",
			 sp_step_names[step], p->index);
		p->steps |= 1u << step;
	} else {
		snprintf(line, sizeof(line), "begin %s\n", sp_step_names[step]);
		n->st->steps |= 1u << step;
	}
	return journal(n, line);
}

static int loop_setup(struct nv *n)
{
	char out[256], line[64];
	int ret = begin(n, SP_STEP_LOOP, NULL);

	if (ret)
		return ret;
	ret = sp_sys_runv(n->ops, out, sizeof(out), "losetup", "-f", "--show",
			  n->st->backing, NULL);
	if (ret)
		return sp_sys_failed(n->ops, ret, "losetup of the backing file",
				     n->err, n->errlen);
	out[strcspn(out, "\n")] = '\0';
	if (!sp_state_loop_ok(out))
		return sp_errf(n->err, n->errlen, -EIO, "losetup answered '%.64s', "
			       "not a loop device", out);
	/* sp_state_loop_ok bounds it to /dev/loop and 6 digits */
	sp_snprintf(n->st->loop_dev, sizeof(n->st->loop_dev), "%s", out);
	sp_snprintf(line, sizeof(line), "loop %s\n", n->st->loop_dev);
	return journal(n, line);
}

static int subsys_setup(struct nv *n)
{
	struct sp_cfs_plan plan;
	size_t i;
	int ret = begin(n, SP_STEP_NVMET, NULL);

	if (ret)
		return ret;
	ret = sp_nvmet_plan_subsys(n->st, &plan);
	if (ret)
		return sp_errf(n->err, n->errlen, ret, "nvmet subsystem %s: no "
			       "plan: %s", n->st->nqn, strerror(-ret));
	ret = sp_nvmet_apply(n->ops->cfs, &plan, n->err, n->errlen);
	/* each path's own, which down's sweep of our NQNs takes back */
	for (i = 0; !ret && i < n->st->npaths; i++) {
		ret = sp_nvmet_plan_solo(n->st, &n->st->paths[i], &plan);
		if (ret)
			return sp_errf(n->err, n->errlen, ret, "path %s: its "
				       "nvmet subsystem: no plan: %s",
				       n->st->paths[i].label, strerror(-ret));
		ret = sp_nvmet_apply(n->ops->cfs, &plan, n->err, n->errlen);
	}
	return ret;
}

static int port_setup(struct nv *n, struct sp_state_path *p)
{
	struct sp_cfs_plan plan;
	int ret = begin(n, SP_STEP_PORT, p);

	if (ret)
		return ret;
	ret = sp_nvmet_plan_port(n->st, p, &plan);
	if (ret)
		return sp_errf(n->err, n->errlen, ret, "path %s: nvmet port: no "
			       "plan: %s", p->label, strerror(-ret));
	ret = sp_nvmet_apply(n->ops->cfs, &plan, n->err, n->errlen);
	if (ret || (!p->netem_ns && !p->netem_jitter_ns &&
		    !sp_nvme_serial_path(p)))
		return ret;
	/* nvmet has no delay store: the path's whole delay is the wire's */
	ret = begin(n, SP_STEP_NETEM, p);
	return ret ? ret : sp_bringup_netem_apply(n->ops, p, n->err, n->errlen);
}

/* The topology's failover keys ride along as nvme connect's own
 * (sp_initiator_nvme_opts); without them nvme-cli's defaults stand. */
static int connect_path(struct nv *n, struct sp_state_path *p, int solo)
{
	char svc[16], what[80], opts[SP_NVME_OPTS][SP_NVME_OPT_LEN];
	char nqn[SP_NVMET_NQN_MAX];
	const char *argv[12 + SP_NVME_OPTS];
	size_t k, nopts, a = 0;
	int ret = solo ? sp_nvmet_solo_nqn(n->st, p, nqn, sizeof(nqn))
		       : begin(n, SP_STEP_CONNECT, p);

	if (ret)
		return ret;
	snprintf(svc, sizeof(svc), "%d", SP_NVME_TCP_PORT);
	snprintf(what, sizeof(what), "path %s: nvme connect%s", p->label,
		 solo ? " of its own subsystem" : "");
	sp_initiator_nvme_opts(&n->st->init, opts, &nopts);
	argv[a++] = "nvme";
	argv[a++] = "connect";
	argv[a++] = "-t";
	argv[a++] = "tcp";
	argv[a++] = "-a";
	argv[a++] = p->target_ip;
	argv[a++] = "-s";
	argv[a++] = svc;
	argv[a++] = "-n";
	argv[a++] = solo ? nqn : n->st->nqn;
	for (k = 0; k < nopts; k++)
		argv[a++] = opts[k];
	argv[a] = NULL;
	ret = n->ops->run(n->ops->ctx, argv, NULL, 0);
	return ret ? sp_sys_failed(n->ops, ret, what, n->err, n->errlen) : 0;
}

/* The number after prefix in name ("nvme-subsys3" -> 3), or -1. */
static long number_after(const char *name, const char *prefix)
{
	size_t k = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, k) || name[k] < '0' || name[k] > '9')
		return -1;
	v = strtol(name + k, &end, 10);
	return *end ? -1 : v;
}

/* The sysfs name of the subsystem nqn into name: 1 found, 0 not yet. */
static int find_subsys(struct nv *n, const char *want, char *found,
		       size_t found_len, char *list, size_t len)
{
	char path[320], nqn[256], *name, *save;

	if (n->ops->cfs->list_dir(n->ops->cfs->ctx, SYSFS_SUBSYS, list, len))
		return 0;
	for (name = strtok_r(list, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		if (number_after(name, "nvme-subsys") < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/subsysnqn", SYSFS_SUBSYS,
			 name);
		if (n->ops->read_file(n->ops->ctx, path, nqn, sizeof(nqn)))
			continue;
		nqn[strcspn(nqn, "\n")] = '\0';
		if (!strcmp(nqn, want)) {
			snprintf(found, found_len, "%s", name);
			return 1;
		}
	}
	return 0;
}

/* "traddr=198.18.0.2,trsvcid=4420,..." names ip as its traddr */
static int address_is(const char *addr, const char *ip)
{
	const char *t = strstr(addr, "traddr=");
	size_t k = strlen(ip);

	return t && !strncmp(t + 7, ip, k) &&
	       (t[7 + k] == ',' || t[7 + k] == '\n' || !t[7 + k]);
}

/* A path's disk is hidden: it has no dev_t (no dev attribute, no /dev
 * node), only its sysfs entry and its line in /proc/diskstats. */
static int path_disk_there(struct nv *n, const char *disk)
{
	char path[128], size[32];

	snprintf(path, sizeof(path), "/sys/class/block/%s/size", disk);
	return !n->ops->read_file(n->ops->ctx, path, size, sizeof(size));
}

static int dev_of(struct nv *n, const char *disk, unsigned int *major,
		  unsigned int *minor)
{
	char path[128], dev[32];

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", disk);
	return !n->ops->read_file(n->ops->ctx, path, dev, sizeof(dev)) &&
	       sscanf(dev, "%u:%u", major, minor) == 2;
}

/* One look at the subsystem: its namespace disk and the disks of its
 * first want paths. 1 when all are there, 0 not yet. */
static int look(struct nv *n, size_t want)
{
	static char list[8192];
	char path[320], addr[256], *name, *save, size[32];
	long s, h = -1, k, ctrl[SP_TOPO_MAX_PATHS];
	size_t i, found = 0;

	for (i = 0; i < SP_TOPO_MAX_PATHS; i++)
		ctrl[i] = -1;
	if (!n->st->subsys[0] &&
	    !find_subsys(n, n->st->nqn, n->st->subsys, sizeof(n->st->subsys),
			 list, sizeof(list)))
		return 0;
	s = number_after(n->st->subsys, "nvme-subsys");
	snprintf(path, sizeof(path), "%s/%s", SYSFS_SUBSYS, n->st->subsys);
	if (n->ops->cfs->list_dir(n->ops->cfs->ctx, path, list, sizeof(list)))
		return 0;
	for (name = strtok_r(list, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		char head[32];

		snprintf(head, sizeof(head), "nvme%ldn", s);
		if (h < 0 && (h = number_after(name, head)) >= 0)
			snprintf(n->st->head, sizeof(n->st->head), "%s", name);
		if ((k = number_after(name, "nvme")) < 0)
			continue;
		/* a controller: which path is it? */
		snprintf(path, sizeof(path), "%s/%s/address", SYSFS_CTRL, name);
		if (n->ops->read_file(n->ops->ctx, path, addr, sizeof(addr)))
			continue;
		for (i = 0; i < n->st->npaths; i++) {
			struct sp_state_path *p = &n->st->paths[i];

			if (address_is(addr, p->target_ip))
				ctrl[i] = k;
		}
	}
	snprintf(path, sizeof(path), "/sys/class/block/%s/size", n->st->head);
	if (h < 0 || n->ops->read_file(n->ops->ctx, path, size, sizeof(size)) ||
	    atoll(size) <= 0 ||
	    !dev_of(n, n->st->head, &n->st->head_major, &n->st->head_minor))
		return 0;
	n->st->sectors = (uint64_t)atoll(size);
	for (i = 0; i < want; i++) {
		struct sp_state_path *p = &n->st->paths[i];

		if (ctrl[i] < 0)
			continue;
		/* the kernel's name of a path's disk: nvme<subsys>c<ctrl>n<ns> */
		if (!sp_snprintf(p->disk, sizeof(p->disk), "nvme%ldc%ldn%ld",
				 s, ctrl[i], h) &&
		    path_disk_there(n, p->disk)) {
			p->major = p->minor = 0;	/* none: hidden */
			found++;
		}
	}
	return found == want;
}

/* The namespace is scanned after connect has returned: until the
 * disks of the first want paths are there. */
static int wait_disks(struct nv *n, size_t want, unsigned int wait_s)
{
	int64_t deadline = sp_now_ns() + (int64_t)wait_s * SP_NSEC_PER_SEC;

	while (!look(n, want)) {
		if (sp_bringup_interrupted)
			return sp_errf(n->err, n->errlen, -EINTR, "interrupted");
		if (sp_now_ns() >= deadline)
			return sp_errf(n->err, n->errlen, -ETIMEDOUT, "nvme: "
				       "subsystem %s's namespace and %zu path "
				       "disks did not appear within %u s",
				       n->st->nqn, want, wait_s);
		n->ops->sleep_ms(n->ops->ctx, 10);
	}
	return 0;
}

static int find_disks(struct nv *n)
{
	char line[160];
	size_t i;
	int ret;

	for (i = 0; i < n->st->npaths; i++) {
		struct sp_state_path *p = &n->st->paths[i];

		p->has_disk = 1;
		snprintf(line, sizeof(line), "disk %u %s %u:%u\n", p->index,
			 p->disk, p->major, p->minor);
		if ((ret = journal(n, line)))
			return ret;
	}
	n->st->has_head = 1;
	ret = sp_state_fmt_nvme(n->st, line, sizeof(line));
	/* only its head line: transport and loop are journaled already */
	if (!ret)
		ret = journal(n, strstr(line, "head "));
	snprintf(line, sizeof(line), "sectors %llu\n",
		 (unsigned long long)n->st->sectors);
	return ret ? ret : journal(n, line);
}

/* Path p's own subsystem on the host: its disk (a one-path head, which
 * has a dev_t for dm) and the hidden disk under it (whose counts 6.1's
 * head keeps none of). 1 when both are there, 0 not yet. */
static int look_solo(struct nv *n, struct sp_state_path *p)
{
	static char list[8192];
	char nqn[SP_NVMET_NQN_MAX], subsys[32], path[320], want[32];
	char *name, *save;
	long s, h = -1, k = -1;

	if (sp_nvmet_solo_nqn(n->st, p, nqn, sizeof(nqn)) ||
	    !find_subsys(n, nqn, subsys, sizeof(subsys), list, sizeof(list)))
		return 0;
	s = number_after(subsys, "nvme-subsys");
	snprintf(path, sizeof(path), "%s/%s", SYSFS_SUBSYS, subsys);
	if (s < 0 ||
	    n->ops->cfs->list_dir(n->ops->cfs->ctx, path, list, sizeof(list)))
		return 0;
	snprintf(want, sizeof(want), "nvme%ldn", s);
	for (name = strtok_r(list, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		if (h < 0 && (h = number_after(name, want)) >= 0)
			snprintf(p->solo_head, sizeof(p->solo_head), "%s", name);
		if (k < 0)
			k = number_after(name, "nvme");
	}
	if (h < 0 || k < 0 ||
	    sp_snprintf(p->solo_disk, sizeof(p->solo_disk), "nvme%ldc%ldn%ld",
			s, k, h))
		return 0;
	return path_disk_there(n, p->solo_disk) &&
	       dev_of(n, p->solo_head, &p->solo_major, &p->solo_minor);
}

static int find_solo_disks(struct nv *n, unsigned int wait_s)
{
	int64_t deadline = sp_now_ns() + (int64_t)wait_s * SP_NSEC_PER_SEC;
	char line[160];
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < n->st->npaths; i++) {
		struct sp_state_path *p = &n->st->paths[i];

		while (!look_solo(n, p)) {
			if (sp_bringup_interrupted)
				return sp_errf(n->err, n->errlen, -EINTR,
					       "interrupted");
			if (sp_now_ns() >= deadline)
				return sp_errf(n->err, n->errlen, -ETIMEDOUT,
					       "nvme: path %s's own subsystem's "
					       "disk did not appear within %u s",
					       p->label, wait_s);
			n->ops->sleep_ms(n->ops->ctx, 100);
		}
		p->has_solo = 1;
		snprintf(line, sizeof(line), "solo %u %s %u:%u %s\n", p->index,
			 p->solo_head, p->solo_major, p->solo_minor,
			 p->solo_disk);
		ret = journal(n, line);
	}
	return ret;
}

/* dm-multipath over the paths' own disks, bio-based as their heads
 * are, service-time until a run loads another selector. */
static int solo_map(struct nv *n)
{
	char table[4096], dmerr[SP_DM_ERRLEN];
	struct sp_dm_map map;
	size_t i;
	int ret;

	sp_dm_map_init(&map, SP_SEL_ST);
	map.queue_if_no_path = sp_initiator_queues(&n->st->init);
	map.queue_mode = SP_DM_QUEUE_BIO;
	map.sectors = n->st->sectors;
	map.npaths = n->st->npaths;
	for (i = 0; i < map.npaths; i++) {
		map.paths[i].major = n->st->paths[i].solo_major;
		map.paths[i].minor = n->st->paths[i].solo_minor;
	}
	ret = sp_dm_table_build(&map, table, sizeof(table), dmerr,
				sizeof(dmerr));
	if (ret)
		return sp_errf(n->err, n->errlen, ret, "map table: %s", dmerr);
	ret = sp_bringup_load_selector(n->ops, SP_SEL_ST, n->err, n->errlen);
	if (!ret)
		ret = begin(n, SP_STEP_MAP, NULL);
	if (ret)
		return ret;
	ret = n->ops->dm->create(n->ops->dm->ctx, n->st->map_name,
				 n->st->map_uuid, table);
	return ret ? sp_errf(n->err, n->errlen, ret, "creating map %s over "
			     "the paths' own subsystems failed: %s",
			     n->st->map_name, strerror(-ret)) : 0;
}

int sp_bringup_iopolicy_apply(const struct sp_sys_ops *ops,
			      const struct sp_state *st, enum sp_selector kind,
			      char *err, size_t errlen)
{
	const char *want = sp_selector_kernel_name(kind);
	char path[160], got[64], rel[128] = "";
	int ret;

	if (sp_selector_family(kind) != SP_SEL_FAMILY_NVME)
		return sp_errf(err, errlen, -EINVAL, "%s is a dm-multipath "
			       "selector, not an NVMe iopolicy (numa, rr, "
			       "qd); it runs on the map over the paths' own "
			       "subsystems (docs/nvme.md)",
			       sp_selector_short_name(kind));
	if (!st->subsys[0] || strncmp(st->subsys, "nvme-subsys", 11))
		return sp_errf(err, errlen, -ENOENT, "the journal names no "
			       "nvme subsystem");
	snprintf(path, sizeof(path), "%s/%s/iopolicy", SYSFS_SUBSYS,
		 st->subsys);
	ret = ops->write_file(ops->ctx, path, want);
	if (ret == -EINVAL) {
		ops->read_file(ops->ctx, "/proc/sys/kernel/osrelease", rel,
			       sizeof(rel));
		rel[strcspn(rel, "\n")] = '\0';
		return sp_errf(err, errlen, -ENOTSUP, "NVMe iopolicy %s is not "
			       "in this kernel (%s): 6.1 has numa and "
			       "round-robin, queue-depth came with 6.11 "
			       "(bookworm-backports' 6.12 has it)", want,
			       rel[0] ? rel : "?");
	}
	if (ret)
		return sp_errf(err, errlen, ret, "%s: %s", path, strerror(-ret));
	/* read back: the kernel keeps its old one on a word it ignores */
	if (!ops->read_file(ops->ctx, path, got, sizeof(got))) {
		got[strcspn(got, "\n")] = '\0';
		if (strcmp(got, want))
			return sp_errf(err, errlen, -EIO, "%s says %s after %s was "
				       "written", path, got, want);
	}
	return 0;
}

int sp_bringup_iopolicy_set(const struct sp_sys_ops *ops, struct sp_state *st,
			    enum sp_selector kind, const char *state_dir,
			    char *err, size_t errlen)
{
	struct sp_dm_selector sel;
	char line[96];
	int ret = sp_bringup_iopolicy_apply(ops, st, kind, err, errlen);

	if (ret)
		return ret;
	sp_dm_selector_init(&sel, kind);
	ret = sp_state_fmt_selector(&sel, line, sizeof(line));
	if (!ret)
		ret = sp_bringup_record(state_dir, line, err, errlen);
	if (!ret)
		st->sel = sel;
	return ret;
}

int sp_bringup_nvme_up(const struct sp_sys_ops *ops, struct sp_state *st,
		       int fd, unsigned int wait_s, char *err, size_t errlen)
{
	struct nv n = { ops, st, fd, err, errlen };
	size_t i;
	int ret;

	if (!ops->cfs)
		return sp_errf(err, errlen, -ENOTSUP, "nvme-tcp: no configfs ops");
	ret = loop_setup(&n);
	if (!ret)
		ret = subsys_setup(&n);
	for (i = 0; !ret && i < st->npaths; i++)
		ret = port_setup(&n, &st->paths[i]);
	/* numa takes the first path the head lists, and the head lists
	 * its paths as their scans finish, which 6.12 runs after connect
	 * returns (a slow path's later): each path's disk before the next
	 * connect, so the topology's order is the head's */
	for (i = 0; !ret && i < st->npaths; i++) {
		ret = connect_path(&n, &st->paths[i], 0);
		if (!ret)
			ret = wait_disks(&n, i + 1, wait_s);
	}
	for (i = 0; !ret && i < st->npaths; i++)
		ret = connect_path(&n, &st->paths[i], 1);
	if (!ret)
		ret = find_disks(&n);
	if (!ret)
		ret = find_solo_disks(&n, wait_s);
	if (!ret)
		ret = solo_map(&n);
	if (!ret)
		ret = sp_bringup_iopolicy_apply(ops, st, st->sel.kind, err,
						errlen);
	if (!ret)
		sp_info("nvme-tcp: %s on %s, %zu paths; dm-multipath's %s over "
			"each path's own subsystem", st->head, st->subsys,
			st->npaths, st->map_name);
	return ret;
}
