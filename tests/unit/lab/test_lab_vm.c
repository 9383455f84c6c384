/* The lab's pure helpers: qemu's argv, shell quoting and the job script
 * the guest runs. The quoting is checked by running the script through
 * /bin/sh, not by comparing strings, so a quoting bug cannot hide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab/lab_layout.h"
#include "lab/lab_vm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct sp_lab_vm run_vm(void)
{
	struct sp_lab_vm vm = {
		.mode = SP_LAB_RUN, .qemu = "/usr/bin/qemu-system-x86_64",
		.kernel = "/b/lab/k/vmlinuz", .initrd = "/b/lab/k/initrd.gz",
		.xchg_dir = "/b/lab/run/abc", .console_log = "/b/lab/logs/x.log",
		.cpus = 2, .mem_bytes = 2ULL << 30, .out_fd = 3, .err_fd = 4,
	};
	return vm;
}

static int argv_index(const struct sp_strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (int)i;
	return -1;
}

static int argv_has_prefix(const struct sp_strv *sv, const char *prefix)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* The value following option opt. */
static const char *argv_value(const struct sp_strv *sv, const char *opt)
{
	int i = argv_index(sv, opt);

	return i >= 0 && (size_t)i + 1 < sv->n ? sv->v[i + 1] : NULL;
}

static void test_argv_tcg_no_nic_no_display(void **state)
{
	struct sp_strv sv = { 0 };
	struct sp_lab_vm vm = run_vm();

	(void)state;
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), 0);
	assert_string_equal(sv.v[0], vm.qemu);
	assert_null(sv.v[sv.n]);
	assert_string_equal(argv_value(&sv, "-accel"), "tcg");
	/* what TCG emulates slowly is off: byte-wise rep movsb, 5-level
	 * paging */
	assert_string_equal(argv_value(&sv, "-cpu"), "max,erms=off,fsrm=off,la57=off");
	assert_string_equal(argv_value(&sv, "-nic"), "none");
	assert_string_equal(argv_value(&sv, "-display"), "none");
	assert_int_equal(argv_index(&sv, "-enable-kvm"), -1);
	assert_string_equal(argv_value(&sv, "-smp"), "2");
	assert_string_equal(argv_value(&sv, "-m"), "2048M");
	assert_non_null(strstr(argv_value(&sv, "-append"), "tsc=reliable"));
	assert_non_null(strstr(argv_value(&sv, "-append"), "console=ttyS0"));
	assert_string_equal(argv_value(&sv, "-kernel"), vm.kernel);
	assert_string_equal(argv_value(&sv, "-initrd"), vm.initrd);
	assert_string_equal(argv_value(&sv, "-serial"), "file:/b/lab/logs/x.log");
	assert_true(argv_has_prefix(&sv, "local,path=/,mount_tag=hostroot,"));
	assert_true(argv_has_prefix(&sv, "local,path=/b/lab/run/abc,mount_tag=labxchg,"));
	assert_true(argv_has_prefix(&sv, "file,id=labout,path=/proc/self/fd/3"));
	assert_true(argv_has_prefix(&sv, "file,id=laberr,path=/proc/self/fd/4"));
	assert_true(argv_has_prefix(&sv, "virtserialport,chardev=labout,name=sp.out"));
	sp_strv_free(&sv);
}

static void test_argv_root_share_is_readonly(void **state)
{
	struct sp_strv sv = { 0 };
	struct sp_lab_vm vm = run_vm();
	size_t i;
	int seen = 0;

	(void)state;
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), 0);
	for (i = 0; i < sv.n; i++) {
		if (strstr(sv.v[i], "mount_tag=hostroot")) {
			assert_non_null(strstr(sv.v[i], "readonly=on"));
			seen++;
		}
		if (strstr(sv.v[i], "mount_tag=labxchg"))
			assert_null(strstr(sv.v[i], "readonly"));
	}
	assert_int_equal(seen, 1);
	sp_strv_free(&sv);
}

/* issue 23 item 15: qemu runs as root; a writable share passed through
 * (security_model=none) let the guest's root make a setuid file of
 * root's in --keep's folder on the host. */
static void test_argv_keep_share_is_mapped(void **state)
{
	struct sp_strv sv = { 0 };
	struct sp_lab_vm vm = run_vm();
	size_t i;
	int seen = 0;

	(void)state;
	vm.keep_dir = "/home/u/kept";
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), 0);
	for (i = 0; i < sv.n; i++) {
		if (!strstr(sv.v[i], "mount_tag=labkeep"))
			continue;
		assert_null(strstr(sv.v[i], "security_model=none"));
		assert_null(strstr(sv.v[i], "security_model=passthrough"));
		assert_non_null(strstr(sv.v[i], ",security_model=mapped-xattr"));
		seen++;
	}
	assert_int_equal(seen, 1);
	sp_strv_free(&sv);
}

