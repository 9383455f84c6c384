#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"
#include "tgt-backend/delay_opts.h"

static struct sp_topo topo;

static void parse_ok(const char *text)
{
	char err[SP_TOPO_ERRLEN] = "";

	if (sp_topo_parse(text, "t.ini", "t", &topo, err, sizeof(err)))
		fail_msg("unexpected error: %s", err);
}

/* Every bad form must fail with "t.ini:LINE: ..." naming the value. */
static void parse_bad(const char *text, const char *needle)
{
	char err[SP_TOPO_ERRLEN] = "";

	if (!sp_topo_parse(text, "t.ini", "t", &topo, err, sizeof(err)))
		fail_msg("accepted a bad topology; wanted '%s'", needle);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	if (strncmp(err, "t.ini:", 6))
		fail_msg("error '%s' does not start with the file", err);
}

#define HEAD "[topology]\n"
#define ONE_PATH "[path]\nmultiplier = 1\n"

static void minimal_file_takes_defaults(void **state)
{
	(void)state;
	parse_ok(HEAD ONE_PATH);
	assert_int_equal(topo.npaths, 1);
	assert_int_equal(topo.unit_ns, 500000);
	assert_int_equal(topo.lab_unit_ns, 5000000);
	assert_int_equal(topo.size_bytes, 2ULL << 30);
	assert_int_equal(topo.selector.kind, SP_SEL_ST);
	assert_string_equal(topo.map_name, "slowpath-t");
	assert_string_equal(topo.paths[0].label, "p1");
	assert_int_equal(topo.paths[0].subnet, 0xC6120000u);
	assert_int_equal(topo.paths[0].subnet_len, 30);
}

static void full_file(void **state)
{
	(void)state;
	parse_ok("# a comment\n"
		 "; another\n"
		 "[topology]\n"
		 "  description = two paths; # not a comment inside words\n"
		 "unit = 1ms   # trailing comment\n"
		 "lab_unit = 10ms\n"
		 "size = 500M\n"
		 "backing_file = /var/tmp/disk.img\n"
		 "selector = hst\n"
		 "base_weight = 900\n"
		 "threshold_multiplier = 2\n"
		 "map_name = slowpath-two\n"
		 "addresses = 198.19.4.0/24\n"
		 "path_prefix = 29\n"
		 "mechanism = netem\n"
		 "jitter = 10%\n"
		 "distribution = normal\n"
		 "\n"
		 "[path fast]\n"
		 "multiplier = 1.5\n"
		 "[ path slow ]\r\n"
		 "read_delay = 3ms\n"
		 "write_delay = 3ms\n"
		 "mechanism = both\n"
		 "jitter = 200us\n"
		 "distribution = pareto\n"
		 "subnet = 198.19.4.64/29\n");
	assert_string_equal(topo.description, "two paths;");
	assert_int_equal(topo.unit_ns, 1000000);
	assert_int_equal(topo.size_bytes, 500ULL << 20);
	assert_string_equal(topo.backing_file, "/var/tmp/disk.img");
	assert_int_equal(topo.selector.kind, SP_SEL_HST);
	assert_int_equal(topo.selector.base_weight, 900);
	assert_int_equal(topo.selector.threshold_multiplier, 2);
	assert_int_equal(topo.plan_len, 24);
	assert_int_equal(topo.npaths, 2);
	assert_string_equal(topo.paths[1].label, "slow");
	assert_int_equal(topo.paths[0].mech, SP_MECH_NETEM);	/* inherited */
	assert_int_equal(topo.paths[0].dist, SP_DIST_NORMAL);
	assert_int_equal(topo.paths[1].mech, SP_MECH_BOTH);
	assert_int_equal(topo.paths[1].dist, SP_DIST_PARETO);
	assert_int_equal(topo.paths[0].subnet, 0xC6130400u);
	assert_int_equal(topo.paths[0].subnet_len, 29);
	assert_int_equal(topo.paths[1].subnet, 0xC6130440u);
}

