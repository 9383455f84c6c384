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

#include "common/file.h"
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
	p->cpumask = 0xa;	/* io-affinity: CPUs 1 and 3 */
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
	assert_true(b.paths[0].cpumask == 0xa);
	assert_int_equal(b.complete, 0);
	assert_int_equal(b.paths[0].steps, 0);
	/* no serial stage: the line says nothing of it, as journals did */
	assert_null(strstr(buf, "service="));
	assert_int_equal(b.paths[0].servers, 0);
	/* a serial path's service and servers come back */
	a.paths[0].servers = 2;
	a.paths[0].service_ns = 1234567;
	journal_of(&a, buf, sizeof(buf));
	if (sp_state_parse(buf, &b, err, sizeof(err)))
		fail_msg("parse: %s\n%s", err, buf);
	assert_int_equal(b.paths[0].servers, 2);
	assert_int_equal(b.paths[0].service_ns, 1234567);
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

/* up --hst 5.8: the selector line says the build (any selector's: a
 * run's HST cases use it), and reads back; a journal without it is
 * the stock build; a build the parser does not know is refused. */
static void selector_line_keeps_the_hst_build(void **state)
{
	struct sp_state a, b;
	char buf[4096], err[SP_STATE_ERRLEN] = "", line[96];

	(void)state;
	sample(&a);
	a.sel.hst_build = SP_HST_BUILD_5_8;
	assert_int_equal(sp_state_fmt_selector(&a.sel, line, sizeof(line)), 0);
	assert_string_equal(line, "selector hst 900 -1 hst=5.8\n");
	journal_of(&a, buf, sizeof(buf));
	if (sp_state_parse(buf, &b, err, sizeof(err)))
		fail_msg("parse: %s\n%s", err, buf);
	assert_int_equal(b.sel.kind, SP_SEL_HST);
	assert_int_equal(b.sel.hst_build, SP_HST_BUILD_5_8);
	assert_int_equal(b.sel.base_weight, 900);
	strcat(buf, "selector st -1 -1 hst=5.8\n");
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), 0);
	assert_int_equal(b.sel.kind, SP_SEL_ST);
	assert_int_equal(b.sel.hst_build, SP_HST_BUILD_5_8);
	strcat(buf, "selector hst -1 -1\n");
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), 0);
	assert_int_equal(b.sel.hst_build, SP_HST_BUILD_STOCK);
	/* hst-prebio the same way */
	a.sel.hst_build = SP_HST_BUILD_PREBIO;
	assert_int_equal(sp_state_fmt_selector(&a.sel, line, sizeof(line)), 0);
	assert_string_equal(line, "selector hst 900 -1 hst=prebio\n");
	strcat(buf, line);
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), 0);
	assert_int_equal(b.sel.hst_build, SP_HST_BUILD_PREBIO);
	strcat(buf, "selector hst -1 -1 hst=stock\n");
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), -EINVAL);
	buf[strlen(buf) - strlen("selector hst -1 -1 hst=stock\n")] = '\0';
	strcat(buf, "selector hst -1 -1\n");
	strcat(buf, "selector hst -1 -1 hst=5.9\n");
	assert_int_equal(sp_state_parse(buf, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "hst=5.9"));
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

/* A run's journal: pid lines with and without start times (old ones
 * stay readable), fio's run lines, a selector per case, delay changes. */
static const char *long_run_head =
	"slowpath-state 1\ntopology equal3 /t/equal3.ini\ntag 3fa2\n"
	"iqn iqn.2026-11.org.slowpath:up-equal3\n"
	"map slowpath-equal3 slowpath-equal3-3fa2\n"
	"backing /run/slowpath/e.img created 2147483648\nselector st -1 -1\n"
	"path 1 label=a netns=slowpath-up-3fa2-1 hif=spu3fa2h1 tif=spu3fa2t1 "
	"init=198.18.0.1/30 target=198.18.0.2 port=3260 ctl=20016 mech=both "
	"dist=uniform rt=1 read=500000 write=500000 jitter=0 netem=0 "
	"netem_jitter=0\n"
	"path 2 label=b netns=slowpath-up-3fa2-2 hif=spu3fa2h2 tif=spu3fa2t2 "
	"init=198.18.0.5/30 target=198.18.0.6 port=3260 ctl=20017 mech=backend "
	"dist=uniform rt=2 read=500000 write=500000 jitter=0 netem=0 "
	"netem_jitter=0\nchap slowpath-3fa2-0badf00d\nscale 64\nhst 30\n"
	"store delay\nbegin backing\nbegin iscsid\n"
	"pid iscsid 0 88 4242\nbegin netns 1\nbegin veth 1\nbegin tgtd 1\n"
	"pid tgtd 1 100 5000\nbegin netns 2\nbegin veth 2\nbegin tgtd 2\n"
	"pid tgtd 2 101\nbegin target 1\nbegin netem 1\nbegin target 2\n"
	"begin discovery 1\nbegin discovery 2\nbegin login 1\nbegin login 2\n"
	"disk 1 sda 8:0\ndisk 2 sdb 8:16\nsectors 4194304\nbegin map\n"
	"calib 1 32000000 32500000\ncalib 2 128000000 127000000\n"
	"complete\n";

