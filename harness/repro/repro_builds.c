/* OUT/builds.md from two reproductions already run (`reproduce
 * --report-only --out OUT --builds DIR`): the stock build's in OUT and
 * the 5.8 build's in DIR, every point side by side as --hst 5.8:auto
 * writes it after its fit. Each folder's HST cases must say which build
 * ran them, so a swapped or mixed pair is refused, not compared. */
#include "harness/repro/repro_fit.h"
#include "harness/repro/repro_run.h"

#include "common/strbuf.h"
#include "common/units.h"
#include "harness/measure/case_result.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0 when every HST case of cases ran build (and, for 5.8, one skew,
 * into *skew_ns); -EINVAL with err naming the first that did not. */
static int one_build(const char *dir, const char *build,
		     const struct sp_case_result *cases, size_t n,
		     int64_t *skew_ns, char *err, size_t errlen)
{
	size_t i, hst = 0;
	int is58 = !strcmp(build, "5.8");

	for (i = 0; i < n; i++) {
		const struct sp_case_env *e = &cases[i].env;

		if (strcmp(sp_selector_short(cases[i].selector), "hst"))
			continue;
		if (strcmp(e->hst_build, build) || (is58 && !e->has_hst_skew))
			return sp_errf(err, errlen, -EINVAL, "%s: %s %s qd %d "
				       "ran HST build '%s', not %s", dir,
				       cases[i].topology, cases[i].rw,
				       cases[i].iodepth, e->hst_build, is58 ?
				       "5.8 with its skew recorded" : build);
		if (is58 && hst && e->hst_skew_ns != *skew_ns)
			return sp_errf(err, errlen, -EINVAL, "%s: its 5.8 runs "
				       "are of more than one skew (%s %s qd %d)",
				       dir, cases[i].topology, cases[i].rw,
				       cases[i].iodepth);
		if (is58)
			*skew_ns = e->hst_skew_ns;
		hst++;
	}
	return hst ? 0 : sp_errf(err, errlen, -ENOENT, "%s: no HST case",
				 dir);
}

int sp_repro_builds_from(const char *out, const char *dir58,
			 const struct sp_reference *ref,
			 const struct sp_repro_plan *plan,
			 struct sp_repro_builds_tally *tally, char *err,
			 size_t errlen)
{
	struct sp_case_result *stock = NULL, *b58 = NULL;
	size_t n_stock = 0, n_58 = 0;
	char path[4096], skew[32];
	int64_t skew_ns = 0;
	FILE *md = NULL;
	int ret;

	ret = sp_repro_runs_load(out, &stock, &n_stock);
	if (!ret)
		ret = sp_repro_runs_load(dir58, &b58, &n_58);
	if (ret)
		sp_errf(err, errlen, ret, "cannot load the runs: %s",
			strerror(-ret));
	if (!ret)
		ret = one_build(out, "stock", stock, n_stock, NULL, err, errlen);
	if (!ret)
		ret = one_build(dir58, "5.8", b58, n_58, &skew_ns, err, errlen);
	if (!ret && (size_t)snprintf(path, sizeof(path), "%s/builds.md", out) >=
		    sizeof(path))
		ret = sp_errf(err, errlen, -ENAMETOOLONG, "%s: too long", out);
	/* a new file: an earlier comparison is never written over */
	if (!ret && !(md = sp_repro_fopen_new(path)))
		ret = sp_errf(err, errlen, -errno, "%s: %s", path,
			      strerror(errno));
	if (!ret) {
		sp_format_duration(skew_ns, skew, sizeof(skew));
		ret = sp_repro_builds_write(md, ref, plan, stock, n_stock, b58,
					    n_58, skew, NULL, 0, 0, tally);
		if (ret)
			sp_errf(err, errlen, ret, "%s: a planned point cannot "
				"be judged", path);
	}
	if (md && fclose(md) && !ret)
		ret = sp_errf(err, errlen, -EIO, "%s: %s", path, strerror(EIO));
	free(stock);
	free(b58);
	return ret;
}