static void resolution_applies_unit_and_mechanism(void **state)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	struct delay_opts d;
	char err[SP_TOPO_ERRLEN], opts[128];

	(void)state;
	parse_ok(HEAD "jitter = 10%\n"
		 "[path]\nmultiplier = 4\n"
		 "[path]\nmultiplier = 2\nmechanism = netem\n"
		 "[path]\nread_delay = 2ms\nwrite_delay = 4ms\n"
		 "mechanism = both\njitter = 0\n");
	assert_int_equal(sp_topo_resolve(&topo, 0, r, err, sizeof(err)), 0);
	assert_int_equal(r[0].read_delay_ns, 2000000);	/* 4 x 500us */
	assert_int_equal(r[0].backend_write_ns, 2000000);
	assert_int_equal(r[0].jitter_ns, 200000);
	assert_int_equal(r[0].netem_delay_ns, 0);
	assert_int_equal(r[1].netem_delay_ns, 1000000);
	assert_int_equal(r[1].backend_read_ns, 0);
	assert_int_equal(r[1].netem_jitter_ns, 100000);
	/* both: half of the shared 2ms on the wire, the rest in the store */
	assert_int_equal(r[2].netem_delay_ns, 1000000);
	assert_int_equal(r[2].backend_read_ns, 1000000);
	assert_int_equal(r[2].backend_write_ns, 3000000);
	assert_int_equal(r[2].jitter_ns, 0);
	assert_string_equal(r[1].initiator_ip, "198.18.0.5");
	assert_string_equal(r[1].target_ip, "198.18.0.6");
	/* the store's options of the path, in the store's own grammar */
	delay_opts_defaults(&d);
	d.read_delay_ns = r[0].backend_read_ns;
	d.write_delay_ns = r[0].backend_write_ns;
	d.jitter_ns = r[0].backend_jitter_ns;
	d.dist = (int)r[0].dist;
	assert_int_equal(delay_opts_format_kv(&d, opts, sizeof(opts)), 0);
	assert_string_equal(opts, "read_delay=2ms;write_delay=2ms;"
				  "jitter=200us;dist=uniform");
	/* the lab unit scales multipliers, not absolute delays */
	assert_int_equal(sp_topo_resolve(&topo, topo.lab_unit_ns, r, err,
					 sizeof(err)), 0);
	assert_int_equal(r[0].read_delay_ns, 20000000);
	assert_int_equal(r[2].read_delay_ns, 2000000);
}

/* servers = N: a path's delay becomes its service, the store's plain
 * delay 0; only the store can serve in turn. */
static void serial_paths(void **state)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	char err[SP_TOPO_ERRLEN];

	(void)state;
	parse_ok(HEAD "[path]\nmultiplier = 1\n[path]\nmultiplier = 4\n");
	assert_int_equal(topo.servers, 0);
	assert_int_equal(sp_topo_resolve(&topo, 0, r, err, sizeof(err)), 0);
	assert_int_equal(r[1].backend_read_ns, 2000000);
	assert_int_equal(r[1].backend_service_ns, 0);
	assert_int_equal(r[1].servers, 0);
	parse_ok(HEAD "servers = 1\n[path]\nmultiplier = 1\n[path]\nmultiplier = 4\n");
	assert_int_equal(topo.servers, 1);
	assert_int_equal(sp_topo_resolve(&topo, 0, r, err, sizeof(err)), 0);
	assert_int_equal(r[1].backend_service_ns, 2000000);
	assert_int_equal(r[1].backend_read_ns, 0);
	assert_int_equal(r[1].backend_write_ns, 0);
	assert_int_equal(r[1].servers, 1);
	assert_int_equal(r[1].read_delay_ns, 2000000);	/* what it is meant to be */
	parse_bad(HEAD "servers = 1\n[path]\nmultiplier = 1\nmechanism = netem\n",
		  "needs mechanism backend");
	parse_bad(HEAD "servers = 1\n[path]\nread_delay = 1ms\nwrite_delay = 2ms\n",
		  "must be equal");
	parse_bad(HEAD "servers = 65\n" ONE_PATH, "servers");
	parse_bad(HEAD "servers = -1\n" ONE_PATH, "servers");
}

