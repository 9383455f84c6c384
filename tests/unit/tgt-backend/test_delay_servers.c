/* The serial stage of the delay store: FIFO over n servers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "tgt-backend/delay_servers.h"

#define MS 1000000LL

static void init_refuses_bad_counts(void **state)
{
	struct delay_servers s;

	(void)state;
	assert_int_equal(delay_servers_init(&s, 0), -EINVAL);
	assert_int_equal(delay_servers_init(&s, DELAY_SERVERS_MAX + 1), -EINVAL);
	assert_int_equal(delay_servers_init(&s, DELAY_SERVERS_MAX), 0);
}

/* One server: commands that arrive together leave one service apart,
 * so a path of service t serves 1/t per second whatever the queue. */
static void one_server_serialises(void **state)
{
	struct delay_servers s;
	int i;

	(void)state;
	delay_servers_init(&s, 1);
	for (i = 0; i < 8; i++)
		assert_int_equal(delay_servers_take(&s, 100 * MS, 2 * MS),
				 100 * MS + (i + 1) * 2 * MS);
	/* waits: 0 + 2 + 4 + ... + 14 ms */
	assert_int_equal(s.waited_ns, 56 * MS);
	assert_int_equal(s.served, 8);
	/* an idle server starts a late arrival at once */
	assert_int_equal(delay_servers_take(&s, 500 * MS, 2 * MS), 502 * MS);
}

/* n servers: n commands in parallel, the (n+1)th waits for the first
 * to be free; FIFO among equals. */
static void n_servers_share_the_load(void **state)
{
	struct delay_servers s;

	(void)state;
	delay_servers_init(&s, 3);
	assert_int_equal(delay_servers_take(&s, 0, 10 * MS), 10 * MS);
	assert_int_equal(delay_servers_take(&s, 1 * MS, 10 * MS), 11 * MS);
	assert_int_equal(delay_servers_take(&s, 2 * MS, 10 * MS), 12 * MS);
	assert_int_equal(delay_servers_take(&s, 3 * MS, 10 * MS), 20 * MS);
	assert_int_equal(delay_servers_take(&s, 3 * MS, 10 * MS), 21 * MS);
	assert_int_equal(s.waited_ns, (10 - 3 + 11 - 3) * MS);
}

/* A parallel path is the limit of many servers: no command waits. */
static void enough_servers_never_wait(void **state)
{
	struct delay_servers s;
	int i;

	(void)state;
	delay_servers_init(&s, 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(delay_servers_take(&s, i, 5 * MS), i + 5 * MS);
	assert_int_equal(s.waited_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_refuses_bad_counts),
		cmocka_unit_test(one_server_serialises),
		cmocka_unit_test(n_servers_share_the_load),
		cmocka_unit_test(enough_servers_never_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
