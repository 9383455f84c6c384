/* Compacting the /run/slowpath journal: `run` appends a selector line
 * per case and `delay set` a line per change, so a long campaign grows
 * it without bound. The replayed picture is written back as a fresh
 * journal (header, plan, steps begun, PIDs, disks) through the atomic
 * writer, so a crash leaves the old journal or the new one, and both
 * replay to the same struct sp_state. */
#include "harness/bringup/state.h"
#include "common/file.h"
#include "common/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Appends one formatted line; fmt_fn's -ENOSPC ends the picture. */
struct out {
	char *buf;
	size_t len, used;
	int ret;
};

static void put(struct out *o, const char *line)
{
	size_t n = strlen(line);

	if (o->ret)
		return;
	if (o->used + n >= o->len) {
		o->ret = -ENOSPC;
		return;
	}
	memcpy(o->buf + o->used, line, n + 1);
	o->used += n;
}

static void put_ret(struct out *o, int ret, const char *line)
{
	if (ret && !o->ret)
		o->ret = ret;
	put(o, line);
}

int sp_state_fmt_all(const struct sp_state *st, char *buf, size_t len)
{
	struct out o = { buf, len, 0, 0 };
	char line[2048];
	size_t i;
	int s;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	put_ret(&o, sp_state_fmt_header(st, line, sizeof(line)), line);
	/* a path line carries the current delays: no delay lines needed */
	for (i = 0; i < st->npaths; i++)
		put_ret(&o, sp_state_fmt_path(&st->paths[i], line,
					      sizeof(line)), line);
	if (st->chap_user[0]) {
		snprintf(line, sizeof(line), "chap %s\n", st->chap_user);
		put(&o, line);
	}
	put_ret(&o, sp_state_fmt_scale(st, line, sizeof(line)), line);
	put_ret(&o, sp_state_fmt_initiator(st, line, sizeof(line)), line);
	if (st->bstype[0]) {
		snprintf(line, sizeof(line), "store %s\n", st->bstype);
		put(&o, line);
	}
	put_ret(&o, sp_state_fmt_nvme(st, line, sizeof(line)), line);
	for (s = 0; s < SP_STEP_COUNT; s++)
		if (st->steps & (1u << s)) {
			snprintf(line, sizeof(line), "begin %s\n",
				 sp_step_names[s]);
			put(&o, line);
		}
	if (st->iscsid_pid)
		put_ret(&o, sp_state_fmt_pid("iscsid", 0, st->iscsid_pid,
					     st->iscsid_start, line,
					     sizeof(line)), line);
	for (i = 0; i < st->npaths; i++) {
		const struct sp_state_path *p = &st->paths[i];

		for (s = 0; s < SP_STEP_COUNT; s++)
			if (p->steps & (1u << s)) {
				snprintf(line, sizeof(line), "begin %s %u\n",
					 sp_step_names[s], p->index);
				put(&o, line);
			}
		if (p->tgtd_pid)
			put_ret(&o, sp_state_fmt_pid("tgtd", p->index,
						     p->tgtd_pid, p->tgtd_start,
						     line, sizeof(line)), line);
		if (p->has_disk) {
			snprintf(line, sizeof(line), "disk %u %s %u:%u\n",
				 p->index, p->disk, p->major, p->minor);
			put(&o, line);
		}
		if (p->has_calib)
			put_ret(&o, sp_state_fmt_calib(p, line, sizeof(line)),
				line);
		if (p->fault_how[0])
			put_ret(&o, sp_state_fmt_fault_id(p->index,
							  p->fault_how,
							  p->fault_id,
							  p->fault_spec, line,
							  sizeof(line)), line);
	}
	if (st->sectors) {
		snprintf(line, sizeof(line), "sectors %llu\n",
			 (unsigned long long)st->sectors);
		put(&o, line);
	}
	if (st->fio_pid)
		put_ret(&o, sp_state_fmt_run(st->fio_pid, st->fio_start, line,
					     sizeof(line)), line);
	if (st->complete)
		put(&o, "complete\n");
	return o.ret;
}

int sp_state_compact(const char *dir, size_t limit, char *err,
		     size_t errlen)
{
	static struct sp_state st;
	char path[512];
	struct stat sb;
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : sp_state_dir(),
		 SP_STATE_FILE);
	if (stat(path, &sb))
		return -errno;
	if ((size_t)sb.st_size <= limit)
		return 0;
	ret = sp_state_load(dir, &st, err, errlen);
	if (ret)
		return ret;
	/* the plan with SP_TOPO_MAX_PATHS paths is far below this */
	text = malloc(SP_STATE_COMPACT_AT);
	if (!text)
		return -ENOMEM;
	ret = sp_state_fmt_all(&st, text, SP_STATE_COMPACT_AT);
	if (!ret)
		ret = sp_file_write_atomic(path, text, strlen(text), 0644);
	free(text);
	return ret;
}