static void dm_map_from_topology(void **state)
{
	const unsigned int majors[] = { 8, 8 }, minors[] = { 0, 16 };
	struct sp_dm_map map;
	char line[256], err[SP_DM_ERRLEN];

	(void)state;
	parse_ok(HEAD "size = 1M\n" ONE_PATH
		 "[path]\nmultiplier = 2\nrelative_throughput = 50\n");
	assert_int_equal(sp_topo_dm_map(&topo, majors, minors, &map), 0);
	assert_int_equal(sp_dm_table_build(&map, line, sizeof(line), err,
					   sizeof(err)), 0);
	assert_string_equal(line, "0 2048 multipath 0 0 1 1 service-time 0 2 "
				  "2 8:0 1 1 8:16 1 50");
}

/* io-affinity's masks come from each path's cpus = ; a path without
 * one gets the default spread when the table is built. */
static void ioa_cpus_from_topology(void **state)
{
	const unsigned int majors[] = { 8, 8 }, minors[] = { 0, 16 };
	struct sp_dm_map map;
	char line[256], err[SP_DM_ERRLEN];

	(void)state;
	parse_ok(HEAD "size = 1M\nselector = ioa\n[path]\nmultiplier = 1\n"
		 "cpus = 0,2-3\n" ONE_PATH);
	assert_true(topo.paths[0].cpumask == 0xd);
	assert_true(topo.paths[1].cpumask == 0);
	assert_int_equal(sp_topo_dm_map(&topo, majors, minors, &map), 0);
	map.ncpus = 4;
	assert_int_equal(sp_dm_table_build(&map, line, sizeof(line), err,
					   sizeof(err)), 0);
	assert_string_equal(line, "0 2048 multipath 0 0 1 1 io-affinity 0 2 "
				  "1 8:0 d 8:16 a");
	parse_bad(HEAD ONE_PATH "cpus = 64\n", "bad cpus '64'");
	parse_bad(HEAD ONE_PATH "cpus = 0x1\n", "bad cpus '0x1'");
}

