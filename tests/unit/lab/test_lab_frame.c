/* The running lab's frames (lab/lab_frame.c): what the host and the
 * guest agent send each other, round trips, and the hostile frames a
 * broken or malicious peer could send: oversize lengths, truncation,
 * bad magic and types, malformed requests, paths that climb out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void feed_frame(struct sp_lab_dec *d, int type, const void *p, size_t n)
{
	unsigned char hdr[SP_LAB_FRAME_HDR];

	assert_int_equal(sp_lab_frame_header(type, n, hdr), 0);
	assert_int_equal(sp_lab_dec_feed(d, hdr, sizeof(hdr)), 0);
	assert_int_equal(sp_lab_dec_feed(d, p, n), 0);
}

static void test_frames_round_trip_byte_by_byte(void **state)
{
	struct sp_lab_dec d;
	unsigned char wire[64], hdr[SP_LAB_FRAME_HDR];
	const unsigned char *p;
	size_t n, i, len = 0;
	int type, got = 0;

	(void)state;
	assert_int_equal(sp_lab_frame_header(SP_LAB_F_OUT, 5, hdr), 0);
	memcpy(wire, hdr, sizeof(hdr));
	memcpy(wire + 8, "hello", 5);
	assert_int_equal(sp_lab_frame_header(SP_LAB_F_EXIT, 4, hdr), 0);
	memcpy(wire + 13, hdr, sizeof(hdr));
	sp_lab_exit_encode(42, wire + 21);
	len = 25;
	sp_lab_dec_init(&d);
	/* one byte at a time: a frame never comes out before it is whole */
	for (i = 0; i < len; i++) {
		assert_int_equal(sp_lab_dec_feed(&d, wire + i, 1), 0);
		while (sp_lab_dec_next(&d, &type, &p, &n) == 1) {
			if (got == 0) {
				assert_int_equal(i, 12);
				assert_int_equal(type, SP_LAB_F_OUT);
				assert_memory_equal(p, "hello", 5);
			} else {
				int code;

				assert_int_equal(i, 24);
				assert_int_equal(type, SP_LAB_F_EXIT);
				assert_int_equal(sp_lab_exit_decode(p, n, &code), 0);
				assert_int_equal(code, 42);
			}
			got++;
		}
	}
	assert_int_equal(got, 2);
	assert_int_equal(sp_lab_dec_pending(&d), 0);
	sp_lab_dec_free(&d);
}

static void test_oversize_length_refused(void **state)
{
	struct sp_lab_dec d;
	unsigned char hdr[SP_LAB_FRAME_HDR] = { 'S', 'P', SP_LAB_F_OUT, 0,
						0xff, 0xff, 0xff, 0xff };
	const unsigned char *p;
	size_t n;
	int type;

	(void)state;
	assert_int_equal(sp_lab_frame_header(SP_LAB_F_OUT, SP_LAB_FRAME_MAX + 1, hdr),
			 -EMSGSIZE);
	hdr[4] = hdr[5] = hdr[6] = hdr[7] = 0xff;
	sp_lab_dec_init(&d);
	assert_int_equal(sp_lab_dec_feed(&d, hdr, sizeof(hdr)), 0);
	/* refused from the header alone, before 4 GiB are awaited */
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), -EMSGSIZE);
	sp_lab_dec_free(&d);
}

