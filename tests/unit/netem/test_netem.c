#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netem/netem.h"

/* Splits a line into words, as the shell would hand them over. */
static int split(char *line, char **words, int max)
{
	int n = 0;
	char *w, *save = NULL;

	for (w = strtok_r(line, " ", &save); w && n < max;
	     w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	return n;
}

static void parse_words(const char *text, struct sp_netem_spec *spec,
			int want, const char *needle)
{
	char line[256], *words[32], err[SP_NETEM_ERRLEN] = "";
	int n, ret;

	snprintf(line, sizeof(line), "%s", text);
	n = split(line, words, 32);
	ret = sp_netem_parse(n, words, spec, err, sizeof(err));
	if (ret != want)
		fail_msg("'%s': got %d (%s), wanted %d", text, ret, err, want);
	if (needle && !strstr(err, needle))
		fail_msg("'%s': error '%s' does not mention '%s'", text, err,
			 needle);
}

/* Good forms: parsed, then rendered back as the tc command. */
static void good(const char *words, const char *tc)
{
	struct sp_netem_spec spec;
	char cmd[512];

	parse_words(words, &spec, 0, NULL);
	assert_int_equal(sp_netem_tc_command("replace", NULL, "veth1", &spec,
					     cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, tc);
}

static void good_forms(void **state)
{
	(void)state;
	good("delay 1ms", "tc qdisc replace dev veth1 root netem delay 1ms");
	good("delay 10ms 1ms", "tc qdisc replace dev veth1 root netem delay 10ms 1ms");
	good("delay 10ms 1ms 25%",
	     "tc qdisc replace dev veth1 root netem delay 10ms 1ms 25%");
	good("delay 10ms 500us distribution normal",
	     "tc qdisc replace dev veth1 root netem delay 10ms 500us distribution normal");
	good("distribution paretonormal delay 2ms 1ms",
	     "tc qdisc replace dev veth1 root netem delay 2ms 1ms distribution paretonormal");
	good("latency 1500us", "tc qdisc replace dev veth1 root netem delay 1500us");
	good("loss 1%", "tc qdisc replace dev veth1 root netem loss 1%");
	good("loss random 0.5% 25%", "tc qdisc replace dev veth1 root netem loss 0.5% 25%");
	good("rate 100mbit", "tc qdisc replace dev veth1 root netem rate 100mbit");
	good("rate 10mbps", "tc qdisc replace dev veth1 root netem rate 80mbit");
	good("rate 1500kibit", "tc qdisc replace dev veth1 root netem rate 1536kbit");
	good("rate 1001bit", "tc qdisc replace dev veth1 root netem rate 1001bit");
	good("delay 5ms loss 2% rate 1gbit limit 5000",
	     "tc qdisc replace dev veth1 root netem delay 5ms loss 2% rate 1gbit limit 5000");
	good("delay 0", "tc qdisc replace dev veth1 root netem delay 0");
}

static void parsed_values(void **state)
{
	struct sp_netem_spec s;

	(void)state;
	parse_words("delay 10ms 2ms 30% distribution pareto loss 1.5% 10%", &s, 0, NULL);
	assert_int_equal(s.delay_ns, 10000000);
	assert_int_equal(s.jitter_ns, 2000000);
	assert_float_equal(s.delay_corr_pct, 30, 1e-9);
	assert_int_equal(s.dist, SP_DIST_PARETO);
	assert_float_equal(s.loss_pct, 1.5, 1e-9);
	assert_float_equal(s.loss_corr_pct, 10, 1e-9);
	assert_true(s.has & SP_NETEM_HAS_LOSS);
	assert_false(s.has & SP_NETEM_HAS_RATE);
}

static void bad_forms(void **state)
{
	struct sp_netem_spec s;

	(void)state;
	parse_words("", &s, -EINVAL, "nothing to set");
	parse_words("delay", &s, -EINVAL, "bad delay ''");
	parse_words("delay soon", &s, -EINVAL, "bad delay 'soon'");
	parse_words("delay 5", &s, -EINVAL, "bad delay '5'");
	parse_words("delay 1ms delay 2ms", &s, -EINVAL, "'delay' given twice");
	parse_words("delay 1ms 2ms", &s, -EINVAL, "jitter 2ms is larger than the delay 1ms");
	parse_words("delay 10ms 1ms 250%", &s, -EINVAL, "bad delay correlation '250%'");
	parse_words("delay 10ms 0 25%", &s, -EINVAL, "correlation needs a jitter");
	parse_words("delay 10ms distribution normal", &s, -EINVAL,
		    "distribution normal needs a jitter");
	parse_words("delay 10ms 1ms distribution cauchy", &s, -EINVAL,
		    "bad distribution 'cauchy'");
	parse_words("delay 10ms 1ms distribution", &s, -EINVAL, "bad distribution ''");
	parse_words("delay 10ms 1ms distribution normal distribution pareto", &s,
		    -EINVAL, "'distribution' given twice");
	parse_words("delay 1500ns", &s, -EINVAL, "whole microseconds");
	parse_words("delay 61s", &s, -EINVAL, "out of range");
	/* the two together may hold a packet no longer than the bound */
	parse_words("delay 40s 30s", &s, -EINVAL, "over 60s");
	parse_words("delay 60s 1us", &s, -EINVAL, "over 60s");
	parse_words("loss 5", &s, -EINVAL, "bad loss '5'");
	parse_words("loss 101%", &s, -EINVAL, "bad loss '101%'");
	parse_words("loss 1% 120%", &s, -EINVAL, "bad loss correlation '120%'");
	parse_words("loss random", &s, -EINVAL, "bad loss ''");
	parse_words("loss 1% loss 2%", &s, -EINVAL, "'loss' given twice");
	parse_words("rate fast", &s, -EINVAL, "bad rate 'fast'");
	parse_words("rate 100", &s, -EINVAL, "bad rate '100'");
	parse_words("rate 0mbit", &s, -EINVAL, "bad rate '0mbit'");
	parse_words("rate 1bit", &s, -EINVAL, "rate 1bit out of range");
	parse_words("rate 100gbit", &s, -EINVAL, "out of range");
	parse_words("rate 1mbit rate 2mbit", &s, -EINVAL, "'rate' given twice");
	parse_words("limit 0", &s, -EINVAL, "bad limit '0'");
	parse_words("limit many", &s, -EINVAL, "bad limit 'many'");
	parse_words("duplicate 1%", &s, -EINVAL, "unknown netem word 'duplicate'");
	parse_words("delay 1ms corrupt", &s, -EINVAL, "unknown netem word 'corrupt'");
}

static void tc_text_with_netns_and_del(void **state)
{
	struct sp_netem_spec s;
	char cmd[256];

	(void)state;
	parse_words("delay 2ms", &s, 0, NULL);
	assert_int_equal(sp_netem_tc_command("change", "sp-p1", "veth-t1", &s,
					     cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, "tc -n sp-p1 qdisc change dev veth-t1 root netem delay 2ms");
	assert_int_equal(sp_netem_tc_command("del", NULL, "lo", &s, cmd,
					     sizeof(cmd)), 0);
	assert_string_equal(cmd, "tc qdisc del dev lo root");
	assert_int_equal(sp_netem_tc_command("replace", NULL, "lo", &s, cmd, 20),
			 -ENOSPC);
}

static void validate_catches_hand_built_specs(void **state)
{
	struct sp_netem_spec s = { .has = SP_NETEM_HAS_DELAY,
				   .delay_ns = 1000000 };
	char err[SP_NETEM_ERRLEN];

	(void)state;
	assert_int_equal(sp_netem_validate(&s, err, sizeof(err)), 0);
	s.dist = SP_DIST_NORMAL;
	assert_int_equal(sp_netem_validate(&s, err, sizeof(err)), -EINVAL);
	s.dist = SP_DIST_UNIFORM;
	s.has |= SP_NETEM_HAS_LOSS;
	s.loss_pct = -1;
	assert_int_equal(sp_netem_validate(&s, err, sizeof(err)), -EINVAL);
}

static void dist_tables(void **state)
{
	int16_t out[8];
	size_t n;
	char path[512];

	(void)state;
	assert_int_equal(sp_netem_parse_dist("# header\n 1 -2\n32767 -32768 # c\n",
					     out, 8, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(out[1], -2);
	assert_int_equal(out[3], -32768);
	assert_int_equal(sp_netem_parse_dist("1 2 x", out, 8, &n), -EINVAL);
	assert_int_equal(sp_netem_parse_dist("40000", out, 8, &n), -EINVAL);
	assert_int_equal(sp_netem_parse_dist("1 2 3", out, 2, &n), -E2BIG);
	assert_int_equal(sp_netem_parse_dist("# only a comment\n", out, 8, &n),
			 -EINVAL);
	/* iproute2's own tables, where this machine has them */
	if (sp_netem_dist_path("normal", path, sizeof(path)) == 0) {
		static int16_t big[SP_NETEM_DIST_MAX];
		FILE *f = fopen(path, "r");
		static char text[128 * 1024];
		size_t got;

		assert_non_null(f);
		got = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[got] = '\0';
		assert_int_equal(sp_netem_parse_dist(text, big,
						     SP_NETEM_DIST_MAX, &n), 0);
		assert_int_equal(n, 4096);
	}
	setenv("SLOWPATH_TC_DIST_DIR", "/nonexistent", 1);
	assert_int_equal(sp_netem_dist_path("normal", path, sizeof(path)), -ENOENT);
	unsetenv("SLOWPATH_TC_DIST_DIR");
}

static void error_sentences(void **state)
{
	char buf[256];

	(void)state;
	assert_non_null(strstr(sp_netem_strerror(-ENOPKG, NULL, "lo", buf,
						 sizeof(buf)), "sch_netem"));
	assert_non_null(strstr(sp_netem_strerror(-ENODEV, "sp1", "veth9", buf,
						 sizeof(buf)),
			       "no such device 'veth9 in netns sp1'"));
	assert_non_null(strstr(sp_netem_strerror(-EPERM, NULL, "lo", buf,
						 sizeof(buf)), "not permitted"));
	assert_non_null(strstr(sp_netem_strerror(-ESRCH, "gone", "x", buf,
						 sizeof(buf)), "/run/netns/gone"));
}


/* Mock ops: record what reached the "kernel" and answer as told. */
static struct {
	int sets, clears, gets, change;
	struct sp_netem_spec last;
	const char *netns, *dev;
	int answer;
} kernel;

static int mock_set(void *ctx, const char *netns, const char *dev,
		    const struct sp_netem_spec *spec, int change)
{
	(void)ctx;
	kernel.sets++;
	kernel.change = change;
	kernel.last = *spec;
	kernel.netns = netns;
	kernel.dev = dev;
	return kernel.answer;
}

static int mock_clear(void *ctx, const char *netns, const char *dev)
{
	(void)ctx; (void)netns; (void)dev;
	kernel.clears++;
	return kernel.answer;
}

static int mock_get(void *ctx, const char *netns, const char *dev,
		    struct sp_netem_spec *spec)
{
	(void)ctx; (void)netns; (void)dev;
	kernel.gets++;
	memset(spec, 0, sizeof(*spec));
	spec->has = SP_NETEM_HAS_DELAY | SP_NETEM_HAS_LIMIT;
	spec->delay_ns = 3000000;
	spec->limit = 1000;
	return kernel.answer;
}

static const struct sp_netem_ops mock_ops = {
	.set = mock_set, .clear = mock_clear, .get = mock_get,
};

static int run(const char *verb, const char *netns, int dry, const char *line,
	       char *out, char *err)
{
	static char buf[256];
	char *words[32];
	struct sp_netem_request rq = { .netns = netns, .dev = "vt1",
				       .dry_run = dry };

	assert_int_equal(sp_netem_verb_parse(verb, &rq.verb), 0);
	snprintf(buf, sizeof(buf), "%s", line);
	rq.nwords = split(buf, words, 32);
	rq.words = words;
	return sp_netem_run(&mock_ops, &rq, out, 256, err, SP_NETEM_ERRLEN);
}

static void bad_input_never_reaches_the_kernel(void **state)
{
	char out[256], err[SP_NETEM_ERRLEN];

	(void)state;
	memset(&kernel, 0, sizeof(kernel));
	assert_int_equal(run("set", "ns1", 0, "delay 1ms 9ms", out, err), -EINVAL);
	assert_non_null(strstr(err, "netem set vt1: jitter 9ms"));
	assert_int_equal(run("change", NULL, 0, "loss lots", out, err), -EINVAL);
	assert_int_equal(run("clear", NULL, 0, "delay 1ms", out, err), -EINVAL);
	assert_non_null(strstr(err, "takes no netem words, got 'delay'"));
	assert_int_equal(run("show", NULL, 1, "", out, err), -EINVAL);
	assert_int_equal(kernel.sets + kernel.clears + kernel.gets, 0);
}

static void dry_run_never_reaches_the_kernel(void **state)
{
	char out[256], err[SP_NETEM_ERRLEN];

	(void)state;
	memset(&kernel, 0, sizeof(kernel));
	assert_int_equal(run("set", "ns1", 1, "delay 4ms 1ms distribution normal",
			     out, err), 0);
	assert_string_equal(out, "tc -n ns1 qdisc replace dev vt1 root netem "
				 "delay 4ms 1ms distribution normal");
	assert_int_equal(run("clear", NULL, 1, "", out, err), 0);
	assert_string_equal(out, "tc qdisc del dev vt1 root");
	assert_int_equal(kernel.sets + kernel.clears + kernel.gets, 0);
}

static void requests_reach_the_ops(void **state)
{
	char out[256], err[SP_NETEM_ERRLEN];

	(void)state;
	memset(&kernel, 0, sizeof(kernel));
	assert_int_equal(run("set", "ns1", 0, "delay 4ms rate 1gbit", out, err), 0);
	assert_int_equal(kernel.sets, 1);
	assert_int_equal(kernel.change, 0);
	assert_string_equal(kernel.netns, "ns1");
	assert_int_equal(kernel.last.delay_ns, 4000000);
	assert_int_equal(kernel.last.rate_bps, 1000000000ULL);
	assert_int_equal(run("change", NULL, 0, "loss 2%", out, err), 0);
	assert_int_equal(kernel.change, 1);
	assert_null(kernel.netns);
	assert_int_equal(run("show", NULL, 0, "", out, err), 0);
	assert_string_equal(out, "vt1: netem delay 3ms limit 1000");
	/* nothing there: show says so, clear succeeds */
	kernel.answer = -ENOENT;
	assert_int_equal(run("show", NULL, 0, "", out, err), 0);
	assert_string_equal(out, "vt1: no netem");
	assert_int_equal(run("clear", NULL, 0, "", out, err), 0);
	/* the kernel's refusals become one sentence */
	kernel.answer = -ENOPKG;
	assert_int_equal(run("set", NULL, 0, "delay 1ms", out, err), -ENOPKG);
	assert_non_null(strstr(err, "netem set: sch_netem is missing"));
	kernel.answer = -ENODEV;
	assert_int_equal(run("clear", "ns2", 0, "", out, err), -ENODEV);
	assert_non_null(strstr(err, "no such device 'vt1 in netns ns2'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_forms),
		cmocka_unit_test(parsed_values),
		cmocka_unit_test(bad_forms),
		cmocka_unit_test(tc_text_with_netns_and_del),
		cmocka_unit_test(validate_catches_hand_built_specs),
		cmocka_unit_test(dist_tables),
		cmocka_unit_test(error_sentences),
		cmocka_unit_test(bad_input_never_reaches_the_kernel),
		cmocka_unit_test(dry_run_never_reaches_the_kernel),
		cmocka_unit_test(requests_reach_the_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
