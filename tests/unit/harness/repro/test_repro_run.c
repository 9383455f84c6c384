/* Unit tests of the reproduction's orchestration (harness/repro/
 * repro_run.h) through mock effects: what is brought up with which k,
 * unit and base, what is run where, and the retries: a calibration
 * that missed brings the group up once more, a noisy run is run again
 * longer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/repro/repro_run.h"
#include "harness/repro/repro_scale.h"
#include "ref_fixture.h"

#define MAX_CALLS 16

/* What the mock was asked, in order, and what it answers. */
struct mock {
	char log[2048];			/* "up down run ..." */
	struct sp_repro_up ups[MAX_CALLS];
	char up_topo[MAX_CALLS][64];
	size_t n_up;
	struct sp_repro_run runs[MAX_CALLS];
	char run_out[MAX_CALLS][512], run_sel[MAX_CALLS][16], run_qd[MAX_CALLS][32];
	size_t n_run;
	int misses;			/* calib_miss answers 1 this often */
	double noisy_se;		/* > 0: the hst case's batch-means SE */
	char said[4096];
};

static void note(struct mock *m, const char *what)
{
	strncat(m->log, what, sizeof(m->log) - strlen(m->log) - 1);
	strncat(m->log, " ", sizeof(m->log) - strlen(m->log) - 1);
}

static int m_up(void *ctx, const struct sp_repro_up *up)
{
	struct mock *m = ctx;

	note(m, "up");
	assert_true(m->n_up < MAX_CALLS);
	m->ups[m->n_up] = *up;
	snprintf(m->up_topo[m->n_up], sizeof(m->up_topo[0]), "%s", up->topology);
	m->n_up++;
	return 0;
}

static int m_delay_set(void *ctx, const char *path, int64_t ns)
{
	(void)path;
	(void)ns;
	note(ctx, "delay");
	return 0;
}

static int m_run(void *ctx, const struct sp_repro_run *r)
{
	struct mock *m = ctx;

	note(m, "run");
	assert_true(m->n_run < MAX_CALLS);
	m->runs[m->n_run] = *r;
	snprintf(m->run_out[m->n_run], sizeof(m->run_out[0]), "%s", r->out);
	snprintf(m->run_sel[m->n_run], sizeof(m->run_sel[0]), "%s", r->selectors);
	snprintf(m->run_qd[m->n_run], sizeof(m->run_qd[0]), "%s", r->iodepths);
	m->n_run++;
	return 0;
}

static int m_down(void *ctx)
{
	note(ctx, "down");
	return 0;
}

static int m_calib_miss(void *ctx, double bound, char *label, size_t len,
			double *residual)
{
	struct mock *m = ctx;

	note(m, "check");
	if (!m->misses)
		return 0;
	m->misses--;
	snprintf(label, len, "a");
	*residual = 3 * bound;
	return 1;
}

/* One case of the group's run: skew4 randread at iodepth 1. */
static void one_case(struct sp_case_result *c, const char *sel, double se)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->topology, sizeof(c->topology), "skew4");
	snprintf(c->selector, sizeof(c->selector), "%s", sel);
	snprintf(c->rw, sizeof(c->rw), "randread");
	c->iodepth = 1;
	c->n_paths = 4;
	c->env.recorded = 1;
	c->env.se_batches = SP_ENV_SE_BATCHES;
	for (size_t p = 0; p < 4; p++)
		c->env.se_batch[p] = se;
}

static int m_load_cases(void *ctx, const char *dir, struct sp_case_result **cases,
			size_t *n)
{
	struct mock *m = ctx;

	(void)dir;
	*cases = calloc(2, sizeof(**cases));
	if (!*cases)
		return -ENOMEM;
	one_case(&(*cases)[0], "service-time", 0.001);
	one_case(&(*cases)[1], "historical-service-time",
		 m->noisy_se > 0 ? m->noisy_se : 0.001);
	*n = 2;
	return 0;
}

static int m_cpustat(void *ctx, char **text)
{
	(void)ctx;
	*text = NULL;
	return -ENOENT;
}

static void m_sleep_s(void *ctx, unsigned int seconds)
{
	(void)ctx;
	(void)seconds;
	fail_msg("no sleep: a fixed k measures no capacity");
}

static void m_say(void *ctx, const char *line)
{
	struct mock *m = ctx;

	strncat(m->said, line, sizeof(m->said) - strlen(m->said) - 2);
	strcat(m->said, "\n");
}

static struct sp_repro_ops mock_ops(struct mock *m)
{
	struct sp_repro_ops ops = {
		.up = m_up, .delay_set = m_delay_set, .run = m_run,
		.down = m_down, .calib_miss = m_calib_miss,
		.load_cases = m_load_cases, .cpustat = m_cpustat,
		.sleep_s = m_sleep_s, .say = m_say, .ctx = m,
	};

	memset(m, 0, sizeof(*m));
	return ops;
}

static const struct sp_repro_opts opts = {
	.title = "HST vs ST (2020)", .runtime_s = 10, .max_runtime_s = 600,
	.ios = SP_REPRO_EXACT_IOS, .warmup_s = -1,
};

