/* The fault spec grammar: every HOW read and written back, and every
 * hostile or wrong word refused with a message naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/fault/fault.h"

#define S 1000000000LL

static void every_how_has_a_name_that_parses_back(void **state)
{
	enum sp_fault_how how, back;

	(void)state;
	for (how = 0; how < SP_FAULT_HOW_COUNT; how++) {
		assert_int_equal(sp_fault_how_parse(sp_fault_how_name(how),
						    &back), 0);
		assert_int_equal(back, how);
	}
	assert_string_equal(sp_fault_how_name(SP_FAULT_HOW_COUNT), "?");
	assert_int_equal(sp_fault_how_parse("HANG", &back), -EINVAL);
}

static void a_run_spec_parses(void **state)
{
	struct sp_fault f;
	char err[256];

	(void)state;
	assert_int_equal(sp_fault_parse("at=10s path=p2 how=hang for=20s", &f,
					err, sizeof(err)), 0);
	assert_int_equal(f.how, SP_FAULT_HANG);
	assert_string_equal(f.path, "p2");
	assert_int_equal(f.at_ns, 10 * S);
	assert_int_equal(f.for_ns, 20 * S);
	/* order and blanks do not matter; absent at/for: now, until restored */
	assert_int_equal(sp_fault_parse("  how=down \t path=3 ", &f, err,
					sizeof(err)), 0);
	assert_int_equal(f.how, SP_FAULT_DOWN);
	assert_string_equal(f.path, "3");
	assert_int_equal(f.at_ns, -1);
	assert_int_equal(f.for_ns, 0);
}

static void how_specific_words_and_their_defaults(void **state)
{
	struct sp_fault f;
	char err[256];

	(void)state;
	assert_int_equal(sp_fault_parse("path=a how=error", &f, err,
					sizeof(err)), 0);
	assert_true(f.error_rate == 1.0);
	assert_string_equal(f.error_sense, "medium");
	assert_int_equal(sp_fault_parse("path=a how=error rate=0.1 "
					"sense=not-ready", &f, err,
					sizeof(err)), 0);
	assert_true(f.error_rate == 0.1);
	assert_string_equal(f.error_sense, "not-ready");
	assert_int_equal(sp_fault_parse("path=a how=flap", &f, err,
					sizeof(err)), 0);
	assert_int_equal(f.flap_period_ns, 5 * S);
	assert_int_equal(sp_fault_parse("path=a how=flap period=2s for=1m",
					&f, err, sizeof(err)), -EINVAL);
	assert_int_equal(sp_fault_parse("path=a how=flap period=2s for=60s",
					&f, err, sizeof(err)), 0);
	assert_int_equal(f.flap_period_ns, 2 * S);
	assert_int_equal(sp_fault_parse("path=a how=slow", &f, err,
					sizeof(err)), 0);
	assert_true(f.slow_factor == 10.0);
	assert_int_equal(sp_fault_parse("path=a how=slow factor=2.5", &f, err,
					sizeof(err)), 0);
	assert_true(f.slow_factor == 2.5);
	assert_int_equal(sp_fault_parse("path=a how=restore", &f, err,
					sizeof(err)), 0);
	assert_int_equal(f.how, SP_FAULT_RESTORE);
	/* nvme-tcp's ANA state: inaccessible unless said */
	assert_int_equal(sp_fault_parse("path=a how=ana", &f, err,
					sizeof(err)), 0);
	assert_int_equal(f.how, SP_FAULT_ANA);
	assert_string_equal(f.ana_state, "inaccessible");
	assert_int_equal(sp_fault_parse("path=a how=ana state=non-optimized "
					"at=2s for=3s", &f, err, sizeof(err)),
			 0);
	assert_string_equal(f.ana_state, "non-optimized");
	assert_int_equal(f.for_ns, 3 * S);
}

