/* The uml lab supervisor's relay (lab/lab_umlrelay.c) over socket
 * pairs: a host's frames reach the agent whole or not at all, its GONE
 * never; a host that leaves is said with one GONE, a probe that sent
 * nothing is not; the agent's GONE ends the session and never reaches
 * the host; a guest whose line carries no frames, or a GONE with a
 * payload, ends the lab. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_umlrelay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct rig {
	struct sp_lab_relay r;
	int agent, host;	/* the far ends: the guest's agent, a host */
	int woken;
};

static void on_wake(void *ctx)
{
	((struct rig *)ctx)->woken++;
}

static void nonblock(int fd)
{
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
}

static void rig_up(struct rig *g)
{
	int sv[2];

	memset(g, 0, sizeof(*g));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	nonblock(sv[0]);
	nonblock(sv[1]);
	sp_lab_relay_init(&g->r, sv[0], on_wake, g);
	g->agent = sv[1];
	g->host = -1;
}

static void connect_host(struct rig *g)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	nonblock(sv[0]);
	nonblock(sv[1]);
	sp_lab_relay_take_host(&g->r, sv[0]);
	g->host = sv[1];
}

static void rig_down(struct rig *g)
{
	close(g->r.gfd);
	sp_lab_relay_free(&g->r);
	close(g->agent);
	if (g->host >= 0)
		close(g->host);
}

/* A few rounds as poll would call them: what is readable is read. */
static int pump(struct rig *g)
{
	int i, ret = 0;

	for (i = 0; i < 4 && !ret; i++) {
		struct pollfd pfd[2] = { { g->r.gfd, 0, 0 }, { g->r.cfd, 0, 0 } };

		sp_lab_relay_events(&g->r, &pfd[0].events, &pfd[1].events);
		if (poll(pfd, 2, 10) < 0)
			return -errno;
		ret = sp_lab_relay_round(&g->r, pfd[0].revents, pfd[1].revents);
	}
	return ret;
}

static void put(int fd, int type, const void *p, size_t n, size_t cut)
{
	unsigned char buf[SP_LAB_FRAME_HDR + 64];

	assert_true(n <= 64);
	assert_int_equal(sp_lab_frame_header(type, n, buf), 0);
	memcpy(buf + SP_LAB_FRAME_HDR, p, n);
	n += SP_LAB_FRAME_HDR;
	assert_int_equal(write(fd, buf, cut ? cut : n), (ssize_t)(cut ? cut : n));
}

/* The frame types that arrived at fd, in order, as a string. */
static void types(int fd, char *out, size_t len)
{
	unsigned char buf[4096];
	const unsigned char *p;
	struct sp_lab_dec d;
	ssize_t got;
	size_t n, k = 0;
	int type;

	sp_lab_dec_init(&d);
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		assert_int_equal(sp_lab_dec_feed(&d, buf, (size_t)got), 0);
	while (sp_lab_dec_next(&d, &type, &p, &n) == 1 && k + 1 < len)
		out[k++] = (char)type;
	out[k] = '\0';
	assert_int_equal(sp_lab_dec_pending(&d), 0);
	sp_lab_dec_free(&d);
}

