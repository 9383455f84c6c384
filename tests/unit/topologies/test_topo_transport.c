/* The topology key transport = iscsi | nvme-tcp: the default, both
 * values, and bad ones named with FILE:LINE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "topologies/topo.h"

static struct sp_topo topo;

static int parse(const char *text, char *err, size_t len)
{
	err[0] = '\0';
	return sp_topo_parse(text, "t.ini", "t", &topo, err, len);
}

#define PATH "[path]\nmultiplier = 1\n"

static void default_is_iscsi(void **state)
{
	char err[SP_TOPO_ERRLEN];

	(void)state;
	assert_int_equal(parse("[topology]\n" PATH, err, sizeof(err)), 0);
	assert_int_equal(topo.transport, SP_TRANSPORT_ISCSI);
}

static void both_values(void **state)
{
	char err[SP_TOPO_ERRLEN];

	(void)state;
	assert_int_equal(parse("[topology]\ntransport = nvme-tcp\n" PATH, err,
			       sizeof(err)), 0);
	assert_int_equal(topo.transport, SP_TRANSPORT_NVME_TCP);
	assert_int_equal(topo.transport_line, 2);
	assert_int_equal(parse("[topology]\ntransport = iscsi\n" PATH, err,
			       sizeof(err)), 0);
	assert_int_equal(topo.transport, SP_TRANSPORT_ISCSI);
}

static void bad_value_names_file_line_value(void **state)
{
	char err[SP_TOPO_ERRLEN];

	(void)state;
	assert_int_equal(parse("[topology]\n\ntransport = nvme-rdma\n" PATH,
			       err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.ini:3:"));
	assert_non_null(strstr(err, "nvme-rdma"));
	assert_int_equal(parse("[topology]\ntransport = iscsi\n"
			       "transport = iscsi\n" PATH, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "t.ini:3: duplicate key 'transport'"));
	assert_int_equal(parse("[topology]\n" PATH "transport = iscsi\n", err,
			       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.ini:4:"));
}

/* nvme-tcp serves one command at a time through netem's rate: servers
 * = 1 is taken, more are refused at the transport line, and so is a
 * jitter (a rate has no distribution) */
static void serial_nvme_one_server(void **state)
{
	char err[SP_TOPO_ERRLEN];

	(void)state;
	assert_int_equal(parse("[topology]\nservers = 1\ntransport = nvme-tcp\n"
			       PATH, err, sizeof(err)), 0);
	assert_int_equal(parse("[topology]\nservers = 2\ntransport = nvme-tcp\n"
			       PATH, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.ini:3: transport nvme-tcp with "
				    "servers = 2"));
	assert_int_equal(parse("[topology]\nservers = 1\ntransport = nvme-tcp\n"
			       "[path a]\ndelay = 1ms\njitter = 100us\n",
			       err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "jitter with servers = 1 on nvme-tcp"));
}

/* inline_data is nvmet-tcp's in-capsule write data: taken in bytes on
 * nvme-tcp, refused at its line on iscsi and outside 4k..1M */
static void inline_data_nvme_only(void **state)
{
	char err[SP_TOPO_ERRLEN];

	(void)state;
	assert_int_equal(parse("[topology]\ntransport = nvme-tcp\n"
			       "inline_data = 128k\n" PATH, err, sizeof(err)), 0);
	assert_int_equal(topo.inline_data_bytes, 131072);
	assert_int_equal(parse("[topology]\ntransport = nvme-tcp\n" PATH, err,
			       sizeof(err)), 0);
	assert_int_equal(topo.inline_data_bytes, 0);
	assert_int_equal(parse("[topology]\n\ninline_data = 64k\n" PATH, err,
			       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.ini:3: inline_data is nvmet-tcp's"));
	assert_int_equal(parse("[topology]\ntransport = nvme-tcp\n"
			       "inline_data = 2M\n" PATH, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "t.ini:3: inline_data '2M': want 4k to 1M"));
	assert_int_equal(parse("[topology]\ntransport = nvme-tcp\n"
			       "inline_data = 1\n" PATH, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "inline_data '1'"));
}

static void transport_names(void **state)
{
	enum sp_transport t;

	(void)state;
	assert_int_equal(sp_transport_parse("nvme-tcp", &t), 0);
	assert_int_equal(t, SP_TRANSPORT_NVME_TCP);
	assert_int_equal(sp_transport_parse("iscsi", &t), 0);
	assert_int_equal(t, SP_TRANSPORT_ISCSI);
	assert_int_equal(sp_transport_parse("NVME-TCP", &t), -EINVAL);
	assert_int_equal(sp_transport_parse("", &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_is_iscsi),
		cmocka_unit_test(both_values),
		cmocka_unit_test(bad_value_names_file_line_value),
		cmocka_unit_test(serial_nvme_one_server),
		cmocka_unit_test(inline_data_nvme_only),
		cmocka_unit_test(transport_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
