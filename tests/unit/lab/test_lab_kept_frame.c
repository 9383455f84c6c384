/* The frames for results the lab kept (lab/lab_frame.c): KEPT_ASK from
 * the host, KEPT from the guest, the host's folder names for kept
 * roots, and putting a frame back for the serve loop. Both ends are
 * hostile to each other here: short, long, unterminated and relative
 * payloads are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_frame.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void test_ask_round_trip_and_refusals(void **state)
{
	unsigned char pl[8];
	uint32_t id;
	int op;

	(void)state;
	assert_int_equal(sp_lab_kept_ask_encode(SP_LAB_KEPT_LIST, 0, pl), 1);
	assert_int_equal(sp_lab_kept_ask_decode(pl, 1, &op, &id), 0);
	assert_int_equal(op, SP_LAB_KEPT_LIST);
	assert_int_equal(sp_lab_kept_ask_encode(SP_LAB_KEPT_DROP, 0x01020304, pl), 5);
	assert_int_equal(sp_lab_kept_ask_decode(pl, 5, &op, &id), 0);
	assert_int_equal(op, SP_LAB_KEPT_DROP);
	assert_int_equal(id, 0x01020304);
	assert_int_equal(sp_lab_kept_ask_encode(SP_LAB_KEPT_DROP, 0, pl), -EINVAL);
	assert_int_equal(sp_lab_kept_ask_encode('Z', 1, pl), -EINVAL);
	/* hostile: empty, unknown op, LIST with bytes after, DROP short or
	 * long, DROP of id 0 */
	assert_int_equal(sp_lab_kept_ask_decode(pl, 0, &op, &id), -EBADMSG);
	pl[0] = 'Z';
	assert_int_equal(sp_lab_kept_ask_decode(pl, 1, &op, &id), -EBADMSG);
	pl[0] = SP_LAB_KEPT_LIST;
	assert_int_equal(sp_lab_kept_ask_decode(pl, 2, &op, &id), -EBADMSG);
	pl[0] = SP_LAB_KEPT_DROP;
	assert_int_equal(sp_lab_kept_ask_decode(pl, 4, &op, &id), -EBADMSG);
	assert_int_equal(sp_lab_kept_ask_decode(pl, 6, &op, &id), -EBADMSG);
	memset(pl + 1, 0, 4);
	assert_int_equal(sp_lab_kept_ask_decode(pl, 5, &op, &id), -EBADMSG);
	assert_true(sp_lab_frame_type_ok(SP_LAB_F_KEPT_ASK));
	assert_true(sp_lab_frame_type_ok(SP_LAB_F_KEPT));
}

static void test_kept_round_trip(void **state)
{
	struct sp_lab_kept in = { .id = 7, .started = 1796300000LL,
				  .roots = { "/work/x/results", "/tmp/out", NULL } };
	struct sp_lab_kept out;
	unsigned char *enc;
	size_t len;

	(void)state;
	assert_int_equal(sp_lab_kept_encode(&in, &enc, &len), 0);
	assert_int_equal(sp_lab_kept_decode(enc, len, &out), 0);
	assert_int_equal(out.id, 7);
	assert_int_equal(out.started, 1796300000LL);
	assert_string_equal(out.roots[0], "/work/x/results");
	assert_string_equal(out.roots[1], "/tmp/out");
	assert_null(out.roots[2]);
	sp_lab_kept_free(&out);
	free(enc);
}

static void test_kept_encode_refusals(void **state)
{
	struct sp_lab_kept k = { .id = 1, .roots = { "/a", "/b", "/c", "/d", "/e" } };
	unsigned char *enc;
	size_t len;

	(void)state;
	assert_int_equal(sp_lab_kept_encode(&k, &enc, &len), -EINVAL);	/* five */
	k.roots[4] = NULL;
	assert_int_equal(sp_lab_kept_encode(&k, &enc, &len), 0);
	free(enc);
	k.roots[1] = "relative";
	assert_int_equal(sp_lab_kept_encode(&k, &enc, &len), -EINVAL);
	k.roots[1] = "/";
	assert_int_equal(sp_lab_kept_encode(&k, &enc, &len), -EINVAL);
	k.roots[1] = "/b";
	k.id = 0;
	assert_int_equal(sp_lab_kept_encode(&k, &enc, &len), -EINVAL);
	k.id = 1;
	k.roots[0] = NULL;
	assert_int_equal(sp_lab_kept_encode(&k, &enc, &len), -EINVAL);
}

