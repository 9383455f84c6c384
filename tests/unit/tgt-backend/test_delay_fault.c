/* The delay store's injected faults: the error_rate / error_sense /
 * hold grammar (bsopts and ctl lines), the sense codes, and the
 * deterministic fail decision. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/opttab.h"
#include "tgt-backend/delay_fault.h"
#include "tgt-backend/delay_opts.h"

static int parse(struct delay_opts *o, const char *text,
		 enum delay_opts_scope scope, char *err)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s", text);
	err[0] = '\0';
	return delay_opts_parse(o, buf, scope, err, SP_OPT_ERRLEN);
}

static void defaults_inject_nothing(void **state)
{
	struct delay_opts o;

	(void)state;
	delay_opts_defaults(&o);
	assert_true(o.error_rate == 0);
	assert_int_equal(o.error_sense, DELAY_SENSE_MEDIUM);
	assert_int_equal(o.hold, 0);
}

static void fault_options_parse_at_creation_and_at_run_time(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN];

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(parse(&o, "delay=1ms;error_rate=0.1;error_sense=not-ready",
			       DELAY_OPTS_CREATE, err), 0);
	assert_true(o.error_rate > 0.0999 && o.error_rate < 0.1001);
	assert_int_equal(o.error_sense, DELAY_SENSE_NOT_READY);
	assert_int_equal(parse(&o, "hold=1", DELAY_OPTS_RUNTIME, err), 0);
	assert_int_equal(o.hold, 1);
	/* a ctl line changes only what it names */
	assert_true(o.error_rate > 0.0999 && o.error_rate < 0.1001);
	assert_int_equal(o.read_delay_ns, 1000000);
	assert_int_equal(parse(&o, "hold=0;error_rate=0;error_sense=aborted",
			       DELAY_OPTS_RUNTIME, err), 0);
	assert_int_equal(o.hold, 0);
	assert_true(o.error_rate == 0);
	assert_int_equal(o.error_sense, DELAY_SENSE_ABORTED);
	assert_int_equal(parse(&o, "error_rate=1;error_sense=hardware",
			       DELAY_OPTS_RUNTIME, err), 0);
	assert_true(o.error_rate == 1);
	assert_int_equal(o.error_sense, DELAY_SENSE_HARDWARE);
}

static void bad_fault_words_are_refused_and_change_nothing(void **state)
{
	static const char *const bad[] = {
		"error_rate=1.5", "error_rate=-0.1", "error_rate=abc",
		"error_rate=", "error_rate=nan", "error_sense=MEDIUM",
		"error_sense=disk-on-fire", "error_sense=", "hold=2",
		"hold=maybe", "error_rate=0.5;error_sense=bogus",
	};
	struct delay_opts o, before;
	char err[SP_OPT_ERRLEN];
	size_t i;

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(parse(&o, "error_rate=0.25;error_sense=aborted;hold=1",
			       DELAY_OPTS_CREATE, err), 0);
	before = o;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(parse(&o, bad[i], DELAY_OPTS_RUNTIME, err),
				     0);
		/* the message names the option */
		assert_non_null(strstr(err, strchr(bad[i], ';') ? "error_sense"
					    : (bad[i][0] == 'h' ? "hold"
					       : (bad[i][6] == 'r' ? "error_rate"
								   : "error_sense"))));
		assert_true(o.error_rate == before.error_rate);
		assert_int_equal(o.error_sense, before.error_sense);
		assert_int_equal(o.hold, before.hold);
	}
}

static void format_kv_says_faults_only_when_set(void **state)
{
	struct delay_opts o, back;
	char err[SP_OPT_ERRLEN], text[512];

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), 0);
	assert_null(strstr(text, "error"));
	assert_null(strstr(text, "hold"));
	o.error_rate = 0.1;
	o.error_sense = DELAY_SENSE_NOT_READY;
	o.hold = 1;
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "error_sense=not-ready"));
	assert_non_null(strstr(text, "hold=1"));
	delay_opts_defaults(&back);
	assert_int_equal(parse(&back, text, DELAY_OPTS_CREATE, err), 0);
	assert_true(back.error_rate == o.error_rate);
	assert_int_equal(back.error_sense, o.error_sense);
	assert_int_equal(back.hold, 1);
	o.error_sense = DELAY_SENSE_COUNT;
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), -EINVAL);
	o.error_sense = 0;
	o.error_rate = 2;
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), -EINVAL);
}

