/* Unit tests of harness/report/render_timeline.c: the per-case table
 * (stall, failover, reinstatement, errors), the plot's data and script
 * with the faults marked, and a hostile timeline file refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "harness/report/render_timeline.h"
#include "tests/unit/log_capture.h"

/* sdb hangs from 1.0 s (the map fails it at 1.4 s), restored at 2.0 s,
 * active again at 2.3 s; the map completes nothing 1.0..1.4 s. */
static const char tsv[] =
	"t_ms\tdev\tios_done\tin_flight\tsectors\tpath_state\n"
	"# fault\t1000\tp2\tsdb\thang\tapplied\n"
	"0\tsda\t0\t4\t0\tA\n0\tsdb\t0\t4\t0\tA\n0\tdm-0\t0\t8\t0\t-\n"
	"500\tsda\t50\t4\t400\tA\n500\tsdb\t50\t4\t400\tA\n500\tdm-0\t100\t8\t800\t-\n"
	"1000\tsda\t100\t4\t800\tA\n1000\tsdb\t100\t4\t800\tA\n1000\tdm-0\t200\t8\t1600\t-\n"
	"1200\tsda\t100\t4\t800\tA\n1200\tsdb\t100\t4\t800\tA\n1200\tdm-0\t200\t8\t1600\t-\n"
	"1400\tsda\t100\t8\t800\tA\n1400\tsdb\t100\t4\t800\tF\n1400\tdm-0\t200\t8\t1600\t-\n"
	"1600\tsda\t180\t8\t1440\tA\n1600\tsdb\t100\t0\t800\tF\n1600\tdm-0\t280\t8\t2240\t-\n"
	"2000\tsda\t260\t8\t2080\tA\n2000\tsdb\t100\t0\t800\tF\n2000\tdm-0\t360\t8\t2880\t-\n"
	"2300\tsda\t300\t4\t2400\tA\n2300\tsdb\t130\t4\t1040\tA\n2300\tdm-0\t430\t8\t3440\t-\n";

static void make_case(struct sp_case_result *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->topology, "two");
	strcpy(c->selector, "service-time");
	strcpy(c->rw, "randwrite");
	c->bs = 4096;
	c->iodepth = 8;
	c->numjobs = 1;
	c->n_paths = 2;
	strcpy(c->path[0].name, "sda");
	strcpy(c->path[1].name, "sdb");
	c->faults.recorded = 1;
	c->faults.timeline = 1;
	c->faults.verify = 1;
	c->faults.counted = 1;
	sp_case_faults_add(&c->faults, 1000, "p2", "sdb", "hang",
			   SP_TL_EV_APPLIED);
	sp_case_faults_add(&c->faults, 2000, "p2", "sdb", "hang",
			   SP_TL_EV_RESTORED);
}

static char run_dir[64];

static void write_tsv(const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cases", run_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cases/two-randwrite-4k-qd8-st"
		 ".timeline.tsv", run_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int runs;
static char ran[64];

static int mock_run(const char *dir, const char *script, void *ctx)
{
	(void)dir;
	(void)ctx;
	runs++;
	snprintf(ran, sizeof(ran), "%s", script);
	return 0;
}

static char *slurp(const char *rel)
{
	char path[512], *text = NULL;

	snprintf(path, sizeof(path), "%s/%s", run_dir, rel);
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &text, NULL), 0);
	return text;
}

