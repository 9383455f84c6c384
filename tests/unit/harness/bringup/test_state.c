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

#include "harness/bringup/state.h"

static void sample(struct sp_state *st)
{
	struct sp_state_path *p;

	sp_state_init(st);
	snprintf(st->topology, sizeof(st->topology), "equal3");
	snprintf(st->topo_file, sizeof(st->topo_file), "/t/equal3.ini");
	snprintf(st->tag, sizeof(st->tag), "3fa2");
	snprintf(st->iqn, sizeof(st->iqn), "iqn.2026-11.org.slowpath:up-equal3");
	snprintf(st->map_name, sizeof(st->map_name), "slowpath-equal3");
	snprintf(st->map_uuid, sizeof(st->map_uuid), "slowpath-equal3-3fa2");
	snprintf(st->backing, sizeof(st->backing), "/run/slowpath/e.img");
	st->backing_created = 1;
	st->size_bytes = 2147483648ULL;
	sp_dm_selector_init(&st->sel, SP_SEL_HST);
	st->sel.base_weight = 900;
	st->npaths = 1;
	p = &st->paths[0];
	p->index = 1;
	snprintf(p->label, sizeof(p->label), "a");
	snprintf(p->netns, sizeof(p->netns), "slowpath-up-3fa2-1");
	snprintf(p->host_if, sizeof(p->host_if), "spu3fa2h1");
	snprintf(p->target_if, sizeof(p->target_if), "spu3fa2t1");
	snprintf(p->initiator_ip, sizeof(p->initiator_ip), "198.18.0.1");
	snprintf(p->target_ip, sizeof(p->target_ip), "198.18.0.2");
	p->prefix_len = 30;
	p->portal_port = 3260;
	p->ctl_port = 20017;
	p->mech = SP_MECH_BOTH;
	p->dist = SP_DIST_NORMAL;
	p->read_ns = 750000;
	p->write_ns = 1000000;
	p->jitter_ns = 5000;
	p->netem_ns = 250000;
	p->relative_throughput = 3;
}

static void journal_of(const struct sp_state *st, char *buf, size_t len)
{
	size_t n;

	assert_int_equal(sp_state_fmt_header(st, buf, len), 0);
	n = strlen(buf);
	assert_int_equal(sp_state_fmt_path(&st->paths[0], buf + n, len - n), 0);
}

static void header_and_path_round_trip(void **state)
{
	struct sp_state a, b;
	char buf[4096], err[SP_STATE_ERRLEN] = "";

	(void)state;
	sample(&a);
	journal_of(&a, buf, sizeof(buf));
	if (sp_state_parse(buf, &b, err, sizeof(err)))
		fail_msg("parse: %s\n%s", err, buf);
	assert_string_equal(b.topology, "equal3");
	assert_string_equal(b.topo_file, "/t/equal3.ini");
	assert_string_equal(b.map_uuid, "slowpath-equal3-3fa2");
	assert_int_equal(b.backing_created, 1);
	assert_int_equal(b.size_bytes, 2147483648ULL);
	assert_int_equal(b.sel.kind, SP_SEL_HST);
	assert_int_equal(b.sel.base_weight, 900);
	assert_int_equal(b.sel.threshold_multiplier, -1);
	assert_int_equal(b.npaths, 1);
	assert_string_equal(b.paths[0].netns, "slowpath-up-3fa2-1");
	assert_string_equal(b.paths[0].initiator_ip, "198.18.0.1");
	assert_int_equal(b.paths[0].prefix_len, 30);
	assert_int_equal(b.paths[0].ctl_port, 20017);
	assert_int_equal(b.paths[0].mech, SP_MECH_BOTH);
	assert_int_equal(b.paths[0].dist, SP_DIST_NORMAL);
	assert_int_equal(b.paths[0].read_ns, 750000);
	assert_int_equal(b.paths[0].write_ns, 1000000);
	assert_int_equal(b.paths[0].netem_ns, 250000);
	assert_int_equal(b.paths[0].relative_throughput, 3);
	assert_int_equal(b.complete, 0);
	assert_int_equal(b.paths[0].steps, 0);
}

static void later_lines_replay_steps_and_changes(void **state)
{
	struct sp_state a, b;
	char buf[4096], err[SP_STATE_ERRLEN] = "";

	(void)state;
	sample(&a);
	journal_of(&a, buf, sizeof(buf));
	strcat(buf, "begin backing\nbegin netns 1\nbegin tgtd 1\n"
		    "pid tgtd 1 4242\ndisk 1 sdc 8:32\n"
		    "delay 1 1 2 3 4 5\nselector rr -1 -1\nbegin map\n"
		    "complete\n");
	if (sp_state_parse(buf, &b, err, sizeof(err)))
		fail_msg("parse: %s", err);
	assert_true(b.steps & (1u << SP_STEP_BACKING));
	assert_true(b.steps & (1u << SP_STEP_MAP));
	assert_false(b.steps & (1u << SP_STEP_ISCSID));
	assert_true(b.paths[0].steps & (1u << SP_STEP_NETNS));
	assert_true(b.paths[0].steps & (1u << SP_STEP_TGTD));
	assert_false(b.paths[0].steps & (1u << SP_STEP_VETH));
	assert_int_equal(b.paths[0].tgtd_pid, 4242);
	assert_string_equal(b.paths[0].disk, "sdc");
	assert_int_equal(b.paths[0].minor, 32);
	assert_int_equal(b.paths[0].read_ns, 1);
	assert_int_equal(b.paths[0].netem_jitter_ns, 5);
	assert_int_equal(b.sel.kind, SP_SEL_RR);
	assert_int_equal(b.complete, 1);
}