static void test_argv_shell_uses_stdio(void **state)
{
	struct sp_strv sv = { 0 };
	struct sp_lab_vm vm = run_vm();

	(void)state;
	vm.mode = SP_LAB_SHELL;
	vm.console_log = NULL;
	vm.out_fd = vm.err_fd = -1;
	vm.cpus = 1;
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), 0);
	assert_string_equal(argv_value(&sv, "-serial"), "mon:stdio");
	assert_string_equal(argv_value(&sv, "-smp"), "1");
	assert_false(argv_has_prefix(&sv, "virtserialport"));
	sp_strv_free(&sv);
}

static void test_argv_rejects_bad_vm(void **state)
{
	struct sp_strv sv = { 0 };
	struct sp_lab_vm vm = run_vm();

	(void)state;
	vm.cpus = 0;
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), -EINVAL);
	vm = run_vm();
	vm.mem_bytes = 1 << 20;
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), -EINVAL);
	vm = run_vm();
	vm.console_log = NULL;	/* run mode needs somewhere for the console */
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), -EINVAL);
	assert_int_equal(sv.n, 0);
}

static void test_commas_in_paths_are_doubled(void **state)
{
	struct sp_strv sv = { 0 };
	struct sp_lab_vm vm = run_vm();
	char *e = sp_lab_qemu_escape("a,b,,c");

	(void)state;
	assert_string_equal(e, "a,,b,,,,c");
	free(e);
	vm.xchg_dir = "/x,y/run";
	assert_int_equal(sp_lab_qemu_argv(&vm, &sv), 0);
	assert_true(argv_has_prefix(&sv, "local,path=/x,,y/run,mount_tag=labxchg"));
	sp_strv_free(&sv);
}

static void test_env_passes(void **state)
{
	(void)state;
	assert_true(sp_lab_env_passes("SLOWPATH_DEBUG=1", NULL));
	assert_true(sp_lab_env_passes("BUILD=/b", NULL));
	assert_true(sp_lab_env_passes("LC_ALL=C", ""));
	assert_false(sp_lab_env_passes("SLOWPATH_=1", NULL));
	assert_false(sp_lab_env_passes("SLOWPATH_IN_LAB=0", NULL));
	assert_false(sp_lab_env_passes("PATH=/evil", "PATH"));
	assert_false(sp_lab_env_passes("HOME=/home/u", NULL));
	assert_false(sp_lab_env_passes("SSH_AUTH_SOCK=/x", NULL));
	assert_false(sp_lab_env_passes("FIO=1", "FIO_X,FIOO"));
	assert_true(sp_lab_env_passes("FIO=1", "A, FIO B"));
	assert_false(sp_lab_env_passes("BASH_FUNC_f%%=() { :; }", "BASH_FUNC_f%%"));
	assert_false(sp_lab_env_passes("noequals", "noequals"));
}

/* Runs script with /bin/sh (after replacing its exec target with a
 * printer) and returns what it printed. */
static char *run_script(const char *script)
{
	char path[] = "/tmp/test_lab_vm.XXXXXX";
	char cmd[128], *out = calloc(1, 8192);
	int fd = mkstemp(path);
	FILE *p;
	size_t n;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, script, strlen(script)), (ssize_t)strlen(script));
	close(fd);
	snprintf(cmd, sizeof(cmd), "/bin/sh %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, 8191, p);
	out[n] = '\0';
	pclose(p);
	unlink(path);
	return out;
}

static void test_job_script_survives_shell(void **state)
{
	char *argv[] = { "printf", "<%s>", "one two", "it's", "$HOME", "",
			 "a\"b\\c", "`x`", NULL };
	char *envp[] = { "SLOWPATH_X=a 'b' $c", "SECRET=no", "BUILD=/b d",
			 NULL };
	char *script, *out;

	(void)state;
	assert_int_equal(sp_lab_job_script(SP_LAB_RUN, "/", argv, envp, NULL,
					   &script), 0);
	out = run_script(script);
	assert_string_equal(out, "<one two><it's><$HOME><><a\"b\\c><`x`>");
	free(out);
	free(script);

	/* The environment the command sees. */
	char *env_argv[] = { "sh", "-c",
		"printf '%s|%s|%s|%s|%s|' \"$SLOWPATH_X\" \"${SECRET-unset}\" "
		"\"$BUILD\" \"$SLOWPATH_IN_LAB\" \"$HOME\"; pwd", NULL };
	assert_int_equal(sp_lab_job_script(SP_LAB_RUN, "/tmp", env_argv, envp,
					   NULL, &script), 0);
	out = run_script(script);
	assert_string_equal(out, "a 'b' $c|unset|/b d|1|/root|/tmp\n");
	free(out);
	free(script);
}

