/* The initiator keys of a topology: queue_if_no_path, no_path_retry and
 * the iSCSI timeouts, as the file says them, what they mean for the map
 * and how they go through the journal's text and back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topologies/topo.h"

static struct sp_topo topo;

#define HEAD "[topology]\n"
#define ONE_PATH "[path]\nmultiplier = 1\n"

static int parse(const char *keys, char *err)
{
	char text[1024];

	snprintf(text, sizeof(text), HEAD "%s" ONE_PATH, keys);
	err[0] = '\0';
	return sp_topo_parse(text, "t.ini", "t", &topo, err, SP_TOPO_ERRLEN);
}

static void absent_keys_leave_the_defaults(void **state)
{
	char err[SP_TOPO_ERRLEN], txt[256];

	(void)state;
	assert_int_equal(parse("", err), 0);
	assert_false(topo.init.has_queue_if_no_path);
	assert_int_equal(topo.init.no_path_retry, SP_NPR_UNSET);
	assert_int_equal(topo.init.replacement_timeout, -1);
	assert_int_equal(topo.init.noop_out_interval, -1);
	assert_int_equal(topo.init.noop_out_timeout, -1);
	assert_false(sp_initiator_queues(&topo.init));
	assert_int_equal(sp_initiator_queue_timeout_s(&topo.init), 0);
	assert_int_equal(sp_initiator_format(&topo.init, txt, sizeof(txt)), 0);
	assert_string_equal(txt, "");
}

static void keys_parse_and_mean_what_they_say(void **state)
{
	char err[SP_TOPO_ERRLEN];

	(void)state;
	assert_int_equal(parse("queue_if_no_path = yes\nreplacement_timeout = 5\n"
			       "noop_out_interval = 2\nnoop_out_timeout = 3\n",
			       err), 0);
	assert_true(sp_initiator_queues(&topo.init));
	assert_int_equal(sp_initiator_queue_timeout_s(&topo.init), 0);
	assert_int_equal(topo.init.replacement_timeout, 5);
	assert_int_equal(topo.init.noop_out_interval, 2);
	assert_int_equal(topo.init.noop_out_timeout, 3);

	assert_int_equal(parse("no_path_retry = queue\n", err), 0);
	assert_true(sp_initiator_queues(&topo.init));
	assert_int_equal(sp_initiator_queue_timeout_s(&topo.init), 0);
	assert_int_equal(parse("no_path_retry = fail\n", err), 0);
	assert_false(sp_initiator_queues(&topo.init));
	assert_int_equal(parse("no_path_retry = 0\n", err), 0);
	assert_false(sp_initiator_queues(&topo.init));
	/* N checker intervals of 5 s, then fail */
	assert_int_equal(parse("no_path_retry = 12\n", err), 0);
	assert_true(sp_initiator_queues(&topo.init));
	assert_int_equal(sp_initiator_queue_timeout_s(&topo.init), 60);
	/* agreeing keys are fine */
	assert_int_equal(parse("queue_if_no_path = no\nno_path_retry = fail\n",
			       err), 0);
	assert_int_equal(parse("queue_if_no_path = yes\nno_path_retry = 3\n",
			       err), 0);
}

/* queue_mode = bio makes the map bio-based; it goes through the
 * journal's text and back, rq (the default) prints nothing; nvme-tcp
 * has no dm-multipath to set it on. */
/* over nvme-tcp the keys become nvme connect's: the keep-alive timeout
 * from the NOP-Out pair, the controller loss timeout from the queueing */
static void nvme_connect_options(void **state)
{
	char err[SP_TOPO_ERRLEN], o[SP_NVME_OPTS][SP_NVME_OPT_LEN];
	size_t n;

	(void)state;
	assert_int_equal(parse("", err), 0);
	sp_initiator_nvme_opts(&topo.init, o, &n);
	assert_int_equal(n, 0);
	assert_int_equal(parse("noop_out_interval = 2\nnoop_out_timeout = 3\n"
			       "no_path_retry = 4\n", err), 0);
	sp_initiator_nvme_opts(&topo.init, o, &n);
	assert_int_equal(n, 2);
	assert_string_equal(o[0], "--keep-alive-tmo=5");
	assert_string_equal(o[1], "--ctrl-loss-tmo=20");
	assert_int_equal(parse("noop_out_timeout = 1\nno_path_retry = queue\n",
			       err), 0);
	sp_initiator_nvme_opts(&topo.init, o, &n);
	assert_int_equal(n, 2);
	assert_string_equal(o[0], "--keep-alive-tmo=6");
	assert_string_equal(o[1], "--ctrl-loss-tmo=-1");
	assert_int_equal(parse("noop_out_interval = 0\nqueue_if_no_path = no\n"
			       "replacement_timeout = 5\n", err), 0);
	sp_initiator_nvme_opts(&topo.init, o, &n);
	assert_int_equal(n, 2);
	assert_string_equal(o[0], "--keep-alive-tmo=0");
	assert_string_equal(o[1], "--ctrl-loss-tmo=0");
	assert_int_equal(parse("no_path_retry = fail\n", err), 0);
	sp_initiator_nvme_opts(&topo.init, o, &n);
	assert_int_equal(n, 1);
	assert_string_equal(o[0], "--ctrl-loss-tmo=0");
}

