/* nvme-tcp's serial stage (harness/bringup/nvme_serial.c): the netem
 * rate that makes one 4 KiB I/O's bytes take the path's service, the
 * plan that turns a serial topology's delays into services, and the
 * two netem settings (target end, host end) sp_bringup_netem_apply
 * makes of it, against a recording mock of struct sp_netem_ops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/bringup/bringup.h"
#include "harness/bringup/nvme_serial.h"

static void rate_makes_one_io_take_the_service(void **state)
{
	uint64_t bps;

	(void)state;
	/* skew4 at 1 ms: 4342 bytes a millisecond */
	assert_int_equal(sp_nvme_serial_rate(1000000, SP_NVME_SERIAL_READ_WIRE,
					     &bps), 0);
	assert_int_equal(bps, 34736000);
	assert_int_equal(sp_nvme_serial_rate(4000000, SP_NVME_SERIAL_READ_WIRE,
					     &bps), 0);
	assert_int_equal(bps, 8684000);
	assert_int_equal(sp_nvme_serial_rate(1000000,
					     SP_NVME_SERIAL_WRITE_WIRE, &bps),
			 0);
	assert_int_equal(bps, 34928000);
	/* whole bytes per second, rounded to the nearest */
	assert_int_equal(sp_nvme_serial_rate(3000000, SP_NVME_SERIAL_READ_WIRE,
					     &bps), 0);
	assert_int_equal(bps, 1447333ull * 8);
	assert_int_equal(sp_nvme_serial_rate(2000000000, 1, &bps), 0);
	assert_int_equal(bps, 8);
	/* the longest service the journal allows still has a rate */
	assert_int_equal(sp_nvme_serial_rate(60000000000ll,
					     SP_NVME_SERIAL_READ_WIRE, &bps), 0);
	assert_int_equal(bps, 72 * 8);
}

static void rate_out_of_netem_range_is_refused(void **state)
{
	uint64_t bps = 7;

	(void)state;
	assert_int_equal(sp_nvme_serial_rate(0, 4342, &bps), -EINVAL);
	assert_int_equal(sp_nvme_serial_rate(-5, 4342, &bps), -EINVAL);
	assert_int_equal(sp_nvme_serial_rate(1000, 0, &bps), -EINVAL);
	/* 4342 bytes in 1 ns: over 34gbit */
	assert_int_equal(sp_nvme_serial_rate(1, 4342, &bps), -ERANGE);
	/* under a byte a second */
	assert_int_equal(sp_nvme_serial_rate(3000000000ll, 1, &bps), -ERANGE);
	assert_int_equal(bps, 7);
}

static int plan(const char *text, int not_serial, struct sp_state *st,
		char *err, size_t errlen)
{
	static struct sp_topo topo;
	struct sp_up_opts o;
	int ret = sp_topo_parse(text, "s.ini", "s", &topo, err, errlen);

	if (ret)
		return ret;
	memset(&o, 0, sizeof(o));
	snprintf(o.tag, sizeof(o.tag), "3fa2");
	o.has_transport = 1;
	o.transport = SP_TRANSPORT_NVME_TCP;
	o.not_serial = not_serial;
	return sp_bringup_plan(&topo, &o, st, err, errlen);
}

#define SKEW "[topology]\nunit = 1ms\nservers = 1\n[path a]\n" \
	     "multiplier = 1\n[path slow]\nmultiplier = 4\n"

/* servers = 1 over nvme-tcp: every delay is a service, no latency */
static void plan_makes_services(void **state)
{
	static struct sp_state st;
	char err[SP_BRINGUP_ERRLEN];
	size_t i;

	(void)state;
	assert_int_equal(plan(SKEW, 0, &st, err, sizeof(err)), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(st.paths[i].mech, SP_MECH_NETEM);
		assert_int_equal(st.paths[i].servers, 1);
		assert_int_equal(st.paths[i].netem_ns, 0);
		assert_true(sp_nvme_serial_path(&st.paths[i]));
	}
	assert_int_equal(st.paths[0].service_ns, 1000000);
	assert_int_equal(st.paths[1].service_ns, 4000000);
	/* --not-serial: latency as before, no service */
	assert_int_equal(plan(SKEW, 1, &st, err, sizeof(err)), 0);
	assert_int_equal(st.paths[1].netem_ns, 4000000);
	assert_int_equal(st.paths[1].servers, 0);
	assert_false(sp_nvme_serial_path(&st.paths[1]));
	/* more than one server cannot be had from one rate */
	assert_int_equal(plan("[topology]\nunit = 1ms\nservers = 2\n[path a]\n"
			      "multiplier = 1\n", 0, &st, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "servers = 2 over nvme-tcp"));
	/* a jitter has no rate to go in (the file is iSCSI's until --transport) */
	assert_int_equal(plan("[topology]\nunit = 1ms\nservers = 1\n[path a]\n"
			      "multiplier = 1\njitter = 10%\n", 0, &st, err,
			      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "path a: jitter on a serial nvme-tcp"));
	/* an iSCSI serial path is the store's, not a rate */
	st.paths[0].mech = SP_MECH_BACKEND;
	st.paths[0].servers = 1;
	st.paths[0].service_ns = 1000000;
	assert_false(sp_nvme_serial_path(&st.paths[0]));
}

