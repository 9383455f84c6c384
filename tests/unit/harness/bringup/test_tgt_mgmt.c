/* tgtadm's command line read as tgtadm reads it (tgt_mgmt.c): each form
 * slowpath writes gives tgtadm's mode, operation, numbers and text, and
 * anything else is left to the program. The bytes on the socket are
 * held to the real tgtadm's in test_tgt_mgmt_wire.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "harness/bringup/tgt_mgmt.h"

static struct sp_tgt_req r;

#define PARSE(...)                                                   \
	sp_tgt_req_parse((const char *const[]){ "tgtadm", __VA_ARGS__, \
						NULL }, &r)

static void show_system_has_no_text(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-C", "7", "--op", "show", "--mode", "sys"), 0);
	assert_int_equal(r.port, 7);
	assert_int_equal(r.mode, SP_TGT_SYSTEM);
	assert_int_equal(r.op, SP_TGT_SHOW);
	assert_int_equal(r.tid, -1);
	assert_true(r.lun == UINT64_MAX);
	assert_string_equal(r.lld, "");
	assert_string_equal(r.params, "");
}

static void new_target_names_it(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-C", "65535", "--lld", "iscsi", "--op", "new",
			       "--mode", "target", "--tid", "1", "-T",
			       "iqn.2026-12.io.slowpath:t"), 0);
	assert_int_equal(r.port, 65535);
	assert_int_equal(r.mode, SP_TGT_TARGET);
	assert_int_equal(r.op, SP_TGT_NEW);
	assert_int_equal(r.tid, 1);
	assert_string_equal(r.lld, "iscsi");
	assert_string_equal(r.params, "targetname=iqn.2026-12.io.slowpath:t");
}

static void new_lu_in_tgtadms_order(void **state)
{
	(void)state;
	/* given in another order than tgtadm writes them */
	assert_int_equal(PARSE("-C", "3", "--lld", "iscsi", "--op", "new",
			       "--mode", "logicalunit", "--bsopts",
			       "delay=1ms;ctl=/run/x", "--tid", "1", "--lun",
			       "1", "--bstype", "delay", "-b", "/srv/disk"), 0);
	assert_int_equal(r.mode, SP_TGT_LU);
	assert_true(r.lun == 1);
	assert_string_equal(r.params, "path=/srv/disk,bstype=delay,"
			    "bsopts=delay=1ms;ctl=/run/x");
}

static void params_are_tgtadms_target_ops(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-C", "3", "--lld", "iscsi", "--op", "update",
			       "--mode", "logicalunit", "--tid", "1", "--lun",
			       "1", "--params", "scsi_id=a,scsi_sn=b"), 0);
	assert_int_equal(r.op, SP_TGT_UPDATE);
	assert_string_equal(r.params, "targetOps scsi_id=a,scsi_sn=b,");
}

static void acl_and_accounts(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-C", "3", "--lld", "iscsi", "--op", "bind",
			       "--mode", "target", "--tid", "1", "-I",
			       "198.18.0.2"), 0);
	assert_int_equal(r.op, SP_TGT_BIND);
	assert_string_equal(r.params, "initiator-address=198.18.0.2");
	assert_int_equal(PARSE("-C", "3", "--lld", "iscsi", "--op", "new",
			       "--mode", "account", "--user", "u",
			       "--password", "s3cret"), 0);
	assert_int_equal(r.mode, SP_TGT_ACCOUNT);
	assert_string_equal(r.params, "user=u,password=s3cret");
	assert_int_equal(r.outgoing, 0);
	assert_int_equal(PARSE("-C", "3", "--lld", "iscsi", "--op", "bind",
			       "--mode", "account", "--tid", "1", "--user",
			       "u", "--outgoing"), 0);
	assert_string_equal(r.params, "user=u");
	assert_int_equal(r.outgoing, 1);
}

static void deletes(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-C", "3", "--lld", "iscsi", "--op", "delete",
			       "--mode", "target", "--tid", "1", "--force"), 0);
	assert_int_equal(r.op, SP_TGT_DELETE);
	assert_int_equal(r.force, 1);
	assert_string_equal(r.params, "");
	assert_int_equal(PARSE("-C", "3", "--lld", "iscsi", "--op", "delete",
			       "--mode", "system"), 0);
	assert_int_equal(r.mode, SP_TGT_SYSTEM);
	assert_int_equal(r.force, 0);
}

/* what the program reads some other way, or slowpath never asks */
static void other_forms_go_to_the_program(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-C3", "--op", "show", "--mode", "sys"),
			 -ENOTSUP);
	assert_int_equal(PARSE("-C", "3", "--op=show", "--mode", "sys"),
			 -ENOTSUP);
	assert_int_equal(PARSE("-C", "3", "--op", "stat", "--mode", "sys"),
			 -ENOTSUP);
	assert_int_equal(PARSE("-C", "3", "--op", "new", "--mode", "portal"),
			 -ENOTSUP);
	assert_int_equal(PARSE("-C", "3", "--op", "update", "--mode", "sys",
			       "--name", "debug", "--value", "on"), -ENOTSUP);
	assert_int_equal(PARSE("-C", "3", "--op", "show", "--mode", "sys",
			       "extra"), -ENOTSUP);
	/* no control port: tgtadm's default, which slowpath never uses */
	assert_int_equal(PARSE("--op", "show", "--mode", "sys"), -ENOTSUP);
}

static void bad_values(void **state)
{
	static char big[SP_TGT_PARAMS_MAX + 8];

	(void)state;
	assert_int_equal(PARSE("-C", "3", "--op", "new", "--mode", "target",
			       "--tid", "one"), -EINVAL);
	assert_int_equal(PARSE("-C", "3", "--op", "new", "--mode", "target",
			       "--tid", "-1"), -EINVAL);
	assert_int_equal(PARSE("-C", "3", "--op", "new", "--mode", "target",
			       "--tid", "2147483648"), -EINVAL);
	assert_int_equal(PARSE("-C", "65536", "--op", "show", "--mode",
			       "sys"), -EINVAL);
	assert_int_equal(PARSE("-C", "3", "--op", "new", "--mode", "target",
			       "--tid"), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	assert_int_equal(PARSE("-C", "3", "--op", "new", "--mode", "target",
			       "--tid", "1", "-T", big), -ENOSPC);
	assert_int_equal(PARSE("-C", "3", "--lld", big, "--op", "show",
			       "--mode", "target"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(show_system_has_no_text),
		cmocka_unit_test(new_target_names_it),
		cmocka_unit_test(new_lu_in_tgtadms_order),
		cmocka_unit_test(params_are_tgtadms_target_ops),
		cmocka_unit_test(acl_and_accounts),
		cmocka_unit_test(deletes),
		cmocka_unit_test(other_forms_go_to_the_program),
		cmocka_unit_test(bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