static void bad_forms(void **state)
{
	(void)state;
	parse_bad("multiplier = 1\n", "t.ini:1: 'multiplier' before any section");
	parse_bad(HEAD "bogus = 1\n" ONE_PATH, "t.ini:2: unknown key 'bogus'");
	parse_bad(HEAD ONE_PATH "colour = red\n", "t.ini:4: unknown key 'colour' in [path]");
	parse_bad(HEAD "unit = 1ms\nunit = 2ms\n" ONE_PATH, "t.ini:3: duplicate key 'unit'");
	parse_bad(HEAD "[path]\nmultiplier = lots\n", "'lots'");
	parse_bad(HEAD "[path]\nmultiplier = -1\n", "'-1'");
	parse_bad(HEAD "unit = 5 ms\n" ONE_PATH, "'5 ms'");
	parse_bad(HEAD "unit = 5\n" ONE_PATH, "bad value '5' for option 'unit'");
	parse_bad(HEAD "size = huge\n" ONE_PATH, "'huge'");
	parse_bad(HEAD "[path]\nmultiplier = 1\ndelay = 1ms\n",
		  "t.ini:4: delay 1ms given as well as a multiplier");
	parse_bad(HEAD "[path]\nread_delay = 1ms\nmultiplier = 2\n",
		  "t.ini:4: multiplier 2 given as well as an absolute delay");
	parse_bad(HEAD "[path]\ndelay = 1ms\nread_delay = 2ms\n", "read_delay 2ms");
	parse_bad(HEAD "[path]\nread_delay = 1ms\n", "t.ini:2: path 1 ('p1') sets only one");
	parse_bad(HEAD "[path]\nmechanism = netem\n", "t.ini:2: path 1 ('p1') has no delay");
	parse_bad(HEAD, "no paths");
	parse_bad(ONE_PATH, "t.ini:1: [path] before [topology]");
	parse_bad("", "no [topology] section");
	parse_bad(HEAD "mechanism = carrier-pigeon\n" ONE_PATH,
		  "t.ini:2: bad value 'carrier-pigeon' for option 'mechanism'");
	parse_bad(HEAD "selector = fastest\n" ONE_PATH, "'fastest'");
	parse_bad(HEAD "distribution = cauchy\n" ONE_PATH, "'cauchy'");
	parse_bad(HEAD "map_name = mpatha\n" ONE_PATH,
		  "map_name 'mpatha' must start with 'slowpath-'");
	parse_bad(HEAD "map_name = slowpath-\n" ONE_PATH, "'slowpath-'");
	parse_bad(HEAD "map_name = slowpath-a/b\n" ONE_PATH, "'slowpath-a/b'");
	parse_bad(HEAD "addresses = 10.0.0.0/24\n" ONE_PATH,
		  "t.ini:2: address plan '10.0.0.0/24' is outside 198.18.0.0/15");
	parse_bad(HEAD "addresses = 198.16.0.0/14\n" ONE_PATH, "outside");
	parse_bad(HEAD "addresses = 198.20.0.0/24\n" ONE_PATH, "outside");
	parse_bad(HEAD "addresses = 198.18.0.1/24\n" ONE_PATH,
		  "host bits set (did you mean 198.18.0.0/24?)");
	parse_bad(HEAD "addresses = 198.18.0\n" ONE_PATH, "bad address plan '198.18.0'");
	parse_bad(HEAD "addresses = 198.18.0.0/29\n" ONE_PATH ONE_PATH ONE_PATH,
		  "'198.18.0.0/29' is too small for 3 paths of /30");
	parse_bad(HEAD "addresses = 198.18.0.0/31\n" ONE_PATH, "smaller than one /30");
	parse_bad(HEAD ONE_PATH "[path]\nmultiplier = 1\nsubnet = 198.18.0.0/30\n",
		  "t.ini:4: path 2's subnet 198.18.0.0/30 overlaps path 1's 198.18.0.0/30");
	parse_bad(HEAD ONE_PATH "subnet = 198.18.9.0/30\n", "outside the address plan");
	parse_bad(HEAD ONE_PATH "subnet = 198.18.0.4/31\n", "must be /30 or larger");
	parse_bad(HEAD ONE_PATH "subnet = 198.18.0.5/30\n", "host bits");
	parse_bad(HEAD ONE_PATH "subnet = here\n", "bad subnet 'here'");
	parse_bad(HEAD "base_weight = 900\n" ONE_PATH,
		  "base_weight/threshold_multiplier are for selector hst, not st");
	parse_bad(HEAD "selector = hst\nbase_weight = 1024\n" ONE_PATH, "'1024'");
	parse_bad(HEAD "selector = ql\n" ONE_PATH "relative_throughput = 5\n",
		  "relative_throughput is for selector st, not ql");
	parse_bad(HEAD ONE_PATH "relative_throughput = 101\n", "'101'");
	parse_bad(HEAD "[path]\nread_delay = 1ms\nwrite_delay = 2ms\nmechanism = netem\n",
		  "t.ini:2: path 1: netem delays every packet alike");
	parse_bad(HEAD "jitter = 120%\n" ONE_PATH, "bad jitter '120%'");
	parse_bad(HEAD "jitter = 5%\ndistribution = paretonormal\n" ONE_PATH,
		  "t.ini:4: path 1: distribution paretonormal is netem's only");
	parse_ok(HEAD "jitter = 5%\ndistribution = paretonormal\nmechanism = netem\n" ONE_PATH);
	parse_bad(HEAD ONE_PATH "jitter = wobbly\n", "t.ini:4: bad jitter 'wobbly'");
	parse_bad(HEAD "this line is garbage\n" ONE_PATH,
		  "t.ini:2: garbage 'this line is garbage'");
	parse_bad(HEAD "= 5\n" ONE_PATH, "'= 5' has no key");
	parse_bad(HEAD "unit =\n" ONE_PATH, "key 'unit' has no value");
	parse_bad(HEAD "[disk]\n", "t.ini:2: unknown section [disk]");
	parse_bad(HEAD "[path\n", "bad section header '[path'");
	parse_bad(HEAD HEAD ONE_PATH, "t.ini:2: second [topology] section");
	parse_bad(ONE_PATH HEAD, "t.ini:1");
	parse_bad(HEAD "[path]\n[path]\nmultiplier = 1\n", "t.ini:2: path 1 ('p1') has no delay");
	parse_bad(HEAD "[topology x]\n", "takes no label");
	parse_bad(HEAD "[path a]\nmultiplier = 1\n[path a]\nmultiplier = 1\n",
		  "t.ini:4: duplicate path label 'a'");
	parse_bad(HEAD "[path a.b]\n", "bad path label 'a.b'");
	parse_bad(HEAD "backing_file = disk.img\n" ONE_PATH, "must be an absolute path");
}