/* A crash in the middle of a write leaves a line without its newline. */
static void torn_last_line_is_ignored(void **state)
{
	struct sp_state a, b;
	char buf[4096], err[SP_STATE_ERRLEN] = "";

	(void)state;
	sample(&a);
	journal_of(&a, buf, sizeof(buf));
	strcat(buf, "begin netns 1\nbegin ve");
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), 0);
	assert_true(b.paths[0].steps & (1u << SP_STEP_NETNS));
	assert_false(b.paths[0].steps & (1u << SP_STEP_VETH));
}

static void bad_lines_are_named(void **state)
{
	struct sp_state a, b;
	char buf[4096], err[SP_STATE_ERRLEN] = "";

	(void)state;
	assert_int_equal(sp_state_parse("hello\n", &b, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not a slowpath state file"));
	sample(&a);
	journal_of(&a, buf, sizeof(buf));
	strcat(buf, "begin frobnicate 1\n");
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 9"));
	assert_non_null(strstr(err, "frobnicate"));
	journal_of(&a, buf, sizeof(buf));
	strcat(buf, "begin tgtd 7\n");
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no path '7'"));
	assert_int_equal(sp_state_parse("slowpath-state 9\n", &b, err,
					sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "version '9'"));
}

static void blanks_cannot_be_recorded(void **state)
{
	struct sp_state a;
	char buf[4096];

	(void)state;
	sample(&a);
	snprintf(a.backing, sizeof(a.backing), "/my disk.img");
	assert_int_equal(sp_state_fmt_header(&a, buf, sizeof(buf)), -EINVAL);
	sample(&a);
	assert_int_equal(sp_state_fmt_header(&a, buf, 20), -ENOSPC);
}

static void paths_found_by_number_label_or_disk(void **state)
{
	struct sp_state a;

	(void)state;
	sample(&a);
	snprintf(a.paths[0].disk, sizeof(a.paths[0].disk), "sdb");
	assert_ptr_equal(sp_state_find_path(&a, "1"), &a.paths[0]);
	assert_ptr_equal(sp_state_find_path(&a, "a"), &a.paths[0]);
	assert_ptr_equal(sp_state_find_path(&a, "sdb"), &a.paths[0]);
	assert_null(sp_state_find_path(&a, "2"));
	assert_null(sp_state_find_path(&a, "b"));
}

static void files_create_once_append_load_remove(void **state)
{
	char dir[] = "/tmp/sp-test-state-XXXXXX";
	struct sp_state a, b;
	char buf[4096], err[SP_STATE_ERRLEN] = "";
	int fd, fd2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sample(&a);
	journal_of(&a, buf, sizeof(buf));
	assert_int_equal(sp_state_create(dir, &fd), 0);
	assert_int_equal(sp_state_create(dir, &fd2), -EEXIST);
	assert_int_equal(sp_state_append(fd, buf), 0);
	close(fd);
	assert_int_equal(sp_state_open_append(dir, &fd), 0);
	assert_int_equal(sp_state_append(fd, "complete\n"), 0);
	close(fd);
	assert_int_equal(sp_state_load(dir, &b, err, sizeof(err)), 0);
	assert_int_equal(b.complete, 1);
	assert_int_equal(sp_state_remove(dir), 0);
	assert_int_equal(sp_state_remove(dir), 0);
	assert_int_equal(sp_state_load(dir, &b, err, sizeof(err)), -ENOENT);
	rmdir(dir);
}

/* A long `delay set` history must replay to its end: the journal's
 * last lines are what `down` and `status` go by. */
static void a_journal_past_256k_replays_completely(void **state)
{
	char dir[] = "/tmp/sp-test-state-XXXXXX", path[64];
	char buf[4096], line[128], err[SP_STATE_ERRLEN] = "";
	struct sp_state a, b;
	size_t total = 0;
	int fd, i, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sample(&a);
	journal_of(&a, buf, sizeof(buf));
	assert_int_equal(sp_state_create(dir, &fd), 0);
	assert_int_equal(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
	for (i = 1; total < 300 * 1024; i++) {
		n = snprintf(line, sizeof(line), "delay 1 %d 2000 0 0 0\n", i);
		assert_int_equal(write(fd, line, (size_t)n), n);
		total += (size_t)n;
	}
	assert_int_equal(write(fd, "complete\n", 9), 9);
	close(fd);
	assert_int_equal(sp_state_load(dir, &b, err, sizeof(err)), 0);
	assert_int_equal(b.paths[0].read_ns, i - 1);
	assert_int_equal(b.complete, 1);

	/* past the reader's bound it fails; it does not replay a prefix */
	snprintf(path, sizeof(path), "%s/%s", dir, SP_STATE_FILE);
	assert_int_equal(truncate(path, (off_t)(16u << 20) + 1), 0);
	assert_int_equal(sp_state_load(dir, &b, err, sizeof(err)), -EFBIG);
	assert_int_equal(sp_state_remove(dir), 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_and_path_round_trip),
		cmocka_unit_test(later_lines_replay_steps_and_changes),
		cmocka_unit_test(torn_last_line_is_ignored),
		cmocka_unit_test(bad_lines_are_named),
		cmocka_unit_test(blanks_cannot_be_recorded),
		cmocka_unit_test(paths_found_by_number_label_or_disk),
		cmocka_unit_test(files_create_once_append_load_remove),
		cmocka_unit_test(a_journal_past_256k_replays_completely),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
