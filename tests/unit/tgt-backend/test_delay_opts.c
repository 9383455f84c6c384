#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/opttab.h"
#include "tgt-backend/delay_opts.h"
#include "tgt-backend/jitter.h"

#define MS 1000000LL

static int parse(struct delay_opts *o, const char *text,
		 enum delay_opts_scope scope, char *err)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "%s", text);
	err[0] = '\0';
	return delay_opts_parse(o, buf, scope, err, SP_OPT_ERRLEN);
}

static void defaults_are_no_delay(void **state)
{
	struct delay_opts o;

	(void)state;
	assert_int_equal(delay_opts_defaults(&o), 0);
	assert_int_equal(o.read_delay_ns, 0);
	assert_int_equal(o.write_delay_ns, 0);
	assert_int_equal(o.jitter_ns, 0);
	assert_int_equal(o.dist, SP_DIST_UNIFORM);
	assert_int_equal(o.seed, -1);
	assert_int_equal(o.when, DELAY_WHEN_AFTER);
	assert_int_equal(o.stats_interval_ns, 100 * MS);
	assert_int_equal(o.poll_max_ns, 200000);
	assert_int_equal(o.service_ns, 0);
	assert_int_equal(o.servers, 1);
	assert_null(o.ctl);
}

static void delay_sets_both_directions(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN];

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(parse(&o, "delay=5ms", DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.read_delay_ns, 5 * MS);
	assert_int_equal(o.write_delay_ns, 5 * MS);
	/* later pairs win, in order */
	assert_int_equal(parse(&o, "delay=1ms;write_delay=250us", DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.read_delay_ns, 1 * MS);
	assert_int_equal(o.write_delay_ns, 250000);
	assert_int_equal(parse(&o, "read_delay=2s;;", DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.read_delay_ns, 2000 * MS);
	assert_int_equal(o.write_delay_ns, 250000);
	assert_int_equal(parse(&o, "read_delay=750ns", DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.read_delay_ns, 750);
}

static void all_options_at_creation(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN];

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(parse(&o, "delay=1ms;jitter=200us;dist=pareto;seed=42;"
			       "when=before;stats_interval=1s;poll_max=0;ctl=/run/x/1-1",
			       DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.poll_max_ns, 0);
	assert_int_equal(o.jitter_ns, 200000);
	assert_int_equal(o.dist, SP_DIST_PARETO);
	assert_int_equal(o.seed, 42);
	assert_int_equal(o.when, DELAY_WHEN_BEFORE);
	assert_int_equal(o.stats_interval_ns, 1000 * MS);
	assert_string_equal(o.ctl, "/run/x/1-1");
	assert_int_equal(parse(&o, "dist=normal", DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.dist, SP_DIST_NORMAL);
	assert_int_equal(parse(&o, "", DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.dist, SP_DIST_NORMAL);
}

struct bad_case {
	const char *text;
	int ret;
	const char *must_name;	/* the option, or the bad value */
};

static void every_bad_form_is_refused_and_changes_nothing(void **state)
{
	static const struct bad_case cases[] = {
		{ "bogus=1", -ENOENT, "bogus" },
		{ "delay=1ms;bogus", -ENOENT, "bogus" },
		{ "delay", -EINVAL, "delay" },
		{ "delay=", -EINVAL, "delay" },
		{ "delay=5", -EINVAL, "'5'" },
		{ "delay=5parsecs", -EINVAL, "5parsecs" },
		{ "delay=-1ms", 0, "delay" },	/* ret checked as nonzero */
		{ "read_delay=61s", -ERANGE, "read_delay" },
		{ "write_delay=1h", -EINVAL, "write_delay" },
		{ "jitter=2m", 0, "jitter" },
		{ "jitter=90s", -ERANGE, "jitter" },
		{ "dist=cauchy", -EINVAL, "cauchy" },
		{ "dist=", -EINVAL, "dist" },
		{ "when=during", -EINVAL, "during" },
		{ "seed=-2", -ERANGE, "seed" },
		{ "seed=abc", -EINVAL, "abc" },
		{ "seed=1.5", -EINVAL, "seed" },
		{ "stats_interval=1ms", -ERANGE, "stats_interval" },
		{ "poll_max=11ms", -ERANGE, "poll_max" },
		{ "poll_max=-1us", -EINVAL, "poll_max" },
		{ "ctl=relative/dir", -EINVAL, "relative/dir" },
		{ "delay=1ms,jitter=1ms", -EINVAL, "delay" },
		{ "service=61s", -ERANGE, "service" },
		{ "service=-1ms", 0, "service" },
		{ "servers=0", -ERANGE, "servers" },
		{ "servers=65", -ERANGE, "servers" },
		{ "servers=two", -EINVAL, "two" },
	};
	struct delay_opts o, before;
	char err[SP_OPT_ERRLEN];
	size_t i;

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(parse(&o, "delay=3ms;jitter=1ms;seed=9", DELAY_OPTS_CREATE, err), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		before = o;
		ret = parse(&o, cases[i].text, DELAY_OPTS_CREATE, err);
		if (cases[i].ret)
			assert_int_equal(ret, cases[i].ret);
		else
			assert_true(ret < 0);
		if (!strstr(err, cases[i].must_name)) {
			print_error("'%s': message '%s' does not name '%s'\n",
				    cases[i].text, err, cases[i].must_name);
			fail();
		}
		assert_memory_equal(&o, &before, sizeof(o));
	}
}

static void ctl_too_long_is_refused(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN], text[DELAY_CTL_DIR_MAX + 32];

	(void)state;
	delay_opts_defaults(&o);
	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	memcpy(text, "ctl=/", 5);
	assert_int_equal(parse(&o, text, DELAY_OPTS_CREATE, err), -ENAMETOOLONG);
	assert_non_null(strstr(err, "ctl"));
	assert_null(o.ctl);
}

static void runtime_refuses_ctl_and_keeps_it(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN], create_text[] = "ctl=/run/a";
	const char *ctl;

	(void)state;
	delay_opts_defaults(&o);
	/* its own buffer: ctl points into the text it was parsed from */
	assert_int_equal(delay_opts_parse(&o, create_text, DELAY_OPTS_CREATE,
					  err, sizeof(err)), 0);
	ctl = o.ctl;
	assert_string_equal(ctl, "/run/a");
	assert_int_equal(parse(&o, "delay=1ms;ctl=/run/b", DELAY_OPTS_RUNTIME, err), -EINVAL);
	assert_non_null(strstr(err, "ctl"));
	assert_int_equal(o.read_delay_ns, 0);
	assert_int_equal(parse(&o, "delay=7ms;when=before", DELAY_OPTS_RUNTIME, err), 0);
	assert_int_equal(o.read_delay_ns, 7 * MS);
	assert_int_equal(o.when, DELAY_WHEN_BEFORE);
	assert_ptr_equal(o.ctl, ctl);
	assert_string_equal(o.ctl, "/run/a");
}

static void format_lists_the_settings(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN], out[512];
	size_t n;

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(parse(&o, "read_delay=1ms;write_delay=2ms;jitter=3us;"
			       "dist=normal;seed=11;when=before;service=400us;servers=2",
			       DELAY_OPTS_CREATE, err), 0);
	n = delay_opts_format(&o, out, sizeof(out));
	assert_int_equal(n, strlen(out));
	assert_string_equal(out,
		"read_delay_ns=1000000\nwrite_delay_ns=2000000\njitter_ns=3000\n"
		"dist=normal\nseed=11\nwhen=before\npoll_max_ns=200000\n"
		"service_ns=400000\nservers=2\n"
		"error_rate=0\nerror_sense=medium\nhold=0\nio=pool\n");
}

static void assert_same_opts(const struct delay_opts *a,
			     const struct delay_opts *b)
{
	assert_int_equal(a->read_delay_ns, b->read_delay_ns);
	assert_int_equal(a->write_delay_ns, b->write_delay_ns);
	assert_int_equal(a->jitter_ns, b->jitter_ns);
	assert_int_equal(a->dist, b->dist);
	assert_int_equal(a->seed, b->seed);
	assert_int_equal(a->when, b->when);
	assert_int_equal(a->service_ns, b->service_ns);
	assert_int_equal(a->servers, b->servers);
	assert_int_equal(a->poll_max_ns, b->poll_max_ns);
	assert_int_equal(a->stats_interval_ns, b->stats_interval_ns);
	assert_true(a->error_rate == b->error_rate);
	assert_int_equal(a->error_sense, b->error_sense);
	assert_int_equal(a->hold, b->hold);
	assert_int_equal(a->io, b->io);
	if (a->ctl || b->ctl) {
		assert_non_null(a->ctl);
		assert_non_null(b->ctl);
		assert_string_equal(a->ctl, b->ctl);
	}
}

/* format then parse on top of the defaults gives the same settings */
static void format_kv_round_trips(void **state)
{
	struct delay_opts o, back;
	char err[SP_OPT_ERRLEN], text[512];

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), 0);
	assert_string_equal(text, "read_delay=0ns;write_delay=0ns;jitter=0ns;"
			    "dist=uniform");
	delay_opts_defaults(&back);
	back.read_delay_ns = 7 * MS;	/* a ctl line must reset it to 0 */
	assert_int_equal(parse(&back, text, DELAY_OPTS_RUNTIME, err), 0);
	assert_same_opts(&o, &back);

	o.read_delay_ns = 1500000;
	o.write_delay_ns = 3;
	o.jitter_ns = 250000;
	o.dist = SP_DIST_PARETO;
	o.seed = 42;
	o.when = DELAY_WHEN_BEFORE;
	o.service_ns = 2 * MS;
	o.servers = 4;
	o.poll_max_ns = 0;
	o.stats_interval_ns = 2000 * MS;
	o.io = DELAY_IO_INLINE;
	o.ctl = "/run/slowpath/ctl-1";
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), 0);
	assert_string_equal(text, "read_delay=1500us;write_delay=3ns;"
			    "jitter=250us;dist=pareto;seed=42;when=before;"
			    "service=2ms;servers=4;"
			    "poll_max=0ns;stats_interval=2s;io=inline;"
			    "ctl=/run/slowpath/ctl-1");
	delay_opts_defaults(&back);
	assert_int_equal(parse(&back, text, DELAY_OPTS_CREATE, err), 0);
	assert_same_opts(&o, &back);

	/* what bring-up gives a LUN */
	delay_opts_defaults(&o);
	o.read_delay_ns = o.write_delay_ns = 2 * MS;
	o.jitter_ns = 200000;
	o.ctl = "/run/slowpath/ctl-2";
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), 0);
	assert_string_equal(text, "read_delay=2ms;write_delay=2ms;jitter=200us;"
			    "dist=uniform;ctl=/run/slowpath/ctl-2");
}

