/* CHAP on the targets of `up`, against the mock system: an account new
 * and bind on every tgtd, the credentials in the node records before
 * login, the secret in a 0600 file of the state directory and nowhere
 * in the journal or a message, and `down` removing it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "harness/bringup/bringup.h"
#include "harness/bringup/bringup_chap.h"

#include "tests/unit/harness/bringup/bringup_mock.h"

static int last(const char *needle)
{
	int i;

	for (i = M.ncmds - 1; i >= 0; i--)
		if (strstr(M.cmds[i], needle))
			return i;
	return -1;
}

/* The secret as the mock saw it on tgtadm's command line. */
static void secret_from_cmds(char *buf, size_t len)
{
	int i = first("--password ");
	const char *p;

	assert_true(i >= 0);
	p = strstr(M.cmds[i], "--password ") + strlen("--password ");
	snprintf(buf, len, "%.*s", (int)strcspn(p, " "), p);
}

static void up_ok(struct sp_state *st)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "";

	opts(&o);
	if (sp_bringup_up(&mock_ops, &topo, &o, dir, err, sizeof(err)))
		fail_msg("up: %s", err);
	assert_int_equal(sp_state_load(dir, st, err, sizeof(err)), 0);
}

static void random_is_alnum_and_differs(void **state)
{
	char a[25], b[25];
	size_t i;

	(void)state;
	assert_int_equal(sp_bringup_chap_random(a, sizeof(a)), 0);
	assert_int_equal(sp_bringup_chap_random(b, sizeof(b)), 0);
	assert_int_equal(strlen(a), 24);
	assert_int_equal(strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				"opqrstuvwxyz0123456789"), 24);
	assert_string_not_equal(a, b);
	for (i = 0; i < 24 && a[i] == a[0]; i++)
		;
	assert_true(i < 24);
}

