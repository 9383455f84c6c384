/* The target of `slowpath run` from the journal `up` wrote: the device
 * fio writes, the disks its paths are counted on, which are slow. */
#include "harness/run/run_loop.h"

#include "common/log.h"
#include "common/strbuf.h"
#include "harness/measure/shares.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* How slow a path was meant to be: its calibration target when `up
 * --calibrate` ran (the injected delays then differ by each path's own
 * cost, which says nothing about which path is slow), else what was
 * planned, the serial stage included. */
static int64_t path_delay(const struct sp_state_path *p)
{
	int64_t d = p->read_ns > p->write_ns ? p->read_ns : p->write_ns;

	if (p->has_calib)
		return p->calib_target_ns;
	return d + p->netem_ns + (p->servers ? p->service_ns : 0);
}

/* A fault left by `slowpath fault` would shape every case, and no
 * case would say so: refused (docs/faults.md). */
static int no_fault_left(const struct sp_state *st, char *err, size_t errlen)
{
	const struct sp_state_path *p;
	size_t i;

	for (i = 0; i < st->npaths; i++) {
		p = &st->paths[i];
		if (p->fault_how[0])
			return sp_errf(err, errlen, -EBUSY, "path %s has a %s "
				       "fault ('%s'): a run measures the "
				       "topology as up made it; 'slowpath "
				       "fault %s restore' first, or give the "
				       "fault to the run (--fault), which "
				       "records it in each case", p->label,
				       p->fault_how, p->fault_spec, p->label);
	}
	return 0;
}

int sp_run_target_from_state(const struct sp_state *st, unsigned int dm_minor,
			     struct sp_run_target *t, char *err,
			     size_t errlen)
{
	double delay[SP_CASE_MAX_PATHS];
	size_t i;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!st->complete) {
		snprintf(err, errlen, "topology %s is not fully up; run "
			 "'slowpath down' and 'slowpath up' again",
			 st->topology);
		return -EINVAL;
	}
	if (!st->npaths || st->npaths > SP_CASE_MAX_PATHS) {
		snprintf(err, errlen, "topology %s has %zu paths; run handles "
			 "1 to %d", st->topology, st->npaths,
			 SP_CASE_MAX_PATHS);
		return -EINVAL;
	}
	ret = no_fault_left(st, err, errlen);
	if (ret)
		return ret;
	snprintf(t->topology, sizeof(t->topology), "%s", st->topology);
	snprintf(t->map_name, sizeof(t->map_name), "%s", st->map_name);
	snprintf(t->map_uuid, sizeof(t->map_uuid), "%s", st->map_uuid);
	/* nvme-tcp: the namespace's disk is what fio reads and what
	 * /proc/diskstats names for the whole (docs/nvme.md) */
	if (st->transport == SP_TRANSPORT_NVME_TCP) {
		snprintf(t->device, sizeof(t->device), "/dev/%s", st->head);
		if (sp_snprintf(t->dm_name, sizeof(t->dm_name), "%s",
				st->head)) {
			snprintf(err, errlen, "disk name %s too long",
				 st->head);
			return -EINVAL;
		}
		t->map_sums_paths = 1;
	} else {
		snprintf(t->device, sizeof(t->device), "/dev/mapper/%s",
			 st->map_name);
		snprintf(t->dm_name, sizeof(t->dm_name), "dm-%u", dm_minor);
	}
	t->initial = st->sel;
	t->n_paths = st->npaths;
	for (i = 0; i < st->npaths; i++) {
		const struct sp_state_path *p = &st->paths[i];

		if (!p->has_disk || !p->disk[0] ||
		    strlen(p->disk) >= sizeof(t->path[i])) {
			snprintf(err, errlen, "path %s of %s has no disk "
				 "recorded", p->label, st->topology);
			return -EINVAL;
		}
		snprintf(t->path[i], sizeof(t->path[i]), "%s", p->disk);
		snprintf(t->label[i], sizeof(t->label[i]), "%s", p->label);
		t->delay_ns[i] = path_delay(p);
		delay[i] = (double)t->delay_ns[i];
	}
	sp_slow_marks(delay, st->npaths, t->slow);
	t->scale = st->scale ? st->scale : 1;
	for (i = 0; i < st->npaths; i++) {
		t->has_resid[i] = st->paths[i].has_calib;
		t->resid[i] = sp_state_calib_residual(&st->paths[i]);
	}
	return 0;
}

int sp_run_target_solo(const struct sp_state *st, unsigned int dm_minor,
		       const struct sp_run_target *native,
		       struct sp_run_target *t, char *err, size_t errlen)
{
	size_t i;

	*t = *native;
	t->dm_alt = NULL;
	t->map_sums_paths = 0;
	snprintf(t->device, sizeof(t->device), "/dev/mapper/%s", st->map_name);
	snprintf(t->dm_name, sizeof(t->dm_name), "dm-%u", dm_minor);
	for (i = 0; i < st->npaths; i++) {
		const struct sp_state_path *p = &st->paths[i];

		if (!p->has_solo || sp_snprintf(t->path[i], sizeof(t->path[i]),
						"%s", p->solo_disk))
			return sp_errf(err, errlen, -EINVAL, "path %s of %s "
				       "has no disk of its own subsystem "
				       "recorded (up before dm-multipath "
				       "over nvme-tcp: down and up again)",
				       p->label, st->topology);
	}
	return 0;
}
