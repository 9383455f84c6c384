/* reproduce nvme-latency-2025's run (harness/repro/repro_nvme.c) over
 * mock ops: nvme2 comes up at a thousandth of its delays and each path
 * then gets its own (numa must start on the slow path); numa runs before
 * the other policies, queue-depth only on a kernel that has it; the
 * score is the measured ratios beside the published ones, said and
 * written to score.txt, never over one already there; a topology that
 * is not two latency nvme-tcp paths changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness/repro/repro_nvme.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mock {
	char calls[1024];
	char said[2048];
	int64_t up_unit_ns;
};

static void note(struct mock *m, const char *fmt, const char *a, long long b)
{
	char line[160];

	snprintf(line, sizeof(line), fmt, a, b);
	strncat(m->calls, line, sizeof(m->calls) - strlen(m->calls) - 1);
}

static int m_up(void *ctx, const struct sp_repro_up *up)
{
	struct mock *m = ctx;

	m->up_unit_ns = up->unit_ns;
	note(m, "up %s unit %lld\n", up->topology, (long long)up->unit_ns);
	return 0;
}

static int m_delay_set(void *ctx, const char *path, int64_t ns)
{
	note(ctx, "delay %s %lld\n", path, (long long)ns);
	return 0;
}

static int m_run(void *ctx, const struct sp_repro_run *r)
{
	note(ctx, "run %s %lld\n", r->selectors, (long long)r->ios);
	return 0;
}

static int m_down(void *ctx)
{
	note(ctx, "down%s%lld\n", "", 0);
	return 0;
}

/* numa 4 MiB/s all on path 1; the others 8 MiB/s split 50/50 */
static void one(struct sp_case_result *c, const char *sel, const char *rw,
		double kib, uint64_t ios1, uint64_t ios2)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->selector, sizeof(c->selector), "%s", sel);
	snprintf(c->rw, sizeof(c->rw), "%s", rw);
	c->n_paths = 2;
	c->fio.dir[SP_FIO_READ].bw_kib = kib;
	c->path[0].v[SP_DS_READS] = ios1;
	c->path[1].v[SP_DS_READS] = ios2;
}

static int m_load_cases(void *ctx, const char *dir,
			struct sp_case_result **cases, size_t *n)
{
	static const char *const rws[] = { "read", "write", "rw" };
	int numa = strlen(dir) > 5 && !strcmp(dir + strlen(dir) - 5, "/numa");
	size_t i;

	(void)ctx;
	*cases = calloc(3, sizeof(**cases));
	if (!*cases)
		return -ENOMEM;
	for (i = 0; i < 3; i++)
		one(&(*cases)[i], numa ? "numa" : "round-robin", rws[i],
		    numa ? 4096 : 7987.2, numa ? 100 : 50, numa ? 0 : 50);
	*n = 3;
	return 0;
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
		.down = m_down, .load_cases = m_load_cases, .say = m_say,
		.ctx = m,
	};

	memset(m, 0, sizeof(*m));
	return ops;
}

static struct sp_nvref_table published(void)
{
	struct sp_nvref_table t;

	sp_nvref_init(&t);
	assert_int_equal(sp_nvref_parse("policy\trw\tmibps\nnuma read 50\n"
					 "round-robin read 105\nnuma write 65.9\n"
					 "round-robin write 125\n", "pub", &t), 0);
	return t;
}

static void numa_on_the_slow_path_then_the_rest_scored(void **state)
{
	char dir[] = "/tmp/test_repro_nvme.XXXXXX", text[4096], path[128];
	struct sp_repro_nvme_opts o = { "topologies/nvme2.ini", 6000, 32, "6.1.192" };
	struct sp_nvref_table pub = published();
	struct mock m;
	struct sp_repro_ops ops = mock_ops(&m);

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sp_repro_nvme_do(&ops, &o, &pub, dir, text,
					  sizeof(text)), 0);
	/* up at a thousandth of nvme2's 1 ms unit, then each path's own */
	assert_string_equal(m.calls,
		"up topologies/nvme2.ini unit 1000\n"
		"delay slow 31000000\ndelay fast 1000000\n"
		"run numa 6000\nrun rr 6000\ndown0\n");
	assert_non_null(strstr(m.said, "numa read: 4.00 MiB/s, path 1 (the slow "
				       "one) took 100.0 % of the I/Os\n"));
	assert_non_null(strstr(m.said, "round-robin rw: 7.80 MiB/s, path 1 (the "
				       "slow one) took 50.0 %"));
	assert_non_null(strstr(text, "read rr/numa              1.95       2.10"));
	assert_non_null(strstr(text, "queue-depth: not in this kernel (6.1.192)"));
	snprintf(path, sizeof(path), "%s/score.txt", dir);
	assert_int_equal(access(path, F_OK), 0);
	/* score.txt is never written over */
	assert_int_equal(sp_repro_nvme_do(&ops, &o, &pub, dir, text,
					  sizeof(text)), -EEXIST);
	/* a kernel with queue-depth runs it after numa */
	ops = mock_ops(&m);
	o.kernel = "6.12.95+deb12-amd64";
	unlink(path);
	assert_int_equal(sp_repro_nvme_do(&ops, &o, &pub, dir, text,
					  sizeof(text)), 0);
	assert_non_null(strstr(m.calls, "run numa 6000\nrun rr,qd 6000\n"));
	unlink(path);
	rmdir(dir);
}

static void a_topology_not_two_latency_paths_changes_nothing(void **state)
{
	struct sp_repro_nvme_opts o = { "topologies/skew4.ini", 6000, 32, "6.1" };
	struct sp_nvref_table pub = published();
	struct mock m;
	struct sp_repro_ops ops = mock_ops(&m);
	char text[512];

	(void)state;
	assert_int_equal(sp_repro_nvme_do(&ops, &o, &pub, "/nonexistent", text,
					  sizeof(text)), -EINVAL);
	assert_string_equal(m.calls, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numa_on_the_slow_path_then_the_rest_scored),
		cmocka_unit_test(a_topology_not_two_latency_paths_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