/* A payload of the header and the bytes s (n of them) after it. */
static size_t hostile(unsigned char *buf, uint32_t id, const char *s, size_t n)
{
	memset(buf, 0, 12);
	buf[3] = (unsigned char)id;
	memcpy(buf + 12, s, n);
	return 12 + n;
}

static void test_kept_decode_hostile(void **state)
{
	static unsigned char buf[PATH_MAX + 64];
	static char longpath[PATH_MAX + 8];
	struct sp_lab_kept k;
	size_t n;

	(void)state;
	assert_int_equal(sp_lab_kept_decode(buf, 0, &k), -EBADMSG);
	n = hostile(buf, 1, "", 0);			/* no root */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), -EBADMSG);
	n = hostile(buf, 1, "/a", 2);			/* unterminated */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), -EBADMSG);
	n = hostile(buf, 0, "/a", 3);			/* id 0 */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), -EBADMSG);
	n = hostile(buf, 1, "a/b", 4);			/* relative */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), -EBADMSG);
	n = hostile(buf, 1, "/a\0\0", 4);		/* an empty one */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), -EBADMSG);
	n = hostile(buf, 1, "/a\0/b\0/c\0/d\0/e", 15);	/* five */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), -EBADMSG);
	n = hostile(buf, 1, "/a\0/b\0/c\0/d", 12);	/* four: fine */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), 0);
	assert_string_equal(k.roots[3], "/d");
	sp_lab_kept_free(&k);
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	n = hostile(buf, 1, longpath, sizeof(longpath));	/* too long */
	assert_int_equal(sp_lab_kept_decode(buf, n, &k), -EBADMSG);
	/* every truncation of a good one is refused or decodes whole */
	n = hostile(buf, 9, "/x/y\0/z", 8);
	for (size_t cut = 0; cut < n; cut++) {
		int ret = sp_lab_kept_decode(buf, cut, &k);

		if (!ret) {
			assert_int_equal(cut, 12 + 5);	/* "/x/y" alone */
			sp_lab_kept_free(&k);
		} else
			assert_int_equal(ret, -EBADMSG);
	}
}

static void test_kept_names(void **state)
{
	char name[NAME_MAX + 1];

	(void)state;
	sp_lab_kept_name("/work/x/results", 1, name, sizeof(name));
	assert_string_equal(name, "results");
	sp_lab_kept_name("/work/x/results", 2, name, sizeof(name));
	assert_string_equal(name, "results-2");
	/* a name the host would not take from the guest becomes "root" */
	sp_lab_kept_name("/work/x/..", 1, name, sizeof(name));
	assert_string_equal(name, "root");
	sp_lab_kept_name("/work/x/", 1, name, sizeof(name));
	assert_string_equal(name, "root");
	sp_lab_kept_name("/work/x/a b", 1, name, sizeof(name));
	assert_string_equal(name, "root");
	sp_lab_kept_name("/work/x/.hidden", 3, name, sizeof(name));
	assert_string_equal(name, "root-3");
}

static void test_unget(void **state)
{
	unsigned char hdr[SP_LAB_FRAME_HDR], pl[1] = { SP_LAB_KEPT_LIST };
	const unsigned char *p;
	struct sp_lab_dec d;
	size_t n;
	int type;

	(void)state;
	sp_lab_dec_init(&d);
	assert_int_equal(sp_lab_dec_unget(&d), -EINVAL);	/* none yet */
	assert_int_equal(sp_lab_frame_header(SP_LAB_F_KEPT_ASK, 1, hdr), 0);
	assert_int_equal(sp_lab_dec_feed(&d, hdr, sizeof(hdr)), 0);
	assert_int_equal(sp_lab_dec_feed(&d, pl, 1), 0);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 1);
	assert_int_equal(sp_lab_dec_unget(&d), 0);
	assert_int_equal(sp_lab_dec_unget(&d), -EINVAL);	/* once */
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 1);
	assert_int_equal(type, SP_LAB_F_KEPT_ASK);
	assert_int_equal(n, 1);
	assert_int_equal(p[0], SP_LAB_KEPT_LIST);
	assert_int_equal(sp_lab_dec_next(&d, &type, &p, &n), 0);
	/* a feed moves the bytes: nothing to put back after it */
	assert_int_equal(sp_lab_dec_feed(&d, hdr, 2), 0);
	assert_int_equal(sp_lab_dec_unget(&d), -EINVAL);
	sp_lab_dec_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ask_round_trip_and_refusals),
		cmocka_unit_test(test_kept_round_trip),
		cmocka_unit_test(test_kept_encode_refusals),
		cmocka_unit_test(test_kept_decode_hostile),
		cmocka_unit_test(test_kept_names),
		cmocka_unit_test(test_unget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
