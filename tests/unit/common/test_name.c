/* The one safe-name rule (common/name.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/name.h"

static void names_slowpath_uses_pass(void **state)
{
	static const char *const good[] = {
		"u10", "equal3", "service-time", "randread", "sdb", "dm-0",
		"a.b_c+d-e", "9lives",
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk",
	};
	size_t i;

	(void)state;
	assert_int_equal(strlen(good[8]), SP_NAME_MAX);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!sp_name_ok(good[i]))
			fail_msg("refused '%s'", good[i]);
}

static void syntax_of_any_consumer_is_refused(void **state)
{
	static const char *const bad[] = {
		"", "x`touch PWNED`", "a,readonly=1,online=0", "a b", "a/b",
		"..", ".", "-o", "+x", "_x", "a'b", "a\"b", "a;b", "a$b",
		"a\nb", "a@b", "a=b", "a\\b", "caf\xc3\xa9",
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl",
	};
	size_t i;

	(void)state;
	assert_false(sp_name_ok(NULL));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sp_name_ok(bad[i]))
			fail_msg("accepted '%s'", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_slowpath_uses_pass),
		cmocka_unit_test(syntax_of_any_consumer_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