static void test_bad_magic_type_reserved(void **state)
{
	static const unsigned char bad[][SP_LAB_FRAME_HDR] = {
		{ 'X', 'P', 'O', 0, 0, 0, 0, 0 },
		{ 'S', 'Q', 'O', 0, 0, 0, 0, 0 },
		{ 'S', 'P', 'Q', 0, 0, 0, 0, 0 },	/* no such type */
		{ 'S', 'P', 'O', 1, 0, 0, 0, 0 },	/* reserved byte */
	};
	const unsigned char *p;
	struct sp_lab_dec d;
	unsigned char hdr[SP_LAB_FRAME_HDR];
	size_t i, n;
	int type;

	(void)state;
	assert_int_equal(sp_lab_frame_header('Q', 0, hdr), -EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sp_lab_dec_init(&d);
		assert_int_equal(sp_lab_dec_feed(&d, bad[i], sizeof(bad[i])), 0);
		assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), -EBADMSG);
		sp_lab_dec_free(&d);
	}
	/* a wrong first byte is known wrong at once */
	sp_lab_dec_init(&d);
	assert_int_equal(sp_lab_dec_feed(&d, "Z", 1), 0);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), -EBADMSG);
	sp_lab_dec_free(&d);
}

static void test_truncated_frame_stays_pending(void **state)
{
	struct sp_lab_dec d;
	const unsigned char *p;
	size_t n;
	int type;

	(void)state;
	sp_lab_dec_init(&d);
	feed_frame(&d, SP_LAB_F_ERR, "abcdef", 6);
	d.len -= 2;		/* the stream ended two bytes short */
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 0);
	assert_int_equal(sp_lab_dec_pending(&d), SP_LAB_FRAME_HDR + 4);
	sp_lab_dec_free(&d);
}

/* GONE (uml lab): empty only; a payload, even one that looks like a
 * frame of its own, is refused whole, and a GONE mid-stream after a
 * truncated one is never seen as a frame boundary. */
static void test_gone_frames(void **state)
{
	static const unsigned char inner[] = { 'S', 'P', 'H', 0, 0, 0, 0, 0 };
	unsigned char big[SP_LAB_FRAME_HDR + 3];
	const unsigned char *p;
	struct sp_lab_dec d;
	size_t n;
	int type;

	(void)state;
	assert_int_equal(sp_lab_frame_gone(SP_LAB_F_GONE, 0), 1);
	assert_int_equal(sp_lab_frame_gone(SP_LAB_F_GONE, 1), -EBADMSG);
	assert_int_equal(sp_lab_frame_gone(SP_LAB_F_GONE, SP_LAB_FRAME_MAX), -EBADMSG);
	assert_int_equal(sp_lab_frame_gone(SP_LAB_F_EXIT, 0), 0);
	assert_int_equal(sp_lab_frame_gone(0, 0), 0);
	assert_int_equal(sp_lab_frame_gone(-1, 5), 0);
	assert_true(sp_lab_frame_type_ok(SP_LAB_F_GONE));
	sp_lab_dec_init(&d);
	feed_frame(&d, SP_LAB_F_GONE, inner, sizeof(inner));
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 1);
	assert_int_equal(type, SP_LAB_F_GONE);
	assert_int_equal(n, sizeof(inner));
	assert_int_equal(sp_lab_frame_gone(type, n), -EBADMSG);
	feed_frame(&d, SP_LAB_F_GONE, "", 0);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 1);
	assert_int_equal(sp_lab_frame_gone(type, n), 1);
	sp_lab_dec_free(&d);
	/* a GONE whose length promises 3 bytes that never come: pending,
	 * not a frame, whatever follows in fewer bytes */
	assert_int_equal(sp_lab_frame_header(SP_LAB_F_GONE, 3, big), 0);
	sp_lab_dec_init(&d);
	assert_int_equal(sp_lab_dec_feed(&d, big, SP_LAB_FRAME_HDR), 0);
	assert_int_equal(sp_lab_dec_feed(&d, "SP", 2), 0);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 0);
	assert_int_equal(sp_lab_dec_pending(&d), SP_LAB_FRAME_HDR + 2);
	sp_lab_dec_free(&d);
	/* an oversize GONE is refused from its header */
	big[4] = 0x7f;
	sp_lab_dec_init(&d);
	assert_int_equal(sp_lab_dec_feed(&d, big, SP_LAB_FRAME_HDR), 0);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), -EMSGSIZE);
	sp_lab_dec_free(&d);
}

