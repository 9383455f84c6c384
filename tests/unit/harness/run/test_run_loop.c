#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/log.h"
#include "harness/run/run_loop.h"
#include "tests/unit/harness/run/run_mock.h"

/* /proc/stat: each sample 300 jiffies later, 150 of them busy (user
 * 100, system 50; idle 120 and iowait 30 are not). */
static int cpu_samples;

static int m_cpustat(void *ctx, char **text)
{
	unsigned long long n = (unsigned long long)++cpu_samples;

	(void)ctx;
	*text = malloc(256);
	snprintf(*text, 256, "cpu  %llu 0 %llu %llu %llu 0 0 0 0 0\n"
		 "cpu0 1 2 3 4 5 6 7 8 9 10\nintr 5\n", 100 * n, 50 * n,
		 120 * n, 30 * n);
	return 0;
}

static void m_env_info(void *ctx, struct sp_case_env *env)
{
	(void)ctx;
	snprintf(env->mode, sizeof(env->mode), "lab");
	snprintf(env->hst, sizeof(env->hst), "bucket_shift 27");
	snprintf(env->kernel, sizeof(env->kernel), "6.1.0-test");
}

static void target_init(struct sp_run_target *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->topology, "t");
	strcpy(t->map_name, "slowpath-t");
	strcpy(t->device, "/dev/mapper/slowpath-t");
	strcpy(t->dm_name, "dm-0");
	t->n_paths = 2;
	strcpy(t->path[0], "sda");
	strcpy(t->path[1], "sdb");
	t->slow[1] = 1;
	sp_dm_selector_init(&t->initial, SP_SEL_QL);
}

/* st,hst x randread x qd 1,8 */
static void plan_init(struct sp_run_plan *p)
{
	run_mock_plan(p);
	p->n_qd = 2;
	p->iodepth[1] = 8;
}

static size_t count_files(const char *dir, const char *sub, const char *suffix)
{
	char path[1024];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strlen(e->d_name) > strlen(suffix) &&
		    !strcmp(e->d_name + strlen(e->d_name) - strlen(suffix), suffix))
			n++;
	closedir(d);
	return n;
}

static int has_file(const char *dir, const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, R_OK) == 0;
}

static void every_case_in_order(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop");
	size_t i;

	(void)state;
	run_mock_init(&m);
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	assert_string_equal(m.log,
		"sel:st ds fio done ds sel:hst ds fio done ds "
		"sel:st ds fio done ds sel:hst ds fio done ds sel:ql ");
	assert_int_equal(s.done, 4);
	assert_int_equal(s.planned, 4);
	assert_false(s.interrupted);
	/* deltas between the snapshots around each fio, not cumulative */
	for (i = 0; i < s.done; i++) {
		assert_int_equal(s.cases[i].path[0].v[SP_DS_READS], 2048);
		assert_int_equal(s.cases[i].map.v[SP_DS_READS], 4096);
		assert_int_equal(s.cases[i].slow[1], 1);
		assert_int_equal(s.cases[i].fio.dir[SP_FIO_READ].ios, 4096);
		assert_true(s.timing[i].wall_ns > s.timing[i].fio_wall_ns);
		assert_true(sp_run_overhead_ns(&s.timing[i]) > 0);
	}
	assert_string_equal(s.cases[1].selector, "historical-service-time");
	assert_int_equal(s.cases[2].iodepth, 8);
	assert_int_equal(count_files(dir, "cases", ".json"), 4);
	assert_int_equal(count_files(dir, "raw", ".fio.json"), 4);
	assert_int_equal(count_files(dir, "raw", ".diskstats.before"), 4);
	assert_int_equal(count_files(dir, "raw", ".diskstats.after"), 4);
	assert_int_equal(sp_run_save_manifest(dir, &p, &t, &s), 0);
	assert_true(has_file(dir, "run.json"));
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

/* --warmup: before each HST case's measured fio, one of the same
 * workload at iodepth 64 for the warm-up's seconds, after the selector
 * is set and before the diskstats the case is measured from; none for
 * ST, whose choice has no history to warm; the case records the
 * warm-up it had. Ctrl-C during it keeps nothing of that case. */
static void warmup_before_each_case(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop"), *first;

	(void)state;
	run_mock_init(&m);
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.warmup_s = 20;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	assert_string_equal(m.log,
		"sel:st ds fio done ds sel:hst fio done ds fio done ds "
		"sel:st ds fio done ds sel:hst fio done ds fio done ds "
		"sel:ql ");
	assert_int_equal(s.done, 4);
	/* deltas around the measured fio only */
	assert_int_equal(s.cases[1].path[0].v[SP_DS_READS], 2048);
	assert_int_equal(s.cases[0].env.warmup_s, 0);
	assert_int_equal(s.cases[1].env.warmup_s, 20);
	strtok(m.argv_seen, "|");
	first = strtok(NULL, "|");
	assert_non_null(strstr(first, "--iodepth=64 "));
	assert_non_null(strstr(first, "--runtime=20 --time_based "));
	assert_null(strstr(strtok(NULL, "|"), "--runtime=20 "));
	sp_run_summary_free(&s);
	run_mock_rmtree(dir);

	/* Ctrl-C in the first warm-up: nothing measured of that case */
	free(m.fio_json);
	dir = run_mock_tmpdir("test_run_loop");
	run_mock_init(&m);
	m.interrupt_at_fio = 2;
	ops = run_mock_ops(&m);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s),
			 -EINTR);
	assert_string_equal(m.log,
			    "sel:st ds fio done ds sel:hst fio stop sel:ql ");
	assert_true(s.interrupted);
	assert_int_equal(s.done, 1);
	assert_int_equal(count_files(dir, "cases", ".json"), 1);
	sp_run_interrupted = 0;
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void ctrl_c_keeps_finished_cases(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop");

	(void)state;
	run_mock_init(&m);
	m.interrupt_at_fio = 3;
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s),
			 -EINTR);
	/* fio stopped, no fourth case, the selector from before loaded */
	assert_string_equal(m.log,
		"sel:st ds fio done ds sel:hst ds fio done ds "
		"sel:st ds fio stop sel:ql ");
	assert_false(m.running);
	assert_true(s.interrupted);
	assert_int_equal(s.done, 2);
	assert_int_equal(count_files(dir, "cases", ".json"), 2);
	assert_int_equal(count_files(dir, "raw", ".fio.json"), 2);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
	sp_run_interrupted = 0;
}