static void format_kv_refuses_what_it_cannot_say(void **state)
{
	struct delay_opts o;
	char text[512];

	(void)state;
	delay_opts_defaults(&o);
	memset(text, 'x', sizeof(text));
	assert_int_equal(delay_opts_format_kv(&o, text, 20), -ENOSPC);
	assert_string_equal(text, "");
	o.ctl = "/run/slowpath/ctl-1";
	/* room for the delays but not for ctl */
	assert_int_equal(delay_opts_format_kv(&o, text, 60), -ENOSPC);
	o.ctl = "/a;b";
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), -EINVAL);
	o.ctl = NULL;
	o.dist = 7;
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), -EINVAL);
	o.dist = SP_DIST_UNIFORM;
	o.io = 2;
	assert_int_equal(delay_opts_format_kv(&o, text, sizeof(text)), -EINVAL);
}

/* Where the I/O runs is fixed when the LUN is made: its workers exist
 * or not from then on. A ctl line may repeat it, not change it. */
static void io_is_inline_or_pool_and_fixed_at_creation(void **state)
{
	struct delay_opts o;
	char err[SP_OPT_ERRLEN];

	(void)state;
	delay_opts_defaults(&o);
	assert_int_equal(o.io, DELAY_IO_POOL);
	assert_int_equal(parse(&o, "io=threads", DELAY_OPTS_CREATE, err), -EINVAL);
	assert_non_null(strstr(err, "threads"));
	assert_int_equal(parse(&o, "io=inline", DELAY_OPTS_CREATE, err), 0);
	assert_int_equal(o.io, DELAY_IO_INLINE);
	assert_int_equal(parse(&o, "delay=1ms;io=pool", DELAY_OPTS_RUNTIME, err),
			 -EINVAL);
	assert_non_null(strstr(err, "'io' can only be given when the LUN is created"));
	assert_int_equal(o.io, DELAY_IO_INLINE);
	assert_int_equal(o.read_delay_ns, 0);
	assert_int_equal(parse(&o, "delay=1ms;io=inline", DELAY_OPTS_RUNTIME, err), 0);
	assert_int_equal(o.read_delay_ns, 1 * MS);
	assert_string_equal(delay_io_name(o.io), "inline");
	assert_string_equal(delay_io_name(9), "?");
}

static void help_names_every_option(void **state)
{
	char buf[4096];
	static const char *const names[] = { "delay", "read_delay", "write_delay",
		"jitter", "dist", "seed", "when", "poll_max", "stats_interval",
		"error_rate", "error_sense", "hold", "ctl" };
	size_t i;

	(void)state;
	assert_true(delay_opts_help(buf, sizeof(buf)) > 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(strstr(buf, names[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_no_delay),
		cmocka_unit_test(delay_sets_both_directions),
		cmocka_unit_test(all_options_at_creation),
		cmocka_unit_test(every_bad_form_is_refused_and_changes_nothing),
		cmocka_unit_test(ctl_too_long_is_refused),
		cmocka_unit_test(runtime_refuses_ctl_and_keeps_it),
		cmocka_unit_test(format_lists_the_settings),
		cmocka_unit_test(format_kv_round_trips),
		cmocka_unit_test(format_kv_refuses_what_it_cannot_say),
		cmocka_unit_test(help_names_every_option),
		cmocka_unit_test(io_is_inline_or_pool_and_fixed_at_creation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
