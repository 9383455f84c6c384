#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/probe/probe_url.h"

static void full_url(void **state)
{
	struct probe_url u;
	char err[256];

	(void)state;
	assert_int_equal(probe_url_parse(
		"iscsi://127.0.0.1:3261/iqn.2020-01.io.slowpath:t1/1", &u,
		err, sizeof(err)), 0);
	assert_string_equal(u.host, "127.0.0.1");
	assert_int_equal(u.port, 3261);
	assert_string_equal(u.portal, "127.0.0.1:3261");
	assert_string_equal(u.iqn, "iqn.2020-01.io.slowpath:t1");
	assert_int_equal(u.lun, 1);
}

static void default_port_and_ipv6(void **state)
{
	struct probe_url u;
	char err[256];

	(void)state;
	assert_int_equal(probe_url_parse("iscsi://198.18.0.2/iqn.x:y/0", &u,
					 err, sizeof(err)), 0);
	assert_int_equal(u.port, 3260);
	assert_string_equal(u.portal, "198.18.0.2:3260");
	assert_int_equal(u.lun, 0);
	assert_int_equal(probe_url_parse("iscsi://[::1]:3300/iqn.x:y/2", &u,
					 err, sizeof(err)), 0);
	assert_string_equal(u.host, "::1");
	assert_string_equal(u.portal, "[::1]:3300");
	assert_int_equal(u.lun, 2);
}

/* Each bad URL is refused with a message naming the URL and the part. */
static void bad_urls_say_what_is_wrong(void **state)
{
	static const struct { const char *url, *why; } cases[] = {
		{ "", "empty" },
		{ "http://127.0.0.1/iqn.x:y/1", "does not start with iscsi://" },
		{ "iscsi://127.0.0.1", "no target name" },
		{ "iscsi:///iqn.x:y/1", "no host" },
		{ "iscsi://127.0.0.1:0/iqn.x:y/1", "port '0'" },
		{ "iscsi://127.0.0.1:70000/iqn.x:y/1", "port '70000'" },
		{ "iscsi://127.0.0.1:ab/iqn.x:y/1", "port 'ab'" },
		{ "iscsi://127.0.0.1/iqn.x:y", "no LUN" },
		{ "iscsi://127.0.0.1/iqn.x:y/", "empty LUN" },
		{ "iscsi://127.0.0.1/iqn.x:y/one", "LUN is not a number" },
		{ "iscsi://127.0.0.1/iqn.x:y/99999", "LUN is not a number" },
		{ "iscsi://127.0.0.1//1", "empty target name" },
		{ "iscsi://127.0.0.1/target1/1", "does not start with iqn." },
		{ "iscsi://127.0.0.1/iqn.a/b/1", "'/' inside the target name" },
		{ "iscsi://[::1/iqn.x:y/1", "'[' without ']'" },
		{ "iscsi://u%p@127.0.0.1/iqn.x:y/1", "CHAP" },
	};
	struct probe_url u;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(probe_url_parse(cases[i].url, &u, err,
						 sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].why) ||
		    (cases[i].url[0] && !strstr(err, cases[i].url)))
			fail_msg("'%s': message '%s' lacks '%s'", cases[i].url,
				 err, cases[i].why);
	}
}

static void too_long_names_are_refused(void **state)
{
	char url[700], err[256];
	struct probe_url u;

	(void)state;
	snprintf(url, sizeof(url), "iscsi://127.0.0.1/iqn.%0300d/1", 0);
	assert_int_equal(probe_url_parse(url, &u, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "longer than 223"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_url),
		cmocka_unit_test(default_port_and_ipv6),
		cmocka_unit_test(bad_urls_say_what_is_wrong),
		cmocka_unit_test(too_long_names_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
