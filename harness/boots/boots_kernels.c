/* slowpath run --kernels (boots.h): one lab run (lab_life.h) on qemu
 * with --kernel K per kernel, each bringing the topology up, running the
 * cases into OUT/K and taking it down; then OUT/cases holds every
 * kernel's cases (K-<stem>.json) and the report puts the kernels side
 * by side. */
#include "harness/boots/boots.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "dm/selector.h"
#include "harness/report/render_kernels.h"
#include "lab/lab_life.h"
#include "lab/lab_vm.h"
#include "lab/selector_build.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KERNELS SP_RENDER_MAX_KERNELS

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

/* One lab run of the cases on series: its exit code. */
static int boot_one(const char *series, const struct sp_run_cli *cli,
		    const char *out, const char *exe, int argc, char **argv)
{
	/* Debian's kernels as they ship, side by side; the rest as lab
	 * run's defaults */
	struct sp_lab_guest_opts o = {
		.ask = { .kernel = series, .engine = "qemu", .cpus = cli->lab_cpus },
		.timeout = -1, .keep = out,
	};
	char kout[PATH_MAX + 16];
	char **guest;
	int ng, rc;

	if (sp_parse_size_bytes(SP_LAB_MEM_DEFAULT, &o.mem))
		return SP_EXIT_RUNTIME;
	(void)sp_snprintf(kout, sizeof(kout), "%s/%s", out, series);
	guest = sp_run_boot_guest_argv(cli, exe, argc, argv, NULL, NULL, kout, &ng);
	if (!guest)
		return SP_EXIT_RUNTIME;
	sp_info("run: kernel %s: one lab boot, results in %s", series, kout);
	rc = sp_lab_guest(&sp_lab_engines, SP_LAB_RUN, &o, guest);
	free(guest);
	return rc;
}

/* Each series named once, a series, prepared, and every selector stock
 * or built for its kernel; then the store of the first kernel loaded
 * (every kernel has every name). 0 or an exit code, said. */
static int check_kernels(const struct sp_run_cli *cli,
			 char series[][SP_RUN_ITEMLEN], size_t nk)
{
	char err[SP_SELBUILD_ERRLEN];
	struct sp_selector_target t;
	size_t i, j;
	int rc;

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
	return 0;
}

/* One boot a kernel, each one's cases merged as it ends: the worst exit
 * code, *total the cases merged. */
static int boot_all(const struct sp_run_cli *cli, char series[][SP_RUN_ITEMLEN],
		    size_t nk, const char *out, const char *exe, int argc,
		    char **argv, int *total)
{
	char prefix[SP_RUN_ITEMLEN + 2];
	int rc, worst = 0, merged;
	size_t i;

	*total = 0;
	for (i = 0; i < nk; i++) {
		rc = boot_one(series[i], cli, out, exe, argc, argv);
		if (rc)
			sp_err("run: kernel %s: exit %d (its lab console log is "
			       "under the lab's logs/)", series[i], rc);
		if (rc > worst)
			worst = rc;
		(void)sp_snprintf(prefix, sizeof(prefix), "%s-", series[i]);
		merged = sp_run_boot_merge(out, series[i], prefix);
		if (merged > 0)
			*total += merged;
	}
	return worst;
}

int sp_boots_run_kernels(const struct sp_run_cli *cli, int argc, char **argv)
{
	char series[MAX_KERNELS][SP_RUN_ITEMLEN], out[PATH_MAX], exe[PATH_MAX];
	char err[SP_SELBUILD_ERRLEN];
	struct sp_run_plan plan;
	size_t nk;
	int rc, worst, total;

	rc = sp_run_boot_refuse(cli, "--kernels");
	if (rc)
		return rc;
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
	rc = check_kernels(cli, series, nk);
	if (rc)
		return rc;
	/* the rest of the matrix is checked here, before any boot */
	if (sp_run_plan_from_cli(cli, &plan, err, sizeof(err))) {
		sp_err("run: %s", err);
		return SP_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		sp_err("run: --kernels boots the lab, which needs root");
		return SP_EXIT_ENV;
	}
	rc = sp_run_boot_outdir(cli, "kernels", out, sizeof(out), exe, sizeof(exe));
	if (rc)
		return rc;
	worst = boot_all(cli, series, nk, out, exe, argc, argv, &total);
	if (!total) {
		sp_err("run: no kernel produced cases");
		return worst ? worst : SP_EXIT_RUNTIME;
	}
	rc = sp_run_boot_report(out);
	sp_info("run: %d cases on %zu kernels in %s ('slowpath report %s')",
		total, nk, out, out);
	return worst ? worst : rc;
}