static void fio_failure_stops_the_run(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop");

	(void)state;
	run_mock_init(&m);
	m.fail_fio_at = 2;
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), -EIO);
	sp_log_set_hook(NULL, NULL);
	assert_string_equal(m.log, "sel:st ds fio done ds sel:hst ds fio done "
			    "ds sel:ql ");
	assert_int_equal(s.done, 1);
	assert_false(s.interrupted);
	assert_int_equal(count_files(dir, "cases", ".json"), 1);
	/* what fio said is kept next to the case it failed */
	assert_int_equal(count_files(dir, "raw", ".fio.stderr"), 1);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void reload_failures(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop");

	(void)state;
	run_mock_init(&m);
	m.fail_reload_at = 2;
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), -EIO);
	/* no fio on a map whose reload failed; the restore is still tried */
	assert_string_equal(m.log, "sel:st ds fio done ds sel:hst sel:ql ");
	assert_int_equal(s.done, 1);
	assert_false(s.restore_failed);
	sp_run_summary_free(&s);

	/* every case fine but the restore: that is the run's error */
	free(m.fio_json);
	run_mock_init(&m);
	m.fail_sel_restore = 1;
	ops = run_mock_ops(&m);
	run_mock_rmtree(dir);
	dir = run_mock_tmpdir("test_run_loop");
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), -EIO);
	sp_log_set_hook(NULL, NULL);
	assert_int_equal(s.done, 4);
	assert_true(s.restore_failed);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void job_file_is_composed_per_case(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop");

	(void)state;
	run_mock_init(&m);
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.job_file = "mine.fio";
	assert_int_equal(sp_run_matrix(&p, &t, "[mine]\nrandrepeat=0\n"
				       "filename=/dev/mapper/slowpath-t\n",
				       dir, &ops, NULL, &s), 0);
	assert_int_equal(s.done, 4);
	assert_int_equal(m.jobs, 4);
	assert_int_equal(count_files(dir, "raw", ".job"), 4);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static int plot_calls;
static int fake_plot(const char *dir, const char *script, void *ctx)
{
	(void)dir; (void)ctx;
	assert_string_equal(script, "plots.gp");
	plot_calls++;
	return 0;
}

static void reports_and_plots(void **state)
{
	const struct sp_plot_ops plot = { fake_plot, NULL };
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop");

	(void)state;
	run_mock_init(&m);
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	plot_calls = 0;
	assert_int_equal(sp_run_save_reports(dir, s.cases, s.done, &plot), 0);
	assert_int_equal(plot_calls, 1);
	assert_true(has_file(dir, "report.md"));
	assert_true(has_file(dir, "report.csv"));
	assert_true(has_file(dir, "report.json"));
	assert_true(has_file(dir, "report.txt"));
	/* a share plot per qd, one latency-vs-iodepth series */
	assert_int_equal(count_files(dir, "plots", ".dat"), 3);
	assert_true(has_file(dir, "plots/latency-t-randread-4k.dat"));
	/* ST alone pairs with nothing: reports, no plots */
	plot_calls = 0;
	sp_log_set_hook(run_mock_quiet, NULL);
	assert_int_equal(sp_run_save_reports(dir, s.cases, 1, &plot), 0);
	sp_log_set_hook(NULL, NULL);
	assert_int_equal(plot_calls, 0);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

/* hst measured first, st listed first: the order `slowpath report`
 * renders the saved cases in */
static void reports_list_cases_as_report_does(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	char *dir = run_mock_tmpdir("test_run_loop"), path[1024], *text;
	const char *st_at, *hst_at;

	(void)state;
	run_mock_init(&m);
	ops = run_mock_ops(&m);
	target_init(&t);
	plan_init(&p);
	p.sel[0] = SP_SEL_HST;
	p.sel[1] = SP_SEL_ST;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	assert_string_equal(s.cases[0].selector, "historical-service-time");
	assert_int_equal(sp_run_save_reports(dir, s.cases, s.done, NULL), 0);
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &text, NULL), 0);
	st_at = strstr(text, "iodepth=1 numjobs=1 selector=service-time");
	hst_at = strstr(text, "iodepth=1 numjobs=1 selector=historical-service-time");
	assert_non_null(st_at);
	assert_non_null(hst_at);
	assert_true(st_at < hst_at);
	/* and qd 1 before qd 8 */
	assert_true(hst_at < strstr(text, "iodepth=8 numjobs=1 selector=service-time"));
	free(text);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

static void case_records_what_it_ran_under(void **state)
{
	struct run_mock m;
	struct sp_run_ops ops;
	struct sp_run_target t;
	struct sp_run_plan p;
	struct sp_run_summary s;
	struct sp_case_result back;
	char *dir = run_mock_tmpdir("test_run_loop"), *text = NULL, why[256];

	(void)state;
	run_mock_init(&m);
	ops = run_mock_ops(&m);
	ops.cpustat = m_cpustat;
	ops.env_info = m_env_info;
	target_init(&t);
	t.scale = 8;
	t.has_resid[1] = 1;
	t.resid[1] = 0.05;
	plan_init(&p);
	cpu_samples = 0;
	assert_int_equal(sp_run_matrix(&p, &t, NULL, dir, &ops, NULL, &s), 0);
	/* sampled around fio: two per case */
	assert_int_equal(cpu_samples, 8);
	assert_int_equal(s.cases[0].env.recorded, 1);
	assert_int_equal(s.cases[0].env.scale, 8);
	assert_true(s.cases[0].env.cpu_util > 0.499 &&
		    s.cases[0].env.cpu_util < 0.501);
	assert_string_equal(s.cases[0].env.mode, "lab");
	assert_string_equal(s.cases[3].env.hst, "bucket_shift 27");
	assert_int_equal(s.cases[0].env.has_resid[0], 0);
	assert_true(s.cases[0].env.resid[1] == 0.05);
	/* saved and read back; flagged for the residual, not the CPU */
	assert_int_equal(sp_case_to_json(&s.cases[0], &text), 0);
	assert_int_equal(sp_case_from_json(text, "t", &back), 0);
	assert_int_equal(back.env.scale, 8);
	assert_string_equal(back.env.kernel, "6.1.0-test");
	assert_int_equal(sp_case_env_flagged(&back.env, back.n_paths, why,
					     sizeof(why)), 1);
	assert_non_null(strstr(why, "calibration off: path 2 +5.0%"));
	assert_null(strstr(why, "saturated"));
	free(text);
	sp_run_summary_free(&s);
	free(m.fio_json);
	run_mock_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_case_in_order),
		cmocka_unit_test(warmup_before_each_case),
		cmocka_unit_test(ctrl_c_keeps_finished_cases),
		cmocka_unit_test(fio_failure_stops_the_run),
		cmocka_unit_test(reload_failures),
		cmocka_unit_test(job_file_is_composed_per_case),
		cmocka_unit_test(reports_and_plots),
		cmocka_unit_test(reports_list_cases_as_report_does),
		cmocka_unit_test(case_records_what_it_ran_under),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
