/* lab status (lab_life.h): what the host knows of a running lab, and
 * the guest's half of it (lab guest-info). */
#include "lab/lab_life.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "lab/lab_ctl.h"
#include "lab/lab_proc.h"
#include "lab/lab_umlsup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

/* qemu's CPU time since it started, as a share of one host CPU. */
static double qemu_cpu_share(long pid, int64_t started)
{
	struct sp_lab_pstat ps;
	int64_t wall = (int64_t)time(NULL) - started;

	if (wall <= 0 || sp_lab_pstat(pid, &ps))
		return -1;
	return 100.0 * (double)ps.ticks / (double)sysconf(_SC_CLK_TCK) /
	       (double)wall;
}

/* The same for the uml guest's host processes (its supervisor's
 * children). */
static double uml_cpu_share(long pid, int64_t started)
{
	unsigned long long ticks;
	int64_t wall = (int64_t)time(NULL) - started;

	if (sp_lab_umlsup_ticks(pid, &ticks) || wall <= 0)
		return -1;
	return 100.0 * (double)ticks / (double)sysconf(_SC_CLK_TCK) / (double)wall;
}

int sp_lab_status_probe(struct sp_lab_status *st)
{
	struct sp_lab_run r;
	enum sp_lab_life life;

	memset(st, 0, sizeof(*st));
	st->cpu_share = -1;
	if (sp_lab_run_paths(&r)) {
		sp_err("lab status: SLOWPATH_LAB_RUN must be an absolute path");
		return SP_EXIT_USAGE;
	}
	if (!sp_lab_env_ok())
		return SP_EXIT_USAGE;
	if (sp_lab_run_trusted(&r, "lab status"))
		return SP_EXIT_ENV;
	life = sp_lab_probe(&r, &st->info);
	if (life == SP_LAB_DEAD) {
		/* even with --quiet: a dead lab is news */
		sp_lab_report_dead(&r, &st->info);
		return SP_EXIT_ENV;
	}
	st->up = life == SP_LAB_UP;
	if (st->up && !strcmp(st->info.engine, "uml"))
		st->cpu_share = uml_cpu_share(st->info.pid, st->info.started);
	else if (st->up)
		st->cpu_share = qemu_cpu_share(st->info.pid, st->info.started);
	return SP_EXIT_OK;
}

int sp_lab_status_guest(void)
{
	char exe[PATH_MAX];
	char *argv[] = { exe, "lab", "guest-info", NULL }, *none[] = { NULL };

	self_exe(exe, sizeof(exe));
	return sp_lab_forward_run(argv, none);
}

/* Busy share of the guest's CPUs over about a second, from /proc/stat. */
static int guest_cpu_busy(double *pct)
{
	unsigned long long v[2][8], total = 0, idle;
	char line[512];
	int i, k;

	for (i = 0; i < 2; i++) {
		if (i)
			usleep(1000000);
		if (sp_file_read_prefix("/proc/stat", line, sizeof(line)) ||
		    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[i][0], &v[i][1], &v[i][2], &v[i][3], &v[i][4],
			   &v[i][5], &v[i][6], &v[i][7]) != 8)
			return -EIO;
	}
	for (k = 0; k < 8; k++)
		total += v[1][k] - v[0][k];
	idle = (v[1][3] - v[0][3]) + (v[1][4] - v[0][4]);
	*pct = total ? 100.0 * (double)(total - idle) / (double)total : 0;
	return 0;
}

void sp_lab_guest_facts(struct sp_lab_guest_facts *f)
{
	struct utsname u;
	char line[256];

	memset(f, 0, sizeof(*f));
	f->cpu_busy = -1;
	if (!uname(&u))
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
	if (guest_cpu_busy(&f->cpu_busy))
		f->cpu_busy = -1;
	if (!sp_file_read_prefix("/proc/loadavg", line, sizeof(line)))
		snprintf(f->load, sizeof(f->load), "%.*s", (int)strcspn(line, " \n"), line);
}