static void queue_mode_bio(void **state)
{
	char err[SP_TOPO_ERRLEN], txt[256];
	struct sp_initiator back;

	(void)state;
	assert_int_equal(parse("queue_mode = bio\n", err), 0);
	assert_int_equal(topo.init.queue_bio, 1);
	assert_int_equal(sp_initiator_format(&topo.init, txt, sizeof(txt)), 0);
	assert_string_equal(txt, "queue_mode=bio");
	sp_initiator_init(&back);
	assert_int_equal(sp_initiator_parse_kv(&back, txt), 0);
	assert_int_equal(back.queue_bio, 1);
	assert_int_equal(sp_initiator_parse_kv(&back, "queue_mode=rq"), 0);
	assert_int_equal(back.queue_bio, 0);
	assert_int_equal(sp_initiator_parse_kv(&back, "queue_mode=mq"), -EINVAL);
	assert_int_equal(parse("queue_mode = rq\n", err), 0);
	assert_int_equal(topo.init.queue_bio, 0);
	assert_int_equal(sp_initiator_format(&topo.init, txt, sizeof(txt)), 0);
	assert_string_equal(txt, "");
	assert_int_equal(parse("queue_mode = request\n", err), -EINVAL);
	assert_non_null(strstr(err, "t.ini:2"));
	assert_int_equal(parse("queue_mode = bio\ntransport = nvme-tcp\n", err),
			 -EINVAL);
	assert_non_null(strstr(err, "queue_mode = bio"));
}

static void bad_values_are_refused_with_file_line_and_value(void **state)
{
	static const char *const bad[][2] = {
		{ "no_path_retry = forever\n", "forever" },
		{ "no_path_retry = -1\n", "-1" },
		{ "no_path_retry = 1e3\n", "1e3" },
		{ "no_path_retry = 100001\n", "100001" },
		{ "queue_if_no_path = maybe\n", "maybe" },
		{ "replacement_timeout = -5\n", "-5" },
		{ "replacement_timeout = 86401\n", "86401" },
		{ "noop_out_interval = 2s\n", "2s" },
		{ "noop_out_timeout = x\n", "x" },
		{ "replacement_timeout = 5\nreplacement_timeout = 6\n",
		  "duplicate" },
		{ "queue_if_no_path = no\nno_path_retry = queue\n",
		  "contradicts" },
		{ "queue_if_no_path = yes\nno_path_retry = 0\n", "contradicts" },
	};
	char err[SP_TOPO_ERRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!parse(bad[i][0], err))
			fail_msg("accepted '%s'", bad[i][0]);
		if (!strstr(err, bad[i][1]) || strncmp(err, "t.ini", 5))
			fail_msg("'%s' does not name t.ini and '%s'", err,
				 bad[i][1]);
	}
}

static void journal_text_round_trips(void **state)
{
	struct sp_initiator in, back;
	char txt[256], copy[256], *tok, *save;

	(void)state;
	sp_initiator_init(&in);
	in.has_queue_if_no_path = 1;
	in.queue_if_no_path = 1;
	in.no_path_retry = 4;
	in.replacement_timeout = 5;
	in.noop_out_interval = 0;
	in.noop_out_timeout = 2;
	assert_int_equal(sp_initiator_format(&in, txt, sizeof(txt)), 0);
	assert_string_equal(txt, "queue_if_no_path=yes no_path_retry=4 "
			    "replacement_timeout=5 noop_out_interval=0 "
			    "noop_out_timeout=2");
	sp_initiator_init(&back);
	snprintf(copy, sizeof(copy), "%s", txt);
	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		assert_int_equal(sp_initiator_parse_kv(&back, tok), 0);
	assert_memory_equal(&in, &back, sizeof(in));
	assert_int_equal(sp_initiator_parse_kv(&back, "bogus=1"), -EINVAL);
	assert_int_equal(sp_initiator_parse_kv(&back, "no_path_retry"),
			 -EINVAL);
	assert_int_equal(sp_initiator_parse_kv(&back, "noop_out_timeout=-1"),
			 -EINVAL);
	assert_int_equal(sp_initiator_format(&in, txt, 10), -ENOSPC);
	in.no_path_retry = SP_NPR_QUEUE;
	assert_int_equal(sp_initiator_format(&in, txt, sizeof(txt)), 0);
	assert_non_null(strstr(txt, "no_path_retry=queue"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(absent_keys_leave_the_defaults),
		cmocka_unit_test(keys_parse_and_mean_what_they_say),
		cmocka_unit_test(bad_values_are_refused_with_file_line_and_value),
		cmocka_unit_test(journal_text_round_trips),
		cmocka_unit_test(queue_mode_bio),
		cmocka_unit_test(nvme_connect_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