static char *long_run_journal(void)
{
	size_t cap = 1u << 20, n;
	char *text = malloc(cap);
	int i;

	assert_non_null(text);
	n = (size_t)snprintf(text, cap, "%s", long_run_head);
	for (i = 0; i < 2000; i++)
		n += (size_t)snprintf(text + n, cap - n,
			"run fio %d %d\nselector %s %d -1\nrun idle\n"
			"delay 1 %d 700000 0 %d 0\n", 3000 + i, 90000 + i,
			i % 2 ? "hst" : "st", i % 2 ? 20 : -1, 600000 + i,
			i * 10);
	/* the last case's fio still running: a SIGKILLed run */
	snprintf(text + n, cap - n, "run fio 9999 123456\n");
	return text;
}

static void start_times_and_run_lines_replay(void **state)
{
	struct sp_state st;
	char err[SP_STATE_ERRLEN] = "", line[96];
	char *text = long_run_journal();

	(void)state;
	assert_int_equal(sp_state_parse(text, &st, err, sizeof(err)), 0);
	assert_int_equal(st.iscsid_pid, 88);
	assert_int_equal(st.iscsid_start, 4242);
	assert_int_equal(st.paths[0].tgtd_start, 5000);
	assert_int_equal(st.paths[1].tgtd_pid, 101);
	assert_int_equal(st.paths[1].tgtd_start, 0);	/* an old line */
	assert_int_equal(st.fio_pid, 9999);
	assert_int_equal(st.fio_start, 123456);
	assert_int_equal(st.sel.kind, SP_SEL_HST);
	assert_int_equal(st.paths[0].read_ns, 601999);
	assert_int_equal(sp_state_fmt_pid("tgtd", 2, 101, 77, line,
					  sizeof(line)), 0);
	assert_string_equal(line, "pid tgtd 2 101 77\n");
	assert_int_equal(sp_state_fmt_run(0, 0, line, sizeof(line)), 0);
	assert_string_equal(line, "run idle\n");
	assert_int_equal(sp_state_parse("slowpath-state 1\nrun fio x 1\n",
					&st, err, sizeof(err)), -EINVAL);
	free(text);
}

/* Past the limit the journal is rewritten as its picture; replaying
 * the rewrite gives the very same struct. Below it nothing changes. */
static void a_compacted_journal_replays_the_same(void **state)
{
	static struct sp_state before, after;
	char dir[] = "/tmp/sp-test-compact-XXXXXX", path[128];
	char err[SP_STATE_ERRLEN] = "";
	char *text = long_run_journal(), *back;
	size_t len;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sp_state_create(dir, &fd), 0);
	assert_int_equal(sp_state_append(fd, text), 0);
	close(fd);
	assert_true(strlen(text) > SP_STATE_COMPACT_AT);
	assert_int_equal(sp_state_load(dir, &before, err, sizeof(err)), 0);
	/* under its limit: untouched */
	assert_int_equal(sp_state_compact(dir, 1u << 22, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, SP_STATE_FILE);
	assert_int_equal(sp_file_read(path, 1u << 22, &back, &len), 0);
	assert_int_equal(len, strlen(text));
	free(back);
	assert_int_equal(sp_state_compact(dir, SP_STATE_COMPACT_AT, err,
					  sizeof(err)), 0);
	assert_int_equal(sp_file_read(path, 1u << 22, &back, &len), 0);
	assert_true(len < 4096);
	assert_non_null(strstr(back, "run fio 9999 123456\n"));
	assert_non_null(strstr(back, "pid tgtd 2 101\n"));
	free(back);
	assert_int_equal(sp_state_load(dir, &after, err, sizeof(err)), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	/* what later commands rely on survives: CHAP, scale, calibration */
	assert_string_equal(after.chap_user, "slowpath-3fa2-0badf00d");
	assert_int_equal(after.scale, 64);
	assert_int_equal(after.hst_shift, 30);
	assert_int_equal(after.paths[1].calib_measured_ns, 127000000);
	/* and it appends on as before */
	assert_int_equal(sp_state_open_append(dir, &fd), 0);
	assert_int_equal(sp_state_append(fd, "run idle\n"), 0);
	close(fd);
	assert_int_equal(sp_state_load(dir, &after, err, sizeof(err)), 0);
	assert_int_equal(after.fio_pid, 0);
	sp_state_remove(dir);
	rmdir(dir);
	free(text);
}

/* reproduce brings a topology up again on the path this names: the
 * worst one beyond the bound, whichever its sign, and never a path that
 * was not calibrated */
static void the_worst_calibration_beyond_the_bound_is_named(void **state)
{
	static struct sp_state st;
	const int64_t measured[] = { 1020, 900, 1104, 5000 };
	size_t i;

	(void)state;
	sample(&st);
	st.npaths = 4;
	for (i = 0; i < st.npaths; i++) {
		st.paths[i].has_calib = i < 3;
		st.paths[i].calib_target_ns = 1000;
		st.paths[i].calib_measured_ns = measured[i];
	}
	assert_int_equal(sp_state_calib_worst(&st, 0.03), 2);
	assert_int_equal(sp_state_calib_worst(&st, 0.105), -1);
	st.paths[2].calib_measured_ns = 1000;
	assert_int_equal(sp_state_calib_worst(&st, 0.03), 1);
	st.paths[1].calib_measured_ns = 1029;
	assert_int_equal(sp_state_calib_worst(&st, 0.03), -1);
	st.paths[0].calib_target_ns = 0;	/* no target: no residual */
	st.paths[0].calib_measured_ns = 9000;
	assert_int_equal(sp_state_calib_worst(&st, 0.03), -1);
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
		cmocka_unit_test(start_times_and_run_lines_replay),
		cmocka_unit_test(a_compacted_journal_replays_the_same),
		cmocka_unit_test(the_worst_calibration_beyond_the_bound_is_named),
		cmocka_unit_test(selector_line_keeps_the_hst_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
