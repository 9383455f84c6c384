/* Is a journaled PID still the process we started? A PID is reused
 * once its process is gone, and a tgtd of the system's own tgt service
 * has the same name as ours: the start time (field 22 of /proc/PID/stat)
 * and, for a tgtd, its network namespace tell them apart before any
 * signal is sent. */
#include "harness/bringup/bringup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sp_pid_stat_parse(const char *text, struct sp_pid_info *pi)
{
	const char *open_ = strchr(text, '('), *close_ = strrchr(text, ')');
	const char *p;
	char *end;
	size_t n;
	int field;

	/* comm may hold spaces and parentheses: it ends at the last ')' */
	if (!open_ || !close_ || close_ < open_ || close_[1] != ' ')
		return -EINVAL;
	n = (size_t)(close_ - open_ - 1);
	if (n >= sizeof(pi->comm))
		n = sizeof(pi->comm) - 1;
	memcpy(pi->comm, open_ + 1, n);
	pi->comm[n] = '\0';
	p = close_ + 2;
	pi->state = *p;
	pi->ppid = pi->pgid = 0;
	pi->start = 0;
	/* field 3 is the state; count on from there */
	for (field = 3; *p && field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
		if (field + 1 == 4)
			pi->ppid = (pid_t)strtol(p, NULL, 10);
		if (field + 1 == 5)
			pi->pgid = (pid_t)strtol(p, NULL, 10);
	}
	if (field != 22 || *p < '0' || *p > '9')
		return -EINVAL;
	pi->start = strtoull(p, &end, 10);
	return *end == ' ' || *end == '\n' || !*end ? 0 : -EINVAL;
}

int sp_bringup_pid_ours(const struct sp_sys_ops *ops, pid_t pid,
			unsigned long long start, const char *comm,
			const char *netns)
{
	struct sp_pid_info pi;
	unsigned long long ino;
	char path[128];

	memset(&pi, 0, sizeof(pi));
	if (pid <= 1 || ops->pid_info(ops->ctx, pid, &pi) || pi.state == 'Z')
		return 0;
	/* the start time names the process (exec keeps it). Without one
	 * (an old journal) only the name. */
	if (start ? pi.start != start : strcmp(pi.comm, comm) != 0)
		return 0;
	if (!netns)
		return 1;
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	return !ops->file_ino(ops->ctx, path, &ino) && pi.netns && pi.netns == ino;
}

unsigned long long sp_bringup_pid_start(const struct sp_sys_ops *ops,
					pid_t pid)
{
	struct sp_pid_info pi;

	memset(&pi, 0, sizeof(pi));
	return ops->pid_info && !ops->pid_info(ops->ctx, pid, &pi) ? pi.start
								   : 0;
}
