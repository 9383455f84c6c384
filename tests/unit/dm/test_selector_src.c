/* dm/selector_src.c: what `selector build` reads from a user's selector
 * source, its module image and the compiler's output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "dm/selector.h"
#include "dm/selector_src.h"

static void name_from_a_literal_or_a_macro(void **state)
{
	char name[SP_SEL_NAME_MAX];

	(void)state;
	assert_int_equal(sp_selector_src_name(
		"static struct path_selector_type lr_ps = {\n"
		"\t.name = \"latency-random\",\n\t.module = THIS_MODULE,\n};\n",
		name, sizeof(name)), 0);
	assert_string_equal(name, "latency-random");
	assert_int_equal(sp_selector_src_name(
		"#define MY_NAME_X \"wrong\"\n#define MY_NAME \"mine\"\n"
		"static struct path_selector_type ps={.module=THIS_MODULE,"
		".name=MY_NAME};", name, sizeof(name)), 0);
	assert_string_equal(name, "mine");
	/* a pointer or prototype before the definition is skipped */
	assert_int_equal(sp_selector_src_name(
		"struct path_selector_type *p;\n"
		"int f(struct path_selector_type *t);\n"
		"static struct path_selector_type real = { .name = \"r2\" };",
		name, sizeof(name)), 0);
	assert_string_equal(name, "r2");
}

static void no_or_bad_name(void **state)
{
	char name[SP_SEL_NAME_MAX];

	(void)state;
	assert_int_equal(sp_selector_src_name("int main(void) { return 0; }",
					      name, sizeof(name)), -ENOENT);
	assert_int_equal(sp_selector_src_name(
		"static struct path_selector_type p = { .module = 0 };",
		name, sizeof(name)), -ENOENT);
	assert_int_equal(sp_selector_src_name(
		"static struct path_selector_type p = { .name = NOPE };",
		name, sizeof(name)), -ENOENT);
	assert_int_equal(sp_selector_src_name(
		"static struct path_selector_type p = { .name = \"a b;rm\" };",
		name, sizeof(name)), -EINVAL);
	assert_int_equal(sp_selector_src_name(
		"static struct path_selector_type p = { .name = "
		"\"abcdefghijklmnopqrstuvwxyz0123456789\" };",
		name, sizeof(name)), -EINVAL);
}

/* A module image: strings separated by NULs as in .strtab/.modinfo. */
static const char ko[] = "\x7f" "ELF\0junk\0dm_register_path_selector\0"
	"latency-random\0version=1\0name=dm_ps_latency_random\0vermagic=6.1\0";

static void module_image_checks(void **state)
{
	char mod[SP_SEL_NAME_MAX];

	(void)state;
	assert_true(sp_selector_ko_registers(ko, sizeof(ko), "latency-random"));
	/* a prefix of a string is not the string */
	assert_false(sp_selector_ko_registers(ko, sizeof(ko), "latency"));
	assert_false(sp_selector_ko_registers(ko, sizeof(ko), "random"));
	assert_false(sp_selector_ko_registers("\0latency-random\0", 16,
					      "latency-random"));
	assert_int_equal(sp_selector_ko_modname(ko, sizeof(ko), mod,
						sizeof(mod)), 0);
	assert_string_equal(mod, "dm_ps_latency_random");
	assert_int_equal(sp_selector_ko_modname("\0x\0", 3, mod, sizeof(mod)),
			 -ENOENT);
	assert_int_equal(sp_selector_ko_modname("\0name=a b\0", 10, mod,
						sizeof(mod)), -ENOENT);
}

/* The build's srcversion, what /sys/module/<mod>/srcversion shows. */
static void module_srcversion(void **state)
{
	static const char with[] = "\0name=dm_x\0srcversion=1DFCA07972794B38A7A81A6\0";
	char sv[32];

	(void)state;
	assert_int_equal(sp_selector_ko_srcversion(with, sizeof(with), sv,
						   sizeof(sv)), 0);
	assert_string_equal(sv, "1DFCA07972794B38A7A81A6");
	assert_int_equal(sp_selector_ko_srcversion(ko, sizeof(ko), sv,
						   sizeof(sv)), -ENOENT);
	/* only letters and digits: it is compared with a /sys line */
	assert_int_equal(sp_selector_ko_srcversion("\0srcversion=a/b\0", 17,
						   sv, sizeof(sv)), -ENOENT);
	/* too long for the buffer */
	assert_int_equal(sp_selector_ko_srcversion(with, sizeof(with), sv, 8),
			 -ENOENT);
}

static void compiler_first_error(void **state)
{
	char line[256];

	(void)state;
	sp_selector_first_error(
		"/tmp/sp-x/mine.c: In function 'f':\n"
		"/tmp/sp-x/mine.c:2:42: error: expected ';' before '}' token\n"
		"/tmp/sp-x/mine.c:3:1: error: second\n"
		"make[2]: *** [x] Error 1\n",
		"/tmp/sp-x/mine.c", "sel/mine.c", line, sizeof(line));
	assert_string_equal(line, "sel/mine.c:2:42: error: expected ';' before "
			    "'}' token");
	sp_selector_first_error("make: *** No rule to make target. Stop.\n"
				"make[1]: *** [Makefile:1] Error 2\n", NULL, NULL,
				line, sizeof(line));
	assert_string_equal(line, "make[1]: *** [Makefile:1] Error 2");
	sp_selector_first_error("all fine\n", NULL, NULL, line, sizeof(line));
	assert_string_equal(line, "");
	sp_selector_first_error(NULL, NULL, NULL, line, sizeof(line));
	assert_string_equal(line, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_from_a_literal_or_a_macro),
		cmocka_unit_test(no_or_bad_name),
		cmocka_unit_test(module_image_checks),
		cmocka_unit_test(module_srcversion),
		cmocka_unit_test(compiler_first_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
