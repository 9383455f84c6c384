/* What run --kernels and run --jobs share (boots.h): the guest's command
 * line, the merge of every guest's cases and the one report. */
#include "harness/boots/boots.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/strbuf.h"
#include "harness/report/render.h"
#include "harness/report/render_kernels.h"
#include "harness/report/render_plot.h"
#include "harness/run/run_loop.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What each boot runs: our binary brings the topology up, runs the
 * cases and takes it down again, whatever the run did. The values come
 * as arguments, never inside the script text. */
static const char guest_script[] =
	"S=$1; T=$2; U=$3; shift 3; "
	"if [ -n \"$U\" ]; then \"$S\" up \"$T\" --unit \"$U\"; "
	"else \"$S\" up \"$T\"; fi || exit $?; "
	"\"$S\" run \"$@\"; rc=$?; \"$S\" down; exit $rc";

/* Options that are the host's, not the guest run's, and skip. */
static int own_option(const char *arg, const char *skip, int *takes_value)
{
	static const char *const own[] = {
		"--kernels", "--topology", "--unit", "--lab-cpus", "--out",
		"--jobs",
	};
	size_t i, n;

	for (i = 0; i <= sizeof(own) / sizeof(own[0]); i++) {
		const char *name = i < sizeof(own) / sizeof(own[0]) ? own[i] : skip;

		if (!name)
			continue;
		n = strlen(name);
		if (!strncmp(arg, name, n) && (!arg[n] || arg[n] == '=')) {
			*takes_value = !arg[n];
			return 1;
		}
	}
	return 0;
}

char **sp_run_boot_guest_argv(const struct sp_run_cli *cli, const char *exe,
			      int argc, char **argv, const char *skip,
			      const char *const *extra, const char *dir,
			      int *n)
{
	size_t n_extra = 0;
	char **v;
	int i, takes;

	while (extra && extra[n_extra])
		n_extra++;
	v = calloc((size_t)argc + n_extra + 12, sizeof(*v));
	if (!v)
		return NULL;
	*n = 0;
	v[(*n)++] = "/bin/sh";
	v[(*n)++] = "-c";
	v[(*n)++] = (char *)guest_script;
	v[(*n)++] = "sh";
	v[(*n)++] = (char *)exe;
	v[(*n)++] = (char *)cli->topology;
	v[(*n)++] = (char *)(cli->unit ? cli->unit : "");
	for (i = 1; i < argc; i++) {
		if (own_option(argv[i], skip, &takes)) {
			i += takes;
			continue;
		}
		v[(*n)++] = argv[i];
	}
	while (extra && *extra)
		v[(*n)++] = (char *)*extra++;
	v[(*n)++] = "--out";
	v[(*n)++] = (char *)dir;
	v[*n] = NULL;
	return v;
}

int sp_run_boot_refuse(const struct sp_run_cli *cli, const char *how)
{
	const char *what = cli->n_faults ? "--fault" :
			   cli->timeline ? "--timeline" :
			   cli->verify ? "--verify" : NULL;

	if (!what)
		return 0;
	/* the guests' timelines are not merged (and would collide), so
	 * the merged report could not show them: refused, never dropped */
	sp_err("run: %s %s: refused; --kernels and --jobs take no --fault, "
	       "--timeline or --verify, since their guests' timelines are not "
	       "merged into one run (docs/run.md). Run such cases on one "
	       "topology: 'slowpath up T', then 'slowpath run %s ...'", how,
	       what, what);
	return SP_EXIT_USAGE;
}

int sp_run_boot_merge(const char *out, const char *sub, const char *prefix)
{
	char dir[PATH_MAX], from[PATH_MAX + 300], to[PATH_MAX + 300], *text;
	struct dirent *de;
	size_t len, n;
	int count = 0, ret = 0;
	DIR *d;

	(void)sp_snprintf(dir, sizeof(dir), "%s/%s/cases", out, sub);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && !ret) {
		n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".json") ||
		    de->d_name[0] == '.')
			continue;
		(void)sp_snprintf(from, sizeof(from), "%s/%s", dir, de->d_name);
		(void)sp_snprintf(to, sizeof(to), "%s/cases/%s%s", out, prefix,
				  de->d_name);
		ret = sp_file_read_opt(from, SP_FILE_TEXT_MAX, SP_FILE_NOFOLLOW |
				       SP_FILE_REGULAR, &text, &len);
		if (!ret) {
			/* never over a case already merged */
			ret = sp_file_write_atomic_opt(to, text, len, 0644,
						       SP_FILE_NOREPLACE);
			free(text);
		}
		if (ret)
			sp_err("run: cannot copy %s to %s: %s", from, to,
			       strerror(-ret));
		else
			count++;
	}
	closedir(d);
	return ret ? ret : count;
}

int sp_run_boot_outdir(const struct sp_run_cli *cli, const char *suffix,
		       char *out, size_t outlen, char *exe, size_t exelen)
{
	char err[SP_OUTDIR_ERRLEN], cases[PATH_MAX + 8];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	if (cli->out)
		(void)sp_snprintf(out, outlen, "%s", cli->out);
	else
		snprintf(out, outlen, "results/%04d%02d%02d-%02d%02d%02d-%s",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, suffix);
	if (sp_outdir_check(out, SP_OUTDIR_CREATE | SP_OUTDIR_EMPTY, err,
			    sizeof(err))) {
		sp_err("run: --out %s", err);
		return SP_EXIT_USAGE;
	}
	if (exelen < PATH_MAX || !realpath(out, exe) ||
	    sp_snprintf(out, outlen, "%s", exe) < 0 ||
	    !realpath("/proc/self/exe", exe)) {
		sp_err("run: cannot resolve %s: %s", out, strerror(errno));
		return SP_EXIT_RUNTIME;
	}
	(void)sp_snprintf(cases, sizeof(cases), "%s/cases", out);
	if (mkdir(cases, 0755)) {
		sp_err("run: cannot create %s: %s", cases, strerror(errno));
		return SP_EXIT_RUNTIME;
	}
	return 0;
}

int sp_run_boot_report(const char *out)
{
	struct sp_case_result *cases = NULL;
	size_t n = 0;
	int ret;

	ret = sp_case_load_dir(out, &cases, &n);
	if (ret)
		return SP_EXIT_RUNTIME;
	if (sp_run_save_reports(out, cases, n, &sp_plot_exec_gnuplot))
		sp_warn("reports or plots in %s are incomplete", out);
	if (sp_case_kernels(cases, n, (const char *[SP_RENDER_MAX_KERNELS]){ 0 },
			    SP_RENDER_MAX_KERNELS) > 1) {
		printf("==== kernels side by side: each path's share (%%, * slow), "
		       "the slow paths' share, IOPS ====\n\n");
		sp_render_kernels(stdout, SP_FMT_TEXT, cases, n);
	}
	free(cases);
	return 0;
}