static void test_request_round_trip(void **state)
{
	char cwd[] = "/work/x";
	char *argv[] = { "/b/slowpath", "run", "--out", "it's here", NULL };
	char *env[] = { "SLOWPATH_X=1", "LANG=C", NULL };
	char *sync[] = { "/work/x/results", NULL };
	struct sp_lab_req in = { .rows = 40, .cols = 132, .cwd = cwd,
				 .argv = argv, .env = env, .sync = sync }, out;
	unsigned char *buf;
	size_t len;

	(void)state;
	assert_int_equal(sp_lab_req_encode(&in, &buf, &len), 0);
	assert_int_equal(sp_lab_req_decode(buf, len, &out), 0);
	assert_int_equal(out.rows, 40);
	assert_int_equal(out.cols, 132);
	assert_string_equal(out.cwd, "/work/x");
	assert_string_equal(out.argv[3], "it's here");
	assert_null(out.argv[4]);
	assert_string_equal(out.env[1], "LANG=C");
	assert_null(out.env[2]);
	assert_string_equal(out.sync[0], "/work/x/results");
	assert_null(out.sync[1]);
	sp_lab_req_free(&out);
	/* a truncation is refused unless it ends between items, and then
	 * it is a shorter request, never a misread string (the frame's
	 * length is what delimits a request on the wire) */
	for (size_t cut = 0; cut < len; cut++) {
		int ret = sp_lab_req_decode(buf, cut, &out);

		if (ret == 0) {
			assert_int_equal(buf[cut - 1], 0);
			assert_string_equal(out.cwd, "/work/x");
			assert_string_equal(out.argv[0], "/b/slowpath");
			sp_lab_req_free(&out);
		} else {
			assert_int_equal(ret, -EBADMSG);
		}
	}
	free(buf);
}

static void test_request_refusals(void **state)
{
	char cwd[] = "relative";
	char *argv[] = { "x", NULL }, *none[] = { NULL };
	struct sp_lab_req in = { .cwd = cwd, .argv = argv, .env = none,
				 .sync = none }, out;
	unsigned char *buf;
	size_t len;
	/* hand-made: rows/cols, then items */
	static const unsigned char no_argv[] = { 0, 0, 0, 0, 'c', '/', 0 };
	static const unsigned char two_cwd[] = { 0, 0, 0, 0, 'c', '/', 0,
						 'c', '/', 0, 'a', 'x', 0 };
	static const unsigned char bad_tag[] = { 0, 0, 0, 0, 'c', '/', 0,
						 'a', 'x', 0, 'z', 'y', 0 };
	static const unsigned char unterminated[] = { 0, 0, 0, 0, 'c', '/', 0,
						      'a', 'x' };
	static const unsigned char env_no_eq[] = { 0, 0, 0, 0, 'c', '/', 0,
						   'a', 'x', 0, 'e', 'A', 0 };
	static const unsigned char rel_sync[] = { 0, 0, 0, 0, 'c', '/', 0,
						  'a', 'x', 0, 's', 'r', 0 };
	static const unsigned char good[] = { 0, 0, 0, 0, 'c', '/', 0,
					      'a', 'x', 0 };

	(void)state;
	assert_int_equal(sp_lab_req_encode(&in, &buf, &len), -EINVAL);
	assert_int_equal(sp_lab_req_decode(no_argv, sizeof(no_argv), &out), -EBADMSG);
	assert_int_equal(sp_lab_req_decode(two_cwd, sizeof(two_cwd), &out), -EBADMSG);
	assert_int_equal(sp_lab_req_decode(bad_tag, sizeof(bad_tag), &out), -EBADMSG);
	assert_int_equal(sp_lab_req_decode(unterminated, sizeof(unterminated), &out),
			 -EBADMSG);
	assert_int_equal(sp_lab_req_decode(env_no_eq, sizeof(env_no_eq), &out), -EBADMSG);
	assert_int_equal(sp_lab_req_decode(rel_sync, sizeof(rel_sync), &out), -EBADMSG);
	assert_int_equal(sp_lab_req_decode(good, sizeof(good), &out), 0);
	assert_string_equal(out.argv[0], "x");
	sp_lab_req_free(&out);
}