/* issue 23 item 7: lab start's agent job carried its caller's
 * SLOWPATH_* and the fixed set, which every later command inherited. */
static void test_agent_job_carries_no_caller_env(void **state)
{
	char *argv[] = { "/usr/bin/slowpath", "lab", "agent", NULL };
	char *envp[] = { "SLOWPATH_DEBUG=1", "BUILD=/b", "LANG=C", "EXTRA=1",
			 NULL };
	char *job = NULL;

	(void)state;
	assert_int_equal(sp_lab_job_script(SP_LAB_AGENT, "/", argv, envp,
					   "EXTRA", &job), 0);
	assert_null(strstr(job, "SLOWPATH_DEBUG"));
	assert_null(strstr(job, "BUILD="));
	assert_null(strstr(job, "LANG="));
	assert_null(strstr(job, "EXTRA="));
	assert_non_null(strstr(job, "export SLOWPATH_IN_LAB='1'"));
	assert_non_null(strstr(job, "'lab' 'agent'"));
	free(job);
	/* lab run's one command still gets them */
	assert_int_equal(sp_lab_job_script(SP_LAB_RUN, "/", argv, envp,
					   "EXTRA", &job), 0);
	assert_non_null(strstr(job, "export SLOWPATH_DEBUG='1'"));
	assert_non_null(strstr(job, "export EXTRA='1'"));
	free(job);
}

