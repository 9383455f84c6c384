/* slowpath run --kernels (run_kernels.h): one `slowpath lab run
 * --kernel K` per kernel, each bringing the topology up, running the
 * cases into OUT/K and taking it down; then OUT/cases holds every
 * kernel's cases (K-<stem>.json) and the report puts the kernels side
 * by side. */
#include "harness/cli/run_kernels.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/outdir.h"
#include "common/strbuf.h"
#include "dm/selector.h"
#include "harness/cli/commands.h"
#include "harness/report/render.h"
#include "harness/report/render_kernels.h"
#include "harness/report/render_plot.h"
#include "harness/run/run_loop.h"
#include "lab/lab_vm.h"
#include "lab/selector_build.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_KERNELS SP_RENDER_MAX_KERNELS

/* What each boot runs: our binary brings the topology up, runs the
 * cases and takes it down again, whatever the run did. The values come
 * as arguments, never inside the script text. */
static const char guest_script[] =
	"S=$1; T=$2; U=$3; shift 3; "
	"if [ -n \"$U\" ]; then \"$S\" up \"$T\" --unit \"$U\"; "
	"else \"$S\" up \"$T\"; fi || exit $?; "
	"\"$S\" run \"$@\"; rc=$?; \"$S\" down; exit $rc";

/* Options that are ours, not the guest run's. */
static int own_option(const char *arg, int *takes_value)
{
	static const char *const own[] = {
		"--kernels", "--topology", "--unit", "--lab-cpus", "--out",
	};
	size_t i, n;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		n = strlen(own[i]);
		if (!strncmp(arg, own[i], n) && (!arg[n] || arg[n] == '=')) {
			*takes_value = !arg[n];
			return 1;
		}
	}
	return 0;
}

static int split(const char *text, char items[][SP_RUN_ITEMLEN], size_t max,
		 size_t *n)
{
	const char *p = text, *end;
	size_t len;

	*n = 0;
	while (*p) {
		end = strchrnul(p, ',');
		len = (size_t)(end - p);
		if (!len || len >= SP_RUN_ITEMLEN || *n == max)
			return -EINVAL;
		memcpy(items[*n], p, len);
		items[(*n)++][len] = '\0';
		p = *end ? end + 1 : end;
	}
	return *n ? 0 : -EINVAL;
}

/* Every selector named must be stock or built for that kernel. */
static int check_selectors(const char *list, const char *series,
			   const char *release)
{
	char items[SP_RUN_MAX_LIST][SP_RUN_ITEMLEN];
	enum sp_selector kind;
	size_t n, i;

	if (split(list, items, SP_RUN_MAX_LIST, &n)) {
		sp_err("run: bad --selectors '%s'", list);
		return SP_EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		if (!sp_selector_parse(items[i], &kind) && kind < SP_SEL_COUNT)
			continue;
		if (sp_selector_store_has(release, items[i]))
			continue;
		sp_err("run: selector '%s' is neither stock (%s) nor built for "
		       "kernel %s (slowpath selector build FILE.c --kernel %s)",
		       items[i], "st, hst, ql, rr, ioa", release, series);
		return SP_EXIT_USAGE;
	}
	return 0;
}