static void test_relpath_rules(void **state)
{
	(void)state;
	assert_true(sp_lab_relpath_ok("20261130-u10/cases/randread-1.json"));
	assert_true(sp_lab_relpath_ok("a"));
	assert_false(sp_lab_relpath_ok(""));
	assert_false(sp_lab_relpath_ok("/etc/passwd"));
	assert_false(sp_lab_relpath_ok("../x"));
	assert_false(sp_lab_relpath_ok("a/../../x"));
	assert_false(sp_lab_relpath_ok("a/./x"));
	assert_false(sp_lab_relpath_ok("a//x"));
	assert_false(sp_lab_relpath_ok("a/"));
	assert_false(sp_lab_relpath_ok(".hidden"));
	assert_false(sp_lab_relpath_ok("-rf"));
	assert_false(sp_lab_relpath_ok("a b"));
	assert_false(sp_lab_relpath_ok("a\nb"));
	assert_false(sp_lab_relpath_ok("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q"));
	assert_true(sp_lab_relpath_ok("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p"));
}

static void test_file_frames(void **state)
{
	unsigned char *buf;
	unsigned char bad_mode[] = { 0, 0, 0x10, 0, 'a' };
	unsigned char nul[] = { 0, 0, 1, 0xa4, 'a', 0, 'b' };
	unsigned char climb[] = { 0, 0, 1, 0xa4, '.', '.', '/', 'x' };
	size_t len;
	unsigned int root;
	uint32_t mode;
	char *rel;

	(void)state;
	assert_int_equal(sp_lab_file_encode(1, 04755, "run/x.json", &buf, &len), 0);
	assert_int_equal(sp_lab_file_decode(buf, len, &root, &mode, &rel), 0);
	assert_int_equal(root, 1);
	assert_int_equal(mode, 0755);	/* no setuid from the guest */
	assert_string_equal(rel, "run/x.json");
	free(rel);
	free(buf);
	assert_int_equal(sp_lab_file_encode(0, 0644, "../x", &buf, &len), -EINVAL);
	assert_int_equal(sp_lab_file_decode(bad_mode, sizeof(bad_mode), &root, &mode, &rel),
			 -EBADMSG);
	assert_int_equal(sp_lab_file_decode(nul, sizeof(nul), &root, &mode, &rel),
			 -EBADMSG);
	assert_int_equal(sp_lab_file_decode(climb, sizeof(climb), &root, &mode, &rel),
			 -EBADMSG);
	assert_int_equal(sp_lab_file_decode(nul, 4, &root, &mode, &rel), -EBADMSG);
}

static void test_exit_frames(void **state)
{
	unsigned char b[4] = { 0, 0, 1, 0 };
	int code;

	(void)state;
	assert_int_equal(sp_lab_exit_decode(b, 4, &code), -EBADMSG);	/* 256 */
	assert_int_equal(sp_lab_exit_decode(b, 3, &code), -EBADMSG);
	sp_lab_exit_encode(3, b);
	assert_int_equal(sp_lab_exit_decode(b, 4, &code), 0);
	assert_int_equal(code, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_round_trip_byte_by_byte),
		cmocka_unit_test(test_oversize_length_refused),
		cmocka_unit_test(test_bad_magic_type_reserved),
		cmocka_unit_test(test_truncated_frame_stays_pending),
		cmocka_unit_test(test_gone_frames),
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test(test_request_refusals),
		cmocka_unit_test(test_relpath_rules),
		cmocka_unit_test(test_file_frames),
		cmocka_unit_test(test_exit_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