static void table_plot_and_hostile_files(void **state)
{
	const struct sp_plot_ops ops = { .run = mock_run };
	struct sp_case_result c[2];
	char plots[128], path[256], *text = NULL, *s;
	size_t len = 0, shown;
	FILE *out;

	(void)state;
	snprintf(run_dir, sizeof(run_dir), "/tmp/test_render_tl.XXXXXX");
	assert_non_null(mkdtemp(run_dir));
	make_case(&c[0]);
	/* a case of an older run: nothing to say */
	make_case(&c[1]);
	memset(&c[1].faults, 0, sizeof(c[1].faults));
	write_tsv(tsv);
	snprintf(plots, sizeof(plots), "%s/plots", run_dir);

	out = open_memstream(&text, &len);
	assert_int_equal(sp_render_timelines(out, run_dir, c, 2, plots, &ops,
					     &shown), 0);
	fclose(out);
	assert_int_equal(shown, 1);
	assert_non_null(strstr(text, "--- two-randwrite-4k-qd8-st: timeline"));
	/* the map moved nothing from 1.0 s to 1.6 s */
	assert_non_null(strstr(text, "longest stall on the map: 600 ms"));
	assert_non_null(strstr(text, "fio errors: 0 (I/O 0, verify 0)"));
	s = strstr(text, "\n1      p2       sdb      hang");
	assert_non_null(s);
	/* at 1000, failed 400 ms later, restored at 2000, back 300 later */
	assert_non_null(strstr(s, " 1000          400         2000          "
			       "300          600\n"));
	free(text);

	assert_int_equal(runs, 1);
	assert_string_equal(ran, "timelines.gp");
	text = slurp("plots/timeline-two-randwrite-4k-qd8-st.dat");
	assert_non_null(strstr(text, "# t_s iops_sda iops_sdb iops_dm-0 "
			       "inflight_sda inflight_sdb inflight_dm-0\n"));
	assert_non_null(strstr(text, "\n1.600 400.0 0.0 400.0 8 0 8\n"));
	free(text);
	text = slurp("plots/timelines.gp");
	assert_non_null(strstr(text, "set output 'timeline-two-randwrite-4k-"
			       "qd8-st.png'"));
	assert_non_null(strstr(text, "set output 'timeline-two-randwrite-4k-"
			       "qd8-st.svg'"));
	assert_non_null(strstr(text, "set arrow from 1.000, graph 0 to 1.000"));
	assert_non_null(strstr(text, "set label 'p2 hang' at 1.000"));
	assert_non_null(strstr(text, "set label 'p2 restored' at 2.000"));
	assert_non_null(strstr(text, "title 'dm-0 (map)'"));
	/* a timeline of before selector state plots as it did */
	assert_null(strstr(text, "selector-"));
	free(text);
	snprintf(path, sizeof(path), "%s/plots/selector-two-randwrite-4k-qd8-"
		 "st.dat", run_dir);
	assert_int_equal(access(path, F_OK), -1);

	/* a device name that is not one of ours never reaches gnuplot */
	s = strdup(tsv);
	memcpy(strstr(s, "\n0\tsdb\t") + 2, "\ts`b\t", 5);
	write_tsv(s);
	free(s);
	capture_start(SP_LOG_ERR);
	assert_int_equal(sp_render_timelines(NULL, run_dir, c, 2, plots, &ops,
					     &shown), -EINVAL);
	assert_non_null(strstr(last_err, "s`b"));
	/* a case that says it has a timeline which is gone */
	snprintf(plots, sizeof(plots), "%s/cases/two-randwrite-4k-qd8-st"
		 ".timeline.tsv", run_dir);
	unlink(plots);
	assert_int_equal(sp_render_timelines(NULL, run_dir, c, 1, NULL, NULL,
					     &shown), -ENOENT);
	sp_log_set_hook(NULL, NULL);
	/* events and errors only, without samples */
	c[0].faults.timeline = 0;
	c[0].faults.fio_errors = 7;
	c[0].faults.first_error = EIO;
	text = NULL;
	out = open_memstream(&text, &len);
	assert_int_equal(sp_render_timelines(out, run_dir, c, 1, NULL, NULL,
					     &shown), 0);
	fclose(out);
	assert_non_null(strstr(text, "no timeline samples"));
	assert_non_null(strstr(text, "fio errors: 7 (I/O 7, verify 0), first: "));
	free(text);
	snprintf(plots, sizeof(plots), "rm -rf '%s'", run_dir);
	assert_int_equal(system(plots), 0);
}

/* A loaded run folder gives each case with a timeline the batch-means
 * standard error of its shares: exact turns over 100 I/Os are 0 pp,
 * where the binomial says 5 pp; a broken timeline leaves the binomial. */
static void share_se_from_the_timeline(void **state)
{
	struct sp_case_result c, *back = NULL;
	char tl[4096], cmd[128];
	size_t n = 0, len, i;
	double se[2];

	(void)state;
	snprintf(run_dir, sizeof(run_dir), "/tmp/test_render_tl.XXXXXX");
	assert_non_null(mkdtemp(run_dir));
	make_case(&c);
	c.path[0].v[SP_DS_WRITES] = 50;
	c.path[1].v[SP_DS_WRITES] = 50;
	c.path[0].n_fields = c.path[1].n_fields = 11;
	assert_true(fabs(sp_case_share_se(&c, NULL) - 0.05) < 1e-9);
	assert_int_equal(sp_case_save(run_dir, &c), 0);
	len = (size_t)snprintf(tl, sizeof(tl),
			       "t_ms\tdev\tios_done\tin_flight\tsectors\tpath_state\n");
	/* sdb listed first: the timeline's order is not the case's */
	for (i = 0; i <= 10; i++)
		len += (size_t)snprintf(tl + len, sizeof(tl) - len,
			"%zu\tsdb\t%zu\t1\t0\tA\n%zu\tsda\t%zu\t1\t0\tA\n"
			"%zu\tdm-0\t%zu\t2\t0\t-\n", i * 100, 5 * i, i * 100,
			5 * i, i * 100, 10 * i);
	write_tsv(tl);
	assert_int_equal(sp_case_load_dir(run_dir, &back, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(back[0].env.se_batches, SP_ENV_SE_BATCHES);
	assert_true(sp_case_share_se(&back[0], se) < 1e-12);
	free(back);

	write_tsv("t_ms\tdev\n0\tsda\n");
	assert_int_equal(sp_case_load_dir(run_dir, &back, &n), 0);
	assert_int_equal(back[0].env.se_batches, 0);
	assert_true(fabs(sp_case_share_se(&back[0], NULL) - 0.05) < 1e-9);
	free(back);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", run_dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_plot_and_hostile_files),
		cmocka_unit_test(share_se_from_the_timeline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