struct set_call {
	char netns[48], dev[16];
	struct sp_netem_spec spec;
};

static struct set_call calls[4];
static size_t ncalls;
static int fail_at = -1;

static int mock_set(void *ctx, const char *netns, const char *dev,
		    const struct sp_netem_spec *spec, int change)
{
	struct set_call *c = &calls[ncalls];

	(void)ctx;
	assert_int_equal(change, 0);
	assert_true(ncalls < 4);
	snprintf(c->netns, sizeof(c->netns), "%s", netns ? netns : "-");
	snprintf(c->dev, sizeof(c->dev), "%s", dev);
	c->spec = *spec;
	return (int)ncalls++ == fail_at ? -ENODEV : 0;
}

static int mock_clear(void *ctx, const char *netns, const char *dev)
{
	(void)ctx;
	(void)netns;
	(void)dev;
	fail();
	return 0;
}

static const struct sp_netem_ops mock_netem = { .set = mock_set,
						.clear = mock_clear };

/* the target's end gets the read rate, the host's the write rate */
static void apply_sets_both_ends(void **state)
{
	static struct sp_state st;
	struct sp_sys_ops ops = { .netem = &mock_netem };
	struct sp_netem_spec spec;
	char err[SP_BRINGUP_ERRLEN];

	(void)state;
	assert_int_equal(plan(SKEW, 0, &st, err, sizeof(err)), 0);
	ncalls = 0;
	fail_at = -1;
	assert_int_equal(sp_bringup_netem_apply(&ops, &st.paths[1], err,
						sizeof(err)), 0);
	assert_int_equal(ncalls, 2);
	assert_string_equal(calls[0].netns, "slowpath-up-3fa2-2");
	assert_string_equal(calls[0].dev, "spu3fa2t2");
	assert_int_equal(calls[0].spec.has, SP_NETEM_HAS_RATE);
	assert_int_equal(calls[0].spec.rate_bps, 8684000);
	assert_int_equal(calls[0].spec.delay_ns, 0);
	assert_string_equal(calls[1].netns, "-");
	assert_string_equal(calls[1].dev, "spu3fa2h2");
	assert_int_equal(calls[1].spec.rate_bps, 8732000);
	/* the journal's netem of the target end, as faults restore it */
	sp_bringup_netem_spec(&st.paths[1], &spec);
	assert_true(spec.has & SP_NETEM_HAS_RATE);
	assert_int_equal(spec.rate_bps, 8684000);
	assert_int_equal(spec.delay_ns, 0);
	/* a failing end is named, and the host's is not tried */
	ncalls = 0;
	fail_at = 0;
	assert_int_equal(sp_bringup_netem_apply(&ops, &st.paths[1], err,
						sizeof(err)), -EIO);
	assert_int_equal(ncalls, 1);
	assert_non_null(strstr(err, "path slow: netem rate on spu3fa2t2"));
	/* delay set cannot change a service (the journal has no line for
	 * it): refused before anything is sent */
	ncalls = 0;
	st.complete = 1;
	assert_int_equal(sp_bringup_delay_set(&ops, &st, &st.paths[1], 2000000,
					      -1, "/nonexistent", err,
					      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not by delay set"));
	assert_int_equal(ncalls, 0);
	/* a service too short for netem's rate is refused, not sent */
	ncalls = 0;
	fail_at = -1;
	st.paths[1].service_ns = 1;
	assert_int_equal(sp_bringup_netem_apply(&ops, &st.paths[1], err,
						sizeof(err)), -ERANGE);
	assert_int_equal(ncalls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_makes_one_io_take_the_service),
		cmocka_unit_test(rate_out_of_netem_range_is_refused),
		cmocka_unit_test(plan_makes_services),
		cmocka_unit_test(apply_sets_both_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