static void bad_words_are_refused_naming_them(void **state)
{
	static const char *const bad[][2] = {
		{ "path=p1 how=hang color=red", "unknown key 'color'" },
		{ "path=p1 how=hang for=-5s", "negative" },
		{ "path=p1 how=hang at=-1s", "negative" },
		{ "path=p1 how=hang for=5", "for=5" },
		{ "path=p1 how=hang for=soon", "for=soon" },
		{ "path=p1 how=error rate=0", "rate=0" },
		{ "path=p1 how=error rate=1.5", "rate=1.5" },
		{ "path=p1 how=error rate=-0.1", "rate=-0.1" },
		{ "path=p1 how=error rate=nan", "rate=nan" },
		{ "path=p1 how=error rate=inf", "rate=inf" },
		{ "path=p1 how=error sense=fire", "sense=fire" },
		{ "path=p1 how=hang rate=0.5", "rate= is for how=error" },
		{ "path=p1 how=down period=1s", "period= is for how=flap" },
		{ "path=p1 how=hang factor=2", "factor= is for how=slow" },
		{ "path=p1 how=slow factor=0", "factor=0" },
		{ "path=p1 how=slow factor=-2", "factor=-2" },
		{ "path=p1 how=slow factor=1e9", "factor=1e9" },
		{ "path=p1 how=flap period=10ms", "period=10ms" },
		{ "path=p1 how=explode", "how=explode" },
		{ "path=p1 how=ana state=change", "state=change" },
		{ "path=p1 how=ana state=persistent-loss", "state=persistent" },
		{ "path=p1 how=ana state=", "state= has no value" },
		{ "path=p1 how=down state=inaccessible",
		  "state= is for how=ana" },
		{ "path=p1", "no how=" },
		{ "how=hang", "no path=" },
		{ "path=../../etc how=hang", "path=../../etc" },
		{ "path=-rf how=hang", "path=-rf" },
		{ "path=a;b how=hang", "path=a;b" },
		{ "path=p1 path=p2 how=hang", "path= given twice" },
		{ "path=p1 how=hang hang", "'hang' is not key=value" },
		{ "path= how=hang", "path= has no value" },
		{ "path=p1 how=restore for=5s", "for= makes no sense" },
	};
	struct sp_fault f;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (sp_fault_parse(bad[i][0], &f, err, sizeof(err)) != -EINVAL)
			fail_msg("accepted '%s'", bad[i][0]);
		if (!strstr(err, bad[i][1]))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i][0],
				 err, bad[i][1]);
	}
}

static void a_long_or_huge_spec_is_refused(void **state)
{
	char spec[2048], err[256];
	struct sp_fault f;

	(void)state;
	memset(spec, 'a', sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	assert_int_equal(sp_fault_parse(spec, &f, err, sizeof(err)), -EINVAL);
	snprintf(spec, sizeof(spec), "how=hang path=%0100d", 7);
	assert_int_equal(sp_fault_parse(spec, &f, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "path="));
}

static void format_parses_back_to_the_same_fault(void **state)
{
	static const char *const specs[] = {
		"at=10s path=p2 how=hang for=20s",
		"path=p1 how=reset",
		"path=3 how=blackhole for=1500ms",
		"at=0 path=p4 how=down",
		"path=a how=error rate=0.1 sense=aborted",
		"path=a how=error rate=0.3333 sense=hardware for=2s",
		"path=b how=flap period=250ms for=10s",
		"path=c how=slow factor=7.25",
		"path=c how=restore",
		"at=5s path=b how=ana state=inaccessible for=10s",
		"path=b how=ana state=non-optimized",
	};
	struct sp_fault f, back;
	char err[256], txt[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (sp_fault_parse(specs[i], &f, err, sizeof(err)))
			fail_msg("'%s': %s", specs[i], err);
		assert_int_equal(sp_fault_format(&f, txt, sizeof(txt)), 0);
		if (sp_fault_parse(txt, &back, err, sizeof(err)))
			fail_msg("'%s' (from '%s'): %s", txt, specs[i], err);
		assert_memory_equal(&f, &back, sizeof(f));
	}
	/* the words a user would write, not noise */
	sp_fault_parse("path=a how=error rate=0.1", &f, err, sizeof(err));
	sp_fault_format(&f, txt, sizeof(txt));
	assert_string_equal(txt, "path=a how=error rate=0.1 sense=medium");
	sp_fault_parse("at=10s path=p2 how=hang for=20s", &f, err, sizeof(err));
	sp_fault_format(&f, txt, sizeof(txt));
	assert_string_equal(txt, "at=10s path=p2 how=hang for=20s");
}

static void format_refuses_what_it_cannot_say(void **state)
{
	struct sp_fault f;
	char txt[256];

	(void)state;
	sp_fault_init(&f, SP_FAULT_HANG);
	assert_int_equal(sp_fault_format(&f, txt, sizeof(txt)), -EINVAL);
	snprintf(f.path, sizeof(f.path), "p 1");
	assert_int_equal(sp_fault_format(&f, txt, sizeof(txt)), -EINVAL);
	snprintf(f.path, sizeof(f.path), "p1");
	assert_int_equal(sp_fault_format(&f, txt, 8), -ENOSPC);
	f.how = SP_FAULT_HOW_COUNT;
	assert_int_equal(sp_fault_format(&f, txt, sizeof(txt)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_how_has_a_name_that_parses_back),
		cmocka_unit_test(a_run_spec_parses),
		cmocka_unit_test(how_specific_words_and_their_defaults),
		cmocka_unit_test(bad_words_are_refused_naming_them),
		cmocka_unit_test(a_long_or_huge_spec_is_refused),
		cmocka_unit_test(format_parses_back_to_the_same_fault),
		cmocka_unit_test(format_refuses_what_it_cannot_say),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
