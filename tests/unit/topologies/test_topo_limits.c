/* What a topology may not smuggle through to root's commands: names
 * that tgtadm or a plot script would read as syntax, and delays past
 * the one 60 s bound, alone or multiplied out. */
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

#include "common/units.h"
#include "topologies/topo.h"

static struct sp_topo topo;

#define HEAD "[topology]\n"
#define ONE_PATH "[path]\nmultiplier = 1\n"

static void parse_bad(const char *text, const char *name, const char *needle)
{
	char err[SP_TOPO_ERRLEN] = "";

	if (!sp_topo_parse(text, "t.ini", name, &topo, err, sizeof(err)))
		fail_msg("accepted a bad topology; wanted '%s'", needle);
	if (!strstr(err, needle) || strncmp(err, "t.ini", 5))
		fail_msg("error '%s' does not name t.ini and '%s'", err, needle);
}

/* The file name is the topology's name: written out as a file, it is
 * refused by `topo check` (sp_topo_load) naming file and value. */
static void file_name_with_tgt_syntax_is_refused(void **state)
{
	static const char *const bad[] = {
		"a,readonly=1,online=0", "x`touch PWNED`", "a b", "-x",
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl",
	};
	char dir[] = "/tmp/sp-topo-XXXXXX", path[512], err[SP_TOPO_ERRLEN];
	size_t i;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.ini", dir, bad[i]);
		assert_non_null(f = fopen(path, "w"));
		fputs(HEAD ONE_PATH, f);
		fclose(f);
		err[0] = '\0';
		assert_int_equal(sp_topo_load(path, &topo, err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, path) || !strstr(err, bad[i]))
			fail_msg("'%s' does not name %s and '%s'", err, path,
				 bad[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/ok-1.2_x+y.ini", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(HEAD ONE_PATH, f);
	fclose(f);
	assert_int_equal(sp_topo_load(path, &topo, err, sizeof(err)), 0);
	assert_string_equal(topo.name, "ok-1.2_x+y");
	unlink(path);
	rmdir(dir);
}

static void strings_reaching_commands_are_refused(void **state)
{
	(void)state;
	parse_bad(HEAD ONE_PATH, "a,readonly=1", "a,readonly=1");
	parse_bad(HEAD "backing_file = /tmp/a,b\n" ONE_PATH, "t", "/tmp/a,b");
	parse_bad(HEAD "backing_file = /tmp/a`id`\n" ONE_PATH, "t", "/tmp/a`id`");
	parse_bad(HEAD "backing_file = /tmp/a$b\n" ONE_PATH, "t", "/tmp/a$b");
	parse_bad(HEAD "map_name = slowpath-a,b\n" ONE_PATH, "t",
		  "slowpath-a,b");
	parse_bad(HEAD "[path a,b]\nmultiplier = 1\n", "t", "a,b");
}

static void delays_past_the_bound_are_refused(void **state)
{
	(void)state;
	parse_bad(HEAD "[path]\ndelay = 4611686018s\n", "t", "delay");
	parse_bad(HEAD "[path]\ndelay = 61s\n", "t", "60s");
	parse_bad(HEAD "[path]\nread_delay = 61s\nwrite_delay = 1ms\n", "t",
		  "read_delay");
	parse_bad(HEAD "[path]\nread_delay = 1ms\nwrite_delay = 61s\n", "t",
		  "write_delay");
	parse_bad(HEAD "[path]\ndelay = 1ms\njitter = 61s\n", "t", "61s");
	parse_bad(HEAD "jitter = 60001ms\n" ONE_PATH, "t", "60001ms");
	parse_bad(HEAD "unit = 61s\n" ONE_PATH, "t", "unit");
	parse_bad(HEAD "lab_unit = 61s\n" ONE_PATH, "t", "lab_unit");
}

/* Each factor within its bound, the product not: refused at resolve,
 * naming file and the path's line. */
static void multiplied_out_delay_is_bounded(void **state)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	char err[SP_TOPO_ERRLEN] = "";

	(void)state;
	assert_int_equal(sp_topo_parse(HEAD "unit = 1s\n" ONE_PATH
				       "[path]\nmultiplier = 61\n", "t.ini",
				       "t", &topo, err, sizeof(err)), 0);
	assert_int_equal(sp_topo_resolve(&topo, 0, r, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "t.ini:5:"));
	assert_non_null(strstr(err, "60s"));
	/* the same file at a smaller unit is fine */
	assert_int_equal(sp_topo_resolve(&topo, SP_NSEC_PER_SEC / 2, r, err,
					 sizeof(err)), 0);
	assert_int_equal(r[1].read_delay_ns, 30500 * SP_NSEC_PER_MSEC);

	/* netem holds a packet for delay + jitter */
	assert_int_equal(sp_topo_parse(HEAD "mechanism = netem\n"
				       "[path]\ndelay = 50s\njitter = 20s\n",
				       "t.ini", "t", &topo, err, sizeof(err)),
			 0);
	assert_int_equal(sp_topo_resolve(&topo, 0, r, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "t.ini:3:"));
	/* the store clamps every draw itself */
	topo.paths[0].mech = SP_MECH_BACKEND;
	assert_int_equal(sp_topo_resolve(&topo, 0, r, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_name_with_tgt_syntax_is_refused),
		cmocka_unit_test(strings_reaching_commands_are_refused),
		cmocka_unit_test(delays_past_the_bound_are_refused),
		cmocka_unit_test(multiplied_out_delay_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
