/* make bench-harness: what `slowpath run` costs beyond fio, per case.
 * The real loop, the real fio child, real /proc/diskstats snapshots,
 * parsing and saving, on a scratch file instead of a map (so no root
 * and no kernel stack are needed); only the selector reload is left
 * out, because this host has no device-mapper: the lab figure adds it
 * (run.json's selector_s). Prints the harness time against fio's own
 * in the same run. */
#include "common/file.h"
#include "common/log.h"
#include "common/units.h"
#include "harness/report/render_plot.h"
#include "harness/run/run_exec.h"
#include "harness/run/run_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int no_reload(void *ctx, const struct sp_dm_selector *sel)
{
	(void)ctx;
	(void)sel;
	return 0;
}

/* The disk a directory lives on, as /proc/diskstats names it. */
static int disk_of(const char *dir, char *name, size_t len)
{
	char *text, *line, *save;
	struct stat sb;
	int ret = -ENOENT;

	if (stat(dir, &sb) || sp_file_read("/proc/diskstats", SP_FILE_TEXT_MAX, &text, NULL))
		return -EIO;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int maj, min;
		char dev[16];

		if (sscanf(line, "%u %u %15s", &maj, &min, dev) == 3 &&
		    maj == major(sb.st_dev) && min == minor(sb.st_dev)) {
			snprintf(name, len, "%s", dev);
			ret = 0;
			break;
		}
	}
	free(text);
	return ret;
}

int main(int argc, char **argv)
{
	static struct sp_run_target t;
	static struct sp_run_plan p;
	struct sp_run_summary s;
	struct sp_run_exec x;
	struct sp_run_ops ops;
	static char block[1 << 20];
	char dir[] = "build/bench-harness.XXXXXX", file[128], dev[16];
	int64_t over = 0, over_max = 0, fio_extra = 0, rt = 0, t0, rep_ns;
	int runtime = argc > 1 ? atoi(argv[1]) : 2;
	size_t i;
	int ret, fd;

	sp_log_set_hook(sp_log_stderr, NULL);
	/* the scratch file's disk carries other I/O too: fio's counts and
	 * the disk's never agree here, and the cross-check would say so */
	sp_log_set_level(SP_LOG_ERR);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 3;
	}
	snprintf(file, sizeof(file), "%s/disk.img", dir);
	/* written, not sparse: direct reads of holes never reach the disk */
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	memset(block, 0xa5, sizeof(block));
	for (i = 0; fd >= 0 && i < 64; i++)
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			break;
	if (fd < 0 || i < 64 || fsync(fd) || close(fd)) {
		perror(file);
		return 3;
	}
	if (disk_of(dir, dev, sizeof(dev))) {
		fprintf(stderr, "bench-harness: cannot tell which disk %s is on\n",
			dir);
		return 2;
	}
	strcpy(t.topology, "bench");
	strcpy(t.map_name, "bench");
	snprintf(t.device, sizeof(t.device), "%s", file);
	snprintf(t.dm_name, sizeof(t.dm_name), "%s", dev);
	t.n_paths = 1;
	snprintf(t.path[0], sizeof(t.path[0]), "%s", dev);
	sp_dm_selector_init(&t.initial, SP_SEL_ST);

	p.n_sel = 2;
	p.sel[0] = SP_SEL_ST;
	p.sel[1] = SP_SEL_HST;
	p.n_rw = 2;
	strcpy(p.rw[0], "randread");
	strcpy(p.rw[1], "randwrite");
	p.n_bs = 1;
	p.bs[0] = 4096;
	p.n_qd = 2;
	p.iodepth[0] = 1;
	p.iodepth[1] = 8;
	p.numjobs = 1;
	p.size_bytes = 64 << 20;
	p.stop = SP_RUN_STOP_RUNTIME;
	p.runtime_s = (unsigned int)(runtime > 0 ? runtime : 2);

	sp_run_exec_init(&x, NULL, NULL, &ops);
	ops.selector_set = no_reload;
	snprintf(file, sizeof(file), "%s/out", dir);
	ret = sp_run_matrix(&p, &t, NULL, file, &ops, NULL, &s);
	sp_run_exec_fini(&x);
	if (ret) {
		fprintf(stderr, "bench-harness: the run failed: %s\n",
			strerror(-ret));
		return 3;
	}
	t0 = sp_now_ns();
	sp_run_save_manifest(file, &p, &t, &s);
	ret = sp_run_save_reports(file, s.cases, s.done, &sp_plot_exec_gnuplot);
	rep_ns = sp_now_ns() - t0;
	for (i = 0; i < s.done; i++) {
		int64_t o = sp_run_overhead_ns(&s.timing[i]);

		over += o;
		if (o > over_max)
			over_max = o;
		fio_extra += s.timing[i].fio_wall_ns - s.timing[i].fio_runtime_ns;
		rt += s.timing[i].fio_runtime_ns;
	}
	printf("bench-harness: %zu cases of %d s on %s (%s), one run\n",
	       s.done, runtime, t.device, dev);
	printf("  harness per case (reload excluded): mean %.3f s, max %.3f s "
	       "(target <= 1 s)\n", (double)over / (double)s.done / 1e9,
	       (double)over_max / 1e9);
	printf("  fio start+exit per case beyond its runtime: mean %.3f s\n",
	       (double)fio_extra / (double)s.done / 1e9);
	printf("  harness / fio runtime: %.4f\n", (double)over / (double)rt);
	printf("  reports + plots, once per run: %.3f s%s\n",
	       (double)rep_ns / 1e9, ret ? " (incomplete: see above)" : "");
	sp_run_summary_free(&s);
	snprintf(file, sizeof(file), "rm -rf '%s'", dir);
	if (system(file))
		fprintf(stderr, "bench-harness: could not remove %s\n", dir);
	return 0;
}