/* A fresh folder for scale.txt, removed by the caller's rm. */
static void scratch(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/test_repro_run.XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void unscratch(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/scale.txt", dir);
	unlink(path);
	rmdir(dir);
}

/* OUT/scale.txt: the fit's line once, then the group's. */
static void assert_scale_txt(const char *out, const char *group)
{
	char path[512], text[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/scale.txt", out);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_int_equal(strncmp(text, "unit ", 5), 0);
	assert_null(strstr(text + 1, "\nunit "));
	assert_non_null(strstr(text, group));
}

static void plan_of(const char *cases, struct sp_repro_plan *plan)
{
	char err[256];

	assert_int_equal(sp_repro_plan_parse(cases, plan, err, sizeof(err)), 0);
}

/* What every scaled test starts from: skew4 randread at iodepth 1, a
 * clean mock, a fresh folder for scale.txt (removed after). */
struct scaled {
	struct sp_repro_plan plan;
	struct mock m;
	struct sp_repro_ops ops;
	char out[64];
};

static int scaled_setup(void **state)
{
	struct scaled *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->ops = mock_ops(&s->m);
	scratch(s->out, sizeof(s->out));
	plan_of("skew4/randread/1", &s->plan);
	*state = s;
	return 0;
}

static int scaled_teardown(void **state)
{
	struct scaled *s = *state;

	unscratch(s->out);
	free(s);
	return 0;
}

/* sp_repro_scaled of the setup's plan with k, under o. */
static int scaled_run(struct scaled *s, const struct sp_repro_opts *o, uint64_t k)
{
	return sp_repro_scaled(&s->ops, o, &s->plan, &reference, &reference, k,
			       s->out);
}

/* A fixed k goes to up as that number, with the 2020 fit's unit and
 * base in whole microseconds, calibrated; the run folder is named by
 * it too. */
static void k_reaches_up_as_planned(void **state)
{
	struct scaled *s = *state;
	char want[128];

	assert_int_equal(scaled_run(s, &opts, 64), 0);
	assert_string_equal(s->m.log, "up check run down ");
	assert_string_equal(s->m.up_topo[0], "skew4");
	assert_true(s->m.ups[0].scale == 64);
	assert_true(s->m.ups[0].calibrate);
	assert_true(s->m.ups[0].unit_ns > 0 && s->m.ups[0].unit_ns % 1000 == 0);
	assert_true(s->m.ups[0].calib_base_ns > 0 && s->m.ups[0].calib_base_ns % 1000 == 0);
	/* skew4's paths are served in turn: the fit's serial base too */
	assert_true(s->m.ups[0].serial_base_ns > 0 &&
		    s->m.ups[0].serial_base_ns % 1000 == 0 &&
		    s->m.ups[0].serial_base_ns <= s->m.ups[0].calib_base_ns);
	snprintf(want, sizeof(want), "%s/runs/skew4-randread-k64", s->out);
	assert_string_equal(s->m.run_out[0], want);
	assert_string_equal(s->m.run_sel[0], "st,hst");
	assert_string_equal(s->m.run_qd[0], "1");
	assert_true(s->m.runs[0].timeline);
	assert_int_equal(s->m.runs[0].warmup_s, 20);
	assert_true(s->m.runs[0].runtime_s >= 10 && s->m.runs[0].runtime_s <= 600);
	assert_non_null(strstr(s->m.said, "reproduce: skew4 k=64 for iodepth 1 (given)"));
	assert_scale_txt(s->out, "skew4 k 64 qd 1 ");
}

/* A path calibrated off its bound: down and up again, once, however
 * often it misses; then the cases run as they would. */
static void a_calibration_miss_brings_the_group_up_again_once(void **state)
{
	struct scaled *s = *state;

	s->m.misses = 5;
	assert_int_equal(scaled_run(s, &opts, 16), 0);
	assert_string_equal(s->m.log, "up check down up check run down ");
	assert_int_equal(s->m.n_up, 2);
	assert_true(s->m.ups[1].scale == 16 && s->m.ups[1].calibrate);
	assert_non_null(strstr(s->m.said, "reproduce: skew4 k 16: path a calibrated "
			       "+9.0 % off its target (bound +-3 %); up again"));

	/* one miss, then within: the same one retry */
	s->ops = mock_ops(&s->m);
	s->m.misses = 1;
	assert_int_equal(scaled_run(s, &opts, 16), 0);
	assert_string_equal(s->m.log, "up check down up check run down ");
}

/* A case whose shares' standard error came out over 0.5 pp is run
 * again, that selector and iodepth only, longer, into its own folder. */
static void a_noisy_run_is_rerun_longer(void **state)
{
	struct scaled *s = *state;
	char want[128];
	int64_t longer;

	s->m.noisy_se = 0.01;
	assert_int_equal(scaled_run(s, &opts, 16), 0);
	assert_string_equal(s->m.log, "up check run run down ");
	snprintf(want, sizeof(want), "%s/runs/skew4-randread-k16-qd1-hst", s->out);
	assert_string_equal(s->m.run_out[1], want);
	assert_string_equal(s->m.run_sel[1], "hst");
	assert_string_equal(s->m.run_qd[1], "1");
	longer = sp_scale_rerun_size(0.01, SP_ENV_SHARE_SE_MAX,
					s->m.runs[0].runtime_s, opts.max_runtime_s);
	assert_true(longer > s->m.runs[0].runtime_s);
	assert_int_equal(s->m.runs[1].runtime_s, longer);
}

/* On exact time a noisy run is run again with more I/Os, not for a
 * time: its first run was a count, and a time-based rerun there had no
 * bound but --max-runtime of simulated time. */
static void an_exact_time_noisy_run_is_rerun_with_more_ios(void **state)
{
	struct scaled *s = *state;
	struct sp_repro_opts o = opts;
	int64_t more;

	o.exact_time = 1;
	o.ios = 2000;
	s->m.noisy_se = 0.01;
	assert_int_equal(scaled_run(s, &o, 1), 0);
	assert_string_equal(s->m.log, "up check run run down ");
	assert_string_equal(s->m.run_sel[1], "hst");
	assert_int_equal(s->m.runs[0].ios, 2000);
	more = sp_scale_rerun_size(0.01, SP_ENV_SHARE_SE_MAX, 2000,
				   SP_REPRO_EXACT_RERUN_MAX * 2000);
	assert_true(more > 2000 && more <= SP_REPRO_EXACT_RERUN_MAX * 2000);
	assert_int_equal(s->m.runs[1].ios, more);
	assert_int_equal(s->m.runs[1].runtime_s, 0);
}

/* On exact time every case is a count of I/Os, k as given, and the
 * warm-up 5 s; a --full run is neither timed nor counted. */
static void exact_time_runs_count_ios(void **state)
{
	struct scaled *s = *state;
	struct sp_repro_opts o = opts;

	o.exact_time = 1;
	assert_int_equal(scaled_run(s, &o, 1), 0);
	assert_true(s->m.ups[0].scale == 1);
	assert_int_equal(s->m.runs[0].ios, SP_REPRO_EXACT_IOS);
	assert_int_equal(s->m.runs[0].runtime_s, 0);
	assert_int_equal(s->m.runs[0].warmup_s, 5);

	s->ops = mock_ops(&s->m);
	o.exact_time = 0;
	o.full = 1;
	assert_int_equal(scaled_run(s, &o, 1), 0);
	assert_int_equal(s->m.runs[0].ios, 0);
	assert_int_equal(s->m.runs[0].runtime_s, 0);
	assert_int_equal(s->m.n_run, 1);	/* --full: nothing run again */
}

/* Unscaled with a unit: each topology up with it in whole
 * microseconds and k 1, not calibrated, its rw's cases in one run. */
static void unscaled_brings_each_topology_up_with_the_unit(void **state)
{
	struct sp_repro_plan plan;
	struct mock m;
	struct sp_repro_ops ops = mock_ops(&m);
	char unit_text[SP_REPRO_UNIT_TEXT];

	(void)state;
	plan_of("skew4/randread/1+32,equal3/write/64", &plan);
	assert_int_equal(sp_repro_unscaled(&ops, &opts, &plan, 671500, "OUT",
					   unit_text, sizeof(unit_text)), 0);
	assert_string_equal(unit_text, "671us");
	assert_string_equal(m.log, "up run down up run down ");
	assert_true(m.ups[0].unit_ns == 671000 && m.ups[0].scale == 1 &&
		    !m.ups[0].calibrate);
	/* in the plan's topology order */
	assert_string_equal(m.up_topo[0], "equal3");
	assert_string_equal(m.run_out[0], "OUT/runs/equal3-write");
	assert_string_equal(m.run_qd[0], "64");
	assert_string_equal(m.up_topo[1], "skew4");
	assert_string_equal(m.run_out[1], "OUT/runs/skew4-randread");
	assert_string_equal(m.run_qd[1], "1,32");
	assert_int_equal(m.runs[0].runtime_s, 10);
	assert_non_null(strstr(m.said, "reproduce: unit 671us, 3 points x {ST, HST}, "
			       "output in OUT\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(k_reaches_up_as_planned, scaled_setup,
						scaled_teardown),
		cmocka_unit_test_setup_teardown(a_calibration_miss_brings_the_group_up_again_once, scaled_setup,
						scaled_teardown),
		cmocka_unit_test_setup_teardown(an_exact_time_noisy_run_is_rerun_with_more_ios,
						scaled_setup, scaled_teardown),
		cmocka_unit_test_setup_teardown(a_noisy_run_is_rerun_longer, scaled_setup,
						scaled_teardown),
		cmocka_unit_test_setup_teardown(exact_time_runs_count_ios, scaled_setup,
						scaled_teardown),
		cmocka_unit_test(unscaled_brings_each_topology_up_with_the_unit),
	};

	return cmocka_run_group_tests(tests, load_reference, free_reference);
}