static void test_env_list_check(void **state)
{
	char bad[160];

	(void)state;
	assert_int_equal(sp_lab_env_list_check("FOO, BAR_1\tbaz", bad, sizeof(bad)), 0);
	assert_int_equal(sp_lab_env_list_check("", bad, sizeof(bad)), 0);
	assert_int_equal(sp_lab_env_list_check("FOO FOO-BAR", bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "FOO-BAR");
	assert_int_equal(sp_lab_env_list_check("LD_PRELOAD", bad, sizeof(bad)), -EINVAL);
	assert_int_equal(sp_lab_env_list_check("A PATH", bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "PATH");
	assert_int_equal(sp_lab_env_list_check("BASH_ENV", bad, sizeof(bad)), -EINVAL);
	assert_int_equal(sp_lab_env_list_check("SLOWPATH_LAB_TIME", bad, sizeof(bad)), -EINVAL);
	assert_int_equal(sp_lab_env_list_check("9X", bad, sizeof(bad)), -EINVAL);
	assert_false(sp_lab_env_passes("LD_PRELOAD=/x.so", "LD_PRELOAD"));
	assert_false(sp_lab_env_passes("BASH_ENV=/x", "BASH_ENV"));
	assert_true(sp_lab_env_passes("FOO=1", "FOO"));
}

static void test_job_script_missing_cwd_fails(void **state)
{
	char *argv[] = { "true", NULL };
	char *script, *out;

	(void)state;
	assert_int_equal(sp_lab_job_script(SP_LAB_RUN, "/nonexistent/dir", argv,
					   NULL, NULL, &script), 0);
	out = run_script(script);
	assert_non_null(strstr(out, "not visible in the guest"));
	free(out);
	free(script);
	assert_int_equal(sp_lab_job_script(SP_LAB_RUN, "/", NULL, NULL, NULL,
					   &script), -EINVAL);
}

static void test_shell_rcfile_has_no_exec(void **state)
{
	char *script;

	(void)state;
	assert_int_equal(sp_lab_job_script(SP_LAB_SHELL, "/w", NULL, NULL, NULL,
					   &script), 0);
	assert_null(strstr(script, "exec"));
	assert_non_null(strstr(script, "cd '/w'"));
	free(script);
}

static void test_config_is_sourceable(void **state)
{
	char *config, *script, *out;
	size_t len;

	(void)state;
	assert_int_equal(sp_lab_config(SP_LAB_RUN, "/b/lab/k/root",
				       "/b/lab/k/guest-init", "/w d/it's", NULL,
				       "/k e/p", SP_LAB_ENGINE_UML, SP_LAB_TIME_EXACT,
				       &config), 0);
	len = strlen(config);
	script = malloc(len + 160);
	snprintf(script, len + 160,
		 "%sprintf '%%s|%%s|%%s|%%s|%%s|%%s|%%s|%%s' \"$LAB_MODE\" \"$LAB_ROOT\" "
		 "\"$LAB_GUEST_INIT\" \"$LAB_CWD\" \"$LAB_TERM\" \"$LAB_KEEP\" "
		 "\"$LAB_ENGINE\" \"$LAB_TIME\"", config);
	out = run_script(script);
	assert_string_equal(out, "run|/b/lab/k/root|/b/lab/k/guest-init|/w d/it's||/k e/p|uml|exact");
	free(out);
	free(script);
	free(config);
}

/* The guest names its own engine and clock: the host's environment
 * cannot make a qemu run claim exact time. */
static void test_engine_and_time_are_the_guests(void **state)
{
	char *const envp[] = { "SLOWPATH_LAB_ENGINE=uml", "SLOWPATH_LAB_TIME=exact",
			       "SLOWPATH_X=1", "SLOWPATH_LAB_PATCHES=ab x.patch", NULL };
	char *const argv[] = { "true", NULL };
	enum sp_lab_engine e;
	enum sp_lab_time t;
	char *job;

	(void)state;
	assert_false(sp_lab_env_passes(envp[0], NULL));
	assert_false(sp_lab_env_passes(envp[1], NULL));
	assert_false(sp_lab_env_passes(envp[3], NULL));
	assert_int_equal(sp_lab_job_script(SP_LAB_RUN, "/", argv, envp, NULL, &job), 0);
	assert_null(strstr(job, "SLOWPATH_LAB_ENGINE"));
	assert_non_null(strstr(job, "SLOWPATH_X"));
	free(job);
	assert_int_equal(sp_lab_engine_parse("uml", &e), 0);
	assert_int_equal(e, SP_LAB_ENGINE_UML);
	assert_int_equal(sp_lab_engine_parse("kvm", &e), -EINVAL);
	assert_int_equal(sp_lab_time_parse("exact", &t), 0);
	assert_int_equal(t, SP_LAB_TIME_EXACT);
	assert_int_equal(sp_lab_time_parse("Exact", &t), -EINVAL);
	assert_int_equal(sp_lab_time_parse(NULL, &t), -EINVAL);
	assert_string_equal(sp_lab_engine_name(SP_LAB_ENGINE_QEMU), "qemu");
	assert_string_equal(sp_lab_time_name(SP_LAB_TIME_REAL), "real");
}

static void test_parse_status(void **state)
{
	int code = -1;

	(void)state;
	assert_int_equal(sp_lab_parse_status("0\n", &code), 0);
	assert_int_equal(code, 0);
	assert_int_equal(sp_lab_parse_status(" 137 ", &code), 0);
	assert_int_equal(code, 137);
	assert_int_equal(sp_lab_parse_status("", &code), -EINVAL);
	assert_int_equal(sp_lab_parse_status("256", &code), -EINVAL);
	assert_int_equal(sp_lab_parse_status("-1", &code), -EINVAL);
	assert_int_equal(sp_lab_parse_status("3x", &code), -EINVAL);
	assert_int_equal(code, 137);
}

/* make lab KERNEL= and lab run --kernel take a series, never a path. */
static void test_kernel_series(void **state)
{
	char buf[32];

	(void)state;
	assert_true(sp_lab_series_ok("6.1"));
	assert_true(sp_lab_series_ok("6.12"));
	assert_false(sp_lab_series_ok("6"));
	assert_false(sp_lab_series_ok("6.1.0"));
	assert_false(sp_lab_series_ok("6."));
	assert_false(sp_lab_series_ok("../6.1"));
	assert_false(sp_lab_series_ok("6.1/x"));
	assert_false(sp_lab_series_ok(""));
	assert_false(sp_lab_series_ok(NULL));
	assert_int_equal(sp_lab_current_link("6.12", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "current-6.12");
	assert_int_equal(sp_lab_current_link(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "current");
	assert_int_equal(sp_lab_current_link("x", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sp_lab_current_link("6.12", buf, 8), -ENAMETOOLONG);
	assert_true(sp_lab_release_in_series("6.12.95+deb12-amd64", "6.12"));
	assert_true(sp_lab_release_in_series("6.1.0-57-amd64", "6.1"));
	/* 6.1 is no prefix of 6.12 */
	assert_false(sp_lab_release_in_series("6.12.95+deb12-amd64", "6.1"));
	assert_false(sp_lab_release_in_series("6.1.0-57-amd64", "6.12"));
	assert_false(sp_lab_release_in_series(NULL, "6.1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_tcg_no_nic_no_display),
		cmocka_unit_test(test_argv_root_share_is_readonly),
		cmocka_unit_test(test_argv_keep_share_is_mapped),
		cmocka_unit_test(test_argv_shell_uses_stdio),
		cmocka_unit_test(test_argv_rejects_bad_vm),
		cmocka_unit_test(test_commas_in_paths_are_doubled),
		cmocka_unit_test(test_env_passes),
		cmocka_unit_test(test_job_script_survives_shell),
		cmocka_unit_test(test_agent_job_carries_no_caller_env),
		cmocka_unit_test(test_env_list_check),
		cmocka_unit_test(test_job_script_missing_cwd_fails),
		cmocka_unit_test(test_shell_rcfile_has_no_exec),
		cmocka_unit_test(test_config_is_sourceable),
		cmocka_unit_test(test_engine_and_time_are_the_guests),
		cmocka_unit_test(test_parse_status),
		cmocka_unit_test(test_kernel_series),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