/* OUT/K/cases/X.json -> OUT/cases/K-X.json */
static int merge_cases(const char *out, const char *series)
{
	char sub[PATH_MAX], from[PATH_MAX + 300], to[PATH_MAX + 300], *text;
	struct dirent *de;
	size_t len, n;
	int count = 0, ret = 0;
	DIR *d;

	(void)sp_snprintf(sub, sizeof(sub), "%s/%s/cases", out, series);
	d = opendir(sub);
	if (!d)
		return 0;
	while ((de = readdir(d)) && !ret) {
		n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".json") ||
		    de->d_name[0] == '.')
			continue;
		(void)sp_snprintf(from, sizeof(from), "%s/%s", sub, de->d_name);
		(void)sp_snprintf(to, sizeof(to), "%s/cases/%s-%s", out, series,
				  de->d_name);
		ret = sp_file_read_opt(from, SP_FILE_TEXT_MAX, SP_FILE_NOFOLLOW |
				       SP_FILE_REGULAR, &text, &len);
		if (!ret) {
			ret = sp_file_write_atomic(to, text, len, 0644);
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

static int boot_one(const char *series, const struct sp_run_cli *cli,
		    const char *out, const char *exe, int argc, char **argv)
{
	char cpus[24], kout[PATH_MAX + 16];
	const char *unit = cli->unit ? cli->unit : "";
	char **v = calloc((size_t)argc + 24, sizeof(*v));
	int n = 0, i, takes, rc;

	if (!v)
		return SP_EXIT_RUNTIME;
	snprintf(cpus, sizeof(cpus), "%lld", (long long)cli->lab_cpus);
	(void)sp_snprintf(kout, sizeof(kout), "%s/%s", out, series);
	v[n++] = "lab";
	v[n++] = "run";
	/* Debian's kernels as they ship, side by side */
	v[n++] = "--engine";
	v[n++] = "qemu";
	v[n++] = "--kernel";
	v[n++] = (char *)series;
	v[n++] = "--cpus";
	v[n++] = cpus;
	v[n++] = "--keep";
	v[n++] = (char *)out;
	v[n++] = "--";
	v[n++] = "/bin/sh";
	v[n++] = "-c";
	v[n++] = (char *)guest_script;
	v[n++] = "sh";
	v[n++] = (char *)exe;
	v[n++] = (char *)cli->topology;
	v[n++] = (char *)unit;
	for (i = 1; i < argc; i++) {
		if (own_option(argv[i], &takes)) {
			i += takes;
			continue;
		}
		v[n++] = argv[i];
	}
	v[n++] = "--out";
	v[n++] = kout;
	v[n] = NULL;
	sp_info("run: kernel %s: one lab boot, results in %s", series, kout);
	rc = cmd_lab(n, v);
	free(v);
	return rc;
}

static int report(const char *out, size_t nk)
{
	struct sp_case_result *cases = NULL;
	size_t n = 0;
	int ret;

	ret = sp_case_load_dir(out, &cases, &n);
	if (ret)
		return SP_EXIT_RUNTIME;
	if (sp_run_save_reports(out, cases, n, &sp_plot_exec_gnuplot))
		sp_warn("reports or plots in %s are incomplete", out);
	if (nk > 1 && sp_case_kernels(cases, n, (const char *[MAX_KERNELS]){ 0 },
				      MAX_KERNELS) > 1) {
		printf("==== kernels side by side: each path's share (%%, * slow), "
		       "the slow paths' share, IOPS ====\n\n");
		sp_render_kernels(stdout, SP_FMT_TEXT, cases, n);
	}
	free(cases);
	return 0;
}

int sp_cli_run_kernels(const struct sp_run_cli *cli, int argc, char **argv)
{
	char series[MAX_KERNELS][SP_RUN_ITEMLEN], out[PATH_MAX], exe[PATH_MAX];
	char err[SP_SELBUILD_ERRLEN], oerr[SP_OUTDIR_ERRLEN];
	struct sp_selector_target t;
	struct sp_run_plan plan;
	size_t nk, i, j;
	int rc, worst = 0, merged, total = 0;
	time_t now = time(NULL);
	struct tm tm;

	if (!cli->topology) {
		sp_err("run: --kernels needs --topology NAME: each boot brings "
		       "it up");
		return SP_EXIT_USAGE;
	}
	if (split(cli->kernels, series, MAX_KERNELS, &nk)) {
		sp_err("run: bad --kernels '%s': a comma list of kernel series",
		       cli->kernels);
		return SP_EXIT_USAGE;
	}
	for (i = 0; i < nk; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(series[i], series[j])) {
				sp_err("run: --kernels names %s twice", series[i]);
				return SP_EXIT_USAGE;
			}
		if (!sp_lab_series_ok(series[i])) {
			sp_err("run: --kernels: '%s' is not a kernel series such "
			       "as 6.1 or 6.12", series[i]);
			return SP_EXIT_USAGE;
		}
		if (sp_selector_target(series[i], &t, err, sizeof(err))) {
			sp_err("run: %s", err);
			return SP_EXIT_ENV;
		}
		rc = check_selectors(cli->selectors, series[i], t.release);
		if (rc)
			return rc;
		/* every kernel has every name (just checked): one kernel's
		 * store tells the matrix parser all of them */
		if (!i)
			sp_selector_store_load_release(t.release);
	}
	/* the rest of the matrix is checked here, before any boot */
	if (sp_run_plan_from_cli(cli, &plan, err, sizeof(err))) {
		sp_err("run: %s", err);
		return SP_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		sp_err("run: --kernels boots the lab, which needs root");
		return SP_EXIT_ENV;
	}
	gmtime_r(&now, &tm);
	if (cli->out)
		(void)sp_snprintf(out, sizeof(out), "%s", cli->out);
	else
		snprintf(out, sizeof(out), "results/%04d%02d%02d-%02d%02d%02d-kernels",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (sp_outdir_check(out, SP_OUTDIR_CREATE | SP_OUTDIR_EMPTY, oerr,
			    sizeof(oerr))) {
		sp_err("run: --out %s", oerr);
		return SP_EXIT_USAGE;
	}
	if (!realpath(out, exe) || sp_snprintf(out, sizeof(out), "%s", exe) < 0 ||
	    !realpath("/proc/self/exe", exe)) {
		sp_err("run: cannot resolve %s: %s", out, strerror(errno));
		return SP_EXIT_RUNTIME;
	}
	(void)sp_snprintf(err, sizeof(err), "%s/cases", out);
	if (mkdir(err, 0755)) {
		sp_err("run: cannot create %s: %s", err, strerror(errno));
		return SP_EXIT_RUNTIME;
	}
	for (i = 0; i < nk; i++) {
		rc = boot_one(series[i], cli, out, exe, argc, argv);
		if (rc)
			sp_err("run: kernel %s: exit %d (its lab console log is "
			       "under the lab's logs/)", series[i], rc);
		if (rc > worst)
			worst = rc;
		merged = merge_cases(out, series[i]);
		if (merged > 0)
			total += merged;
	}
	if (!total) {
		sp_err("run: no kernel produced cases");
		return worst ? worst : SP_EXIT_RUNTIME;
	}
	rc = report(out, nk);
	sp_info("run: %d cases on %zu kernels in %s ('slowpath report %s')",
		total, nk, out, out);
	return worst ? worst : rc;
}