static void path_count_limit(void **state)
{
	char text[4096];
	size_t used, i;

	(void)state;
	used = (size_t)snprintf(text, sizeof(text), HEAD);
	for (i = 0; i < SP_TOPO_MAX_PATHS; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, ONE_PATH);
	parse_ok(text);
	assert_int_equal(topo.npaths, SP_TOPO_MAX_PATHS);
	assert_int_equal(topo.paths[15].subnet, 0xC6120000u + 60);
	snprintf(text + used, sizeof(text) - used, ONE_PATH);
	parse_bad(text, "t.ini:34: too many paths: at most 16");
}

static void overlap_helper(void **state)
{
	(void)state;
	assert_true(sp_topo_cidr_overlap(0xC6120000u, 24, 0xC6120004u, 30));
	assert_false(sp_topo_cidr_overlap(0xC6120000u, 30, 0xC6120004u, 30));
	assert_true(sp_topo_cidr_overlap(0xC6120000u, 15, 0xC613FF00u, 24));
}

/* The shipped files must stay valid and match the reference seed. */
static void shipped_topologies(void **state)
{
	static const double u10[] = { 1, 1, 1, 4, 8, 8, 16, 16, 1, 1 };
	char err[SP_TOPO_ERRLEN] = "", path[512];
	const char *src = getenv("SRCDIR");
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/topologies/u10.ini", src ? src : ".");
	if (sp_topo_load(path, &topo, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(topo.npaths, 10);
	for (i = 0; i < 10; i++)
		assert_true(topo.paths[i].multiplier == u10[i]);
	snprintf(path, sizeof(path), "%s/topologies/skew4.ini", src ? src : ".");
	if (sp_topo_load(path, &topo, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(topo.npaths, 4);
	assert_true(topo.paths[3].multiplier == 4);
	assert_string_equal(topo.name, "skew4");
	snprintf(path, sizeof(path), "%s/topologies/equal3.ini", src ? src : ".");
	if (sp_topo_load(path, &topo, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(topo.npaths, 3);
	assert_int_equal(topo.unit_ns, 500000);
	assert_int_equal(topo.lab_unit_ns, 5000000);
}

/* Every .ini shipped in topologies/ parses and resolves. */
static void every_shipped_file_is_valid(void **state)
{
	struct sp_topo_resolved_path r[SP_TOPO_MAX_PATHS];
	char err[SP_TOPO_ERRLEN] = "", path[1024], dir[512];
	const char *src = getenv("SRCDIR");
	struct dirent *d;
	DIR *dp;
	int n = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/topologies", src ? src : ".");
	dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);

		if (len < 5 || strcmp(d->d_name + len - 4, ".ini"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (sp_topo_load(path, &topo, err, sizeof(err)) ||
		    sp_topo_resolve(&topo, 0, r, err, sizeof(err)) ||
		    sp_topo_resolve(&topo, topo.lab_unit_ns, r, err, sizeof(err)))
			fail_msg("%s", err);
		n++;
	}
	closedir(dp);
	assert_true(n >= 3);
}

static void missing_name_is_enoent(void **state)
{
	char err[SP_TOPO_ERRLEN] = "";

	(void)state;
	setenv("SLOWPATH_TOPODIR", "/nonexistent-dir", 1);
	assert_int_equal(sp_topo_load("nosuch", &topo, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no topology 'nosuch'"));
	unsetenv("SLOWPATH_TOPODIR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minimal_file_takes_defaults),
		cmocka_unit_test(full_file),
		cmocka_unit_test(resolution_applies_unit_and_mechanism),
		cmocka_unit_test(serial_paths),
		cmocka_unit_test(dm_map_from_topology),
		cmocka_unit_test(ioa_cpus_from_topology),
		cmocka_unit_test(bad_forms),
		cmocka_unit_test(path_count_limit),
		cmocka_unit_test(overlap_helper),
		cmocka_unit_test(shipped_topologies),
		cmocka_unit_test(every_shipped_file_is_valid),
		cmocka_unit_test(missing_name_is_enoent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