static void every_target_and_the_initiator_get_chap(void **state)
{
	struct sp_state st;
	char secret[64], file[512], need[512], *text;
	struct stat sb;
	size_t len, i;

	(void)state;
	up_ok(&st);
	assert_int_equal(strncmp(st.chap_user, "slowpath-3fa2-", 14), 0);
	assert_int_equal(strlen(st.chap_user), 22);

	/* the file: the secret alone, 0600, a plain file */
	sp_bringup_chap_file(dir, file, sizeof(file));
	assert_int_equal(lstat(file, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(sp_file_read(file, 4096, &text, &len), 0);
	assert_int_equal(len, SP_CHAP_SECRET_CHARS + 1);
	assert_int_equal(text[len - 1], '\n');
	snprintf(secret, sizeof(secret), "%.*s", (int)len - 1, text);
	free(text);

	/* each tgtd: the account with that secret, bound to target 1,
	 * after the target and its address ACL */
	for (i = 0; i < st.npaths; i++) {
		int acl, acct, bind;

		snprintf(need, sizeof(need), "tgtadm -C %u --lld iscsi --op "
			 "bind --mode target --tid 1 -I",
			 st.paths[i].ctl_port);
		acl = first(need);
		snprintf(need, sizeof(need), "tgtadm -C %u --lld iscsi --op "
			 "new --mode account --user %s --password %s",
			 st.paths[i].ctl_port, st.chap_user, secret);
		acct = first(need);
		snprintf(need, sizeof(need), "tgtadm -C %u --lld iscsi --op "
			 "bind --mode account --tid 1 --user %s",
			 st.paths[i].ctl_port, st.chap_user);
		bind = first(need);
		assert_true(acl >= 0 && acct > acl && bind > acct);
	}
	assert_int_equal(ran("--mode account --user"), 3);
	assert_int_equal(ran("--mode account --tid 1 --user"), 3);

	/* the node records, between discovery and login, in one update */
	snprintf(need, sizeof(need), "iscsiadm -m node -T %s -o update -n "
		 "node.session.auth.authmethod -v CHAP -n "
		 "node.session.auth.username -v %s -n "
		 "node.session.auth.password -v %s", st.iqn, st.chap_user,
		 secret);
	assert_int_equal(ran(need), 1);
	assert_int_equal(ran("-o update"), 1);
	assert_true(first(need) > last("iscsiadm -m discovery"));
	assert_true(last("-o update -n node.session.auth") < first("--login"));
	/* the topology set no timeout: iscsid keeps its own */
	assert_int_equal(ran("timeo"), 0);

	/* the journal names the user, never the secret */
	snprintf(need, sizeof(need), "%s/state", dir);
	assert_int_equal(sp_file_read(need, SP_FILE_TEXT_MAX, &text, NULL), 0);
	snprintf(need, sizeof(need), "\nchap %s\n", st.chap_user);
	assert_non_null(strstr(text, need));
	assert_null(strstr(text, secret));
	free(text);
}

/* what the topology sets, in the same iscsiadm as the credentials */
static void timeouts_ride_in_the_same_update(void **state)
{
	struct sp_state st;

	(void)state;
	topo.init.replacement_timeout = 5;
	topo.init.noop_out_timeout = 0;
	up_ok(&st);
	assert_int_equal(ran("-o update"), 1);
	assert_int_equal(ran("-v CHAP -n node.session.auth.username"), 1);
	assert_int_equal(ran("-n node.session.timeo.replacement_timeout -v 5 "
			     "-n node.conn[0].timeo.noop_out_timeout -v 0"), 1);
	assert_int_equal(ran("noop_out_interval"), 0);
}

static void down_removes_the_secret(void **state)
{
	struct sp_state st;
	char err[SP_BRINGUP_ERRLEN] = "", file[512];

	(void)state;
	up_ok(&st);
	sp_bringup_chap_file(dir, file, sizeof(file));
	assert_int_equal(access(file, F_OK), 0);
	assert_int_equal(sp_bringup_down(&mock_ops, &st, dir, err,
					 sizeof(err)), 0);
	assert_int_equal(access(file, F_OK), -1);
	/* without a journal too: the name is fixed */
	assert_int_equal(sp_file_write_atomic(file, "x\n", 2, 0600), 0);
	assert_int_equal(sp_bringup_down(&mock_ops, NULL, dir, err,
					 sizeof(err)), 0);
	assert_int_equal(access(file, F_OK), -1);
}

/* A link planted where the secret goes is replaced, not written
 * through. */
static void a_planted_link_is_not_followed(void **state)
{
	struct sp_state st;
	char file[512], victim[128], *text;
	struct stat sb;

	(void)state;
	snprintf(victim, sizeof(victim), "%s.victim", dir);
	assert_int_equal(sp_file_write_atomic(victim, "keep\n", 5, 0644), 0);
	sp_bringup_chap_file(dir, file, sizeof(file));
	assert_int_equal(symlink(victim, file), 0);
	up_ok(&st);
	assert_int_equal(lstat(file, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(sp_file_read(victim, 4096, &text, NULL), 0);
	assert_string_equal(text, "keep\n");
	free(text);
	unlink(victim);
}

static void a_state_dir_others_may_write_is_refused(void **state)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "", file[512];

	(void)state;
	opts(&o);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "CHAP secret"));
	assert_int_equal(ran("spawn"), 0);
	assert_int_equal(ran("tgtadm"), 0);
	sp_bringup_chap_file(dir, file, sizeof(file));
	assert_int_equal(access(file, F_OK), -1);
	assert_int_equal(access(dir, F_OK), 0);
	chmod(dir, 0700);
}

/* A failing tgtadm says which step failed without echoing its argv. */
static void a_failed_account_names_no_secret(void **state)
{
	struct sp_up_opts o;
	char err[SP_BRINGUP_ERRLEN] = "", secret[64], file[512];

	(void)state;
	opts(&o);
	M.fail_match = "--op new --mode account";
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EIO);
	assert_non_null(strstr(err, "path a: tgtadm new account slowpath-3fa2-"));
	secret_from_cmds(secret, sizeof(secret));
	assert_int_equal(strlen(secret), SP_CHAP_SECRET_CHARS);
	assert_null(strstr(err, secret));
	assert_int_equal(ran("--login"), 0);
	sp_bringup_chap_file(dir, file, sizeof(file));
	assert_int_equal(access(file, F_OK), -1);

	/* and the initiator side the same */
	teardown(NULL);
	setup(NULL);
	sp_bringup_chap_file(dir, file, sizeof(file));
	M.fail_match = "node.session.auth.password";
	assert_int_equal(sp_bringup_up(&mock_ops, &topo, &o, dir, err,
				       sizeof(err)), -EIO);
	assert_non_null(strstr(err, "iscsiadm update of the node records "
				    "failed"));
	secret_from_cmds(secret, sizeof(secret));
	assert_null(strstr(err, secret));
	assert_int_equal(ran("--login"), 0);
	assert_int_equal(access(file, F_OK), -1);
}

static void journals_before_chap_still_load(void **state)
{
	struct sp_state st;
	char err[SP_STATE_ERRLEN] = "";

	(void)state;
	assert_int_equal(sp_state_parse("slowpath-state 1\ntag 3fa2\n"
					"complete\n", &st, err, sizeof(err)),
			 0);
	assert_string_equal(st.chap_user, "");
	assert_int_equal(sp_state_parse("slowpath-state 1\ntag 3fa2\n"
					"chap slowpath-3fa2-Ab12Cd34\n", &st,
					err, sizeof(err)), 0);
	assert_string_equal(st.chap_user, "slowpath-3fa2-Ab12Cd34");
	assert_int_equal(sp_state_parse("slowpath-state 1\nchap\n", &st, err,
					sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(random_is_alnum_and_differs),
		T(every_target_and_the_initiator_get_chap),
		T(timeouts_ride_in_the_same_update),
		T(down_removes_the_secret),
		T(a_planted_link_is_not_followed),
		T(a_state_dir_others_may_write_is_refused),
		T(a_failed_account_names_no_secret),
		T(journals_before_chap_still_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