static void test_session(void **state)
{
	struct rig g;
	char got[32];

	(void)state;
	rig_up(&g);
	/* no host until the agent said it is idle */
	assert_false(sp_lab_relay_quiet(&g.r));
	put(g.agent, SP_LAB_F_GONE, "", 0, 0);
	assert_int_equal(pump(&g), 0);
	assert_true(sp_lab_relay_quiet(&g.r));
	connect_host(&g);
	assert_false(sp_lab_relay_quiet(&g.r));
	/* half a request: nothing reaches the agent, nothing wakes it */
	put(g.host, SP_LAB_F_REQ, "0123456789", 10, 12);
	assert_int_equal(pump(&g), 0);
	types(g.agent, got, sizeof(got));
	assert_string_equal(got, "");
	assert_int_equal(g.woken, 0);
	assert_int_equal(write(g.host, "456789", 6), 6);
	/* a host's GONE is not its to give */
	put(g.host, SP_LAB_F_GONE, "", 0, 0);
	put(g.host, SP_LAB_F_SIG, "\x02", 1, 0);
	assert_int_equal(pump(&g), 0);
	types(g.agent, got, sizeof(got));
	assert_string_equal(got, "RK");
	assert_true(g.woken >= 1);
	/* the agent's answer; its GONE stays here */
	put(g.agent, SP_LAB_F_OUT, "hi", 2, 0);
	put(g.agent, SP_LAB_F_EXIT, "\0\0\0\0", 4, 0);
	assert_int_equal(pump(&g), 0);
	types(g.host, got, sizeof(got));
	assert_string_equal(got, "OX");
	/* the host leaves with half a frame sent: the agent gets one GONE */
	put(g.host, SP_LAB_F_SIG, "\x02", 1, 5);
	close(g.host);
	g.host = -1;
	assert_int_equal(pump(&g), 0);
	assert_int_equal(g.r.cfd, -1);
	types(g.agent, got, sizeof(got));
	assert_string_equal(got, "H");
	/* busy until the agent answers it */
	assert_false(sp_lab_relay_quiet(&g.r));
	put(g.agent, SP_LAB_F_GONE, "", 0, 0);
	assert_int_equal(pump(&g), 0);
	assert_true(sp_lab_relay_quiet(&g.r));
	rig_down(&g);
}

/* lab status's probe connects and leaves: the stopped guest is not
 * woken, nor told. */
static void test_probe_wakes_nothing(void **state)
{
	struct rig g;
	char got[8];

	(void)state;
	rig_up(&g);
	put(g.agent, SP_LAB_F_GONE, "", 0, 0);
	assert_int_equal(pump(&g), 0);
	connect_host(&g);
	close(g.host);
	g.host = -1;
	assert_int_equal(pump(&g), 0);
	assert_int_equal(g.r.cfd, -1);
	assert_int_equal(g.woken, 0);
	types(g.agent, got, sizeof(got));
	assert_string_equal(got, "");
	assert_true(sp_lab_relay_quiet(&g.r));
	rig_down(&g);
}

/* A host that speaks no frames is dropped; what it sent whole before
 * was the agent's, so the agent is told. */
static void test_host_speaking_nonsense(void **state)
{
	struct rig g;
	char got[8];

	(void)state;
	rig_up(&g);
	put(g.agent, SP_LAB_F_GONE, "", 0, 0);
	assert_int_equal(pump(&g), 0);
	connect_host(&g);
	put(g.host, SP_LAB_F_KEPT_ASK, "L", 1, 0);
	assert_int_equal(write(g.host, "GET / HTTP/1.0\r\n", 16), 16);
	assert_int_equal(pump(&g), 0);
	assert_int_equal(g.r.cfd, -1);
	types(g.agent, got, sizeof(got));
	assert_string_equal(got, "PH");
	rig_down(&g);
}

static void test_hostile_guest(void **state)
{
	static const unsigned char junk[] = "SPQ\0\0\0\0\0";
	struct rig g;

	(void)state;
	rig_up(&g);
	put(g.agent, SP_LAB_F_GONE, "x", 1, 0);
	assert_int_equal(pump(&g), -EPROTO);
	rig_down(&g);
	rig_up(&g);
	assert_int_equal(write(g.agent, junk, 8), 8);
	assert_int_equal(pump(&g), -EPROTO);
	rig_down(&g);
	rig_up(&g);
	shutdown(g.agent, SHUT_WR);
	assert_int_equal(pump(&g), -EPIPE);
	rig_down(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_probe_wakes_nothing),
		cmocka_unit_test(test_host_speaking_nonsense),
		cmocka_unit_test(test_hostile_guest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