static void stats_show_the_fault_settings(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN], out[512];

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(parse(&o, "error_rate=0.5;error_sense=aborted;hold=1",
			       DELAY_OPTS_CREATE, err), 0);
	delay_opts_format(&o, out, sizeof(out));
	assert_non_null(strstr(out, "\nerror_rate=0.5\n"));
	assert_non_null(strstr(out, "\nerror_sense=aborted\n"));
	assert_non_null(strstr(out, "\nhold=1\n"));
}

static void sense_codes_are_the_standard_ones(void **state)
{
	const struct delay_sense_code *c;

	(void)state;
	c = delay_sense_code(DELAY_SENSE_MEDIUM);
	assert_int_equal(c->key, 0x03);
	assert_int_equal(c->asc, 0x11);
	assert_int_equal(c->ascq, 0x00);
	c = delay_sense_code(DELAY_SENSE_NOT_READY);
	assert_int_equal(c->key, 0x02);
	assert_int_equal(c->asc, 0x04);
	assert_int_equal(c->ascq, 0x00);
	c = delay_sense_code(DELAY_SENSE_ABORTED);
	assert_int_equal(c->key, 0x0b);
	assert_int_equal(c->asc, 0x00);
	c = delay_sense_code(DELAY_SENSE_HARDWARE);
	assert_int_equal(c->key, 0x04);
	assert_int_equal(c->asc, 0x44);
	assert_null(delay_sense_code(-1));
	assert_null(delay_sense_code(DELAY_SENSE_COUNT));
	assert_string_equal(delay_sense_name(DELAY_SENSE_NOT_READY),
			    "not-ready");
	assert_string_equal(delay_sense_name(99), "?");
}

static void decide_is_deterministic_and_near_the_rate(void **state)
{
	struct jitter_rng a, b;
	int i, n = 20000, fails = 0, same = 1;

	(void)state;
	jitter_seed(&a, delay_fault_seed(42));
	jitter_seed(&b, delay_fault_seed(42));
	for (i = 0; i < n; i++) {
		int fa = delay_fault_decide(&a, 0.1);

		fails += fa;
		same &= fa == delay_fault_decide(&b, 0.1);
	}
	assert_true(same);
	/* 2000 expected, sd about 42: 10 sd either way */
	assert_in_range(fails, 1580, 2420);
	/* another seed, another sequence */
	jitter_seed(&a, delay_fault_seed(42));
	jitter_seed(&b, delay_fault_seed(43));
	same = 1;
	for (i = 0; i < 64; i++)
		same &= delay_fault_decide(&a, 0.5) ==
			delay_fault_decide(&b, 0.5);
	assert_false(same);
	/* not the jitter's sequence either */
	assert_int_not_equal(delay_fault_seed(42), 42);
}

static void decide_edges_use_no_draw(void **state)
{
	struct jitter_rng a;
	uint64_t before;
	int i;

	(void)state;
	jitter_seed(&a, 7);
	before = a.state;
	for (i = 0; i < 100; i++) {
		assert_int_equal(delay_fault_decide(&a, 0), 0);
		assert_int_equal(delay_fault_decide(&a, -1), 0);
		assert_int_equal(delay_fault_decide(&a, 1), 1);
		assert_int_equal(delay_fault_decide(&a, 5), 1);
	}
	assert_true(a.state == before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_inject_nothing),
		cmocka_unit_test(fault_options_parse_at_creation_and_at_run_time),
		cmocka_unit_test(bad_fault_words_are_refused_and_change_nothing),
		cmocka_unit_test(format_kv_says_faults_only_when_set),
		cmocka_unit_test(stats_show_the_fault_settings),
		cmocka_unit_test(sense_codes_are_the_standard_ones),
		cmocka_unit_test(decide_is_deterministic_and_near_the_rate),
		cmocka_unit_test(decide_edges_use_no_draw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
