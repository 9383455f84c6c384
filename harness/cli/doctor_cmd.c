/* slowpath doctor: one line per thing the kernel stack needs, then
 * whether it runs here (natively) or in the lab VM. */
#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/opttab.h"
#include "harness/cli/commands.h"
#include "lab/doctor_check.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct doctor_opts {
	int quiet;
	int native;
	int guest;
	int help;
};

static const struct sp_opt doctor_opttab[] = {
	{ .name = "quiet", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct doctor_opts, quiet),
	  .help = "print nothing; only the exit status tells" },
	{ .name = "native", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct doctor_opts, native),
	  .help = "exit 0 only if the kernel stack can run natively here" },
	{ .name = "guest", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct doctor_opts, guest),
	  .help = "check inside the running lab (slowpath lab start)" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct doctor_opts, help),
	  .help = "this text" },
	SP_OPT_END,
};

static int sys_read_file(void *ctx, const char *path, char **text)
{
	(void)ctx;
	return sp_file_read(path, SP_FILE_TEXT_MAX, text, NULL);
}

static int sys_access(void *ctx, const char *path, int mode)
{
	(void)ctx;
	return access(path, mode) ? -errno : 0;
}

static int sys_is_root(void *ctx)
{
	(void)ctx;
	return geteuid() == 0;
}

static int sys_kernel_release(void *ctx, char *buf, size_t len)
{
	struct utsname u;

	(void)ctx;
	if (uname(&u))
		return -errno;
	snprintf(buf, len, "%s", u.release);
	return 0;
}

/* build/ is where this binary lives: build/slowpath. */
static void find_build_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	buf[0] = '\0';
	if (n <= 0)
		return;
	exe[n] = '\0';
	snprintf(buf, len, "%s", dirname(exe));
}

static void print_report(const struct sp_doctor_report *report)
{
	char line[1024];
	size_t i;

	printf("kernel %s\n", report->release[0] ? report->release : "(unknown)");
	for (i = 0; i < report->n_items; i++) {
		sp_doctor_format_item(&report->items[i], line, sizeof(line));
		printf("%s\n", line);
	}
	sp_doctor_format_verdict(report, line, sizeof(line));
	printf("%s\n", line);
}

static const struct sp_doctor_ops sys_ops = {
	.read_file = sys_read_file,
	.access = sys_access,
	.is_root = sys_is_root,
	.kernel_release = sys_kernel_release,
};

int sp_cli_native_ok(void)
{
	struct sp_doctor_report report;
	struct sp_doctor_env env;
	char build_dir[PATH_MAX];

	find_build_dir(build_dir, sizeof(build_dir));
	env.path_env = getenv("PATH");
	env.build_dir = build_dir;
	return !sp_doctor_run(&sys_ops, &env, &report) && report.ready &&
	       report.mode == SP_MODE_NATIVE;
}

int cmd_doctor(int argc, char **argv)
{
	struct sp_doctor_ops ops = {
		.read_file = sys_read_file,
		.access = sys_access,
		.is_root = sys_is_root,
		.kernel_release = sys_kernel_release,
	};
	struct doctor_opts opts;
	struct sp_doctor_report report;
	struct sp_doctor_env env;
	char err[SP_OPT_ERRLEN], build_dir[PATH_MAX];
	int next, ret;

	memset(&opts, 0, sizeof(opts));
	sp_opt_set_defaults(doctor_opttab, &opts);
	ret = sp_opt_parse_argv(doctor_opttab, &opts, argc, argv, 1, &next,
				err, sizeof(err));
	if (ret) {
		sp_err("doctor: %s", err);
		return SP_EXIT_USAGE;
	}
	if (next < argc) {
		sp_err("doctor: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (opts.help) {
		char help[1024];

		sp_opt_help_argv(doctor_opttab, help, sizeof(help));
		printf("usage: slowpath doctor [--quiet] [--native] [--guest]\n"
		       "Lists the kernel pieces and programs slowpath needs and "
		       "says whether it runs natively or in the lab.\n"
		       "Exit 0 when the chosen mode has all it needs, 2 otherwise.\n%s",
		       help);
		return SP_EXIT_OK;
	}
	find_build_dir(build_dir, sizeof(build_dir));
	env.path_env = getenv("PATH");
	env.build_dir = build_dir;
	ret = sp_doctor_run(&ops, &env, &report);
	if (ret) {
		if (!opts.quiet)
			sp_err("doctor: %s", strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	if (!opts.quiet)
		print_report(&report);
	if (!report.ready)
		return SP_EXIT_ENV;
	if (opts.native && report.mode != SP_MODE_NATIVE)
		return SP_EXIT_ENV;
	return SP_EXIT_OK;
}
