/* The report of `slowpath reproduce`: every measured point beside the
 * published one (TVD, slow share, the conclusion), what each run ran
 * under (k, CPU, calibration, standard error), lab-shaped points kept
 * out of the count, plots. */
#include "harness/repro/repro_run.h"

#include "common/log.h"
#include "common/outdir.h"
#include "common/strbuf.h"
#include "harness/measure/case_result.h"
#include "harness/measure/result_file.h"
#include "harness/report/render_plot.h"
#include "harness/repro/repro_compare.h"
#include "harness/repro/repro_point.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tally {
	int points, verdicts_held, targets, targets_met, missing, flagged;
	/* measured points counted as findings (not lab-shaped) where the
	 * experiment claims something, and of them those whose verdict is
	 * the published table's */
	int counted, agreed;
	/* planned points where the experiment claims something, and of
	 * them those whose published shares bear the conclusion out: the
	 * table's own, whatever was measured */
	int published_claims, published_held;
	/* the shares' standard error: runs within SP_ENV_SHARE_SE_MAX,
	 * runs whose error came from batch means, and the largest */
	int se_runs, se_within, se_batch_runs;
	double se_worst;
	char se_worst_case[96];
};

static void tally_se(struct tally *tally, const struct sp_case_result *c,
		     const char *point)
{
	double se = sp_case_share_se(c, NULL);

	tally->se_runs++;
	tally->se_within += se <= SP_ENV_SHARE_SE_MAX;
	tally->se_batch_runs += c->env.se_batches > 0;
	if (se > tally->se_worst) {
		tally->se_worst = se;
		snprintf(tally->se_worst_case, sizeof(tally->se_worst_case),
			 "%s %s", point, sp_selector_short(c->selector));
	}
}

/* What one run ran under, and whether it is a finding at all: a lab
 * that was saturated or delays that missed their calibration make a
 * case lab-shaped. 1 when flagged. */
static int env_line(FILE *md, const char *name, const struct sp_case_result *c)
{
	const struct sp_case_env *e = &c->env;
	double worst = 0, se;
	char why[256], machine[512];
	size_t i;
	int flagged;

	if (!e->recorded)
		return 0;
	for (i = 0; i < c->n_paths; i++)
		if (e->has_resid[i] && fabs(e->resid[i]) > fabs(worst))
			worst = e->resid[i];
	se = sp_case_share_se(c, NULL);
	flagged = sp_case_env_flagged(e, c->n_paths, why, sizeof(why));
	fprintf(md, "\n%s ran under: k=%llu, CPU ", name,
		(unsigned long long)e->scale);
	if (e->cpu_util < 0)
		fprintf(md, "not sampled");
	else
		fprintf(md, "%.0f%%", 100 * e->cpu_util);
	sp_case_env_machine(e, machine, sizeof(machine));
	fprintf(md, ", %s, HST %s", machine, e->hst);
	if (e->warmup_s)
		fprintf(md, ", warm-up %u s", e->warmup_s);
	fprintf(md, ", calibration residual up to %+.1f%%, "
		"shares' standard error up to %.2f pp (%s)%s", 100 * worst,
		100 * se, e->se_batches ? "batch means" : "binomial",
		se > SP_ENV_SHARE_SE_MAX ?
		" (over 0.5 pp: a longer --runtime would narrow it)" : "");
	if (flagged)
		fprintf(md, "; **lab-shaped**: %s", why);
	return flagged;
}

/* What `--scale` chose (OUT/scale.txt, written by repro_scaled.c), read
 * before the report is begun: *text NULL when there is none. 0, or
 * -errno with one message for a file that is not a result file. */
static int read_scaling(const char *out, char **text)
{
	char path[PATH_MAX];
	int ret;

	*text = NULL;
	if (sp_repro_path_printf(path, sizeof(path), "%s/scale.txt", out))
		return -ENAMETOOLONG;
	ret = sp_result_file_read(path, 1 << 20, text, NULL);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		sp_err("reproduce: %s: %s", path, sp_result_file_why(ret));
	return ret;
}

static void scaling_section(FILE *md, const char *plan_text, int exact)
{
	if (!plan_text)
		return;
	if (exact)
		fprintf(md, "\n## Scaling\n\nNone: on exact time every delay, "
			"the published base included, is injected as published "
			"(k = 1) and each path's residual checked once (within "
			"1 %%); HST with its stock bucket_shift 24. The plan:\n\n```\n");
	else
		fprintf(md, "\n## Scaling\n\nEvery delay, the published base "
			"included, times k (per topology and iodepth, from the "
			"measured capacity unless given), injected less this setup's "
			"own cost and calibrated closed loop; HST loaded with "
			"bucket_shift 24 + log2 k. What was chosen:\n\n```\n");
	fputs(plan_text, md);
	fprintf(md, "```\n");
}

static const char *target_mark(const struct sp_repro_row *row)
{
	if (row->tvd_target < 0)
		return "";
	return row->meets_target ? " ok" : " **missed**";
}

/* The per-path table and the TVD lines of a measured point. */
static void point_details(FILE *md, const struct sp_repro_point *pt,
			  struct tally *tally)
{
	size_t i;

	fprintf(md, "| path (published / here) | ST published | ST measured | HST published | HST measured |\n"
		    "|---|---:|---:|---:|---:|\n");
	for (i = 0; i < pt->st.n_paths; i++)
		fprintf(md, "| %zu (%s / %s) | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
			i + 1, pt->p_st->paths[i].dev, pt->m_st->path[i].name,
			100 * pt->st.published_share[i],
			100 * pt->st.measured_share[i],
			100 * pt->hst.published_share[i],
			100 * pt->hst.measured_share[i]);
	fprintf(md, "| slow paths | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
		100 * pt->st.slow_published, 100 * pt->st.slow_measured,
		100 * pt->hst.slow_published, 100 * pt->hst.slow_measured);
	for (i = 0; i < 2; i++) {
		const struct sp_repro_row *row = i ? &pt->hst : &pt->st;

		fprintf(md, "\n%s: TVD %.3f", i ? "HST" : "ST", row->tvd);
		if (row->tvd_target >= 0) {
			tally->targets++;
			tally->targets_met += row->meets_target;
			fprintf(md, " (target <= %.2f: %s)", row->tvd_target,
				row->meets_target ? "met" : "missed");
		}
	}
}

/* The conclusion column and the verdict line of a measured point. */
static void point_verdict(FILE *summary, FILE *md, const struct sp_repro_point *pt,
			  int flagged, struct tally *tally)
{
	const struct sp_repro_verdict *v = &pt->verdict, *pv = &pt->published;

	if (!pt->claimed) {
		fprintf(summary, " - |\n");
		return;
	}
	if (flagged) {
		/* not a finding: the lab's shape, not the selectors' */
		fprintf(summary, " lab-shaped (%s) |\n",
			v->holds ? "holds" : "does not hold");
	} else {
		fprintf(summary, " %s%s |\n", v->holds ? "holds" : "**does not hold**",
			pv->holds ? "" : v->holds ? " (the published table: does not)"
						  : " (nor in the published table)");
		tally->counted++;
		tally->verdicts_held += v->holds;
		tally->agreed += v->holds == pv->holds;
	}
	/* a lab-shaped point's too, with its why: what the selectors did
	 * was measured, only its weight as a finding is not */
	fprintf(md, "\n\nVerdict%s: **%s** — %s: %s.\n",
		flagged ? ", lab-shaped and so not a finding" : "",
		v->holds ? "holds" : "does not hold",
		sp_repro_claim_text(v->claim), v->why);
	if (!pv->holds)
		fprintf(md, "The published table does not bear it out "
			"here either: %s.\n", pv->why);
}

/* One line of the summary table and one section of details. 0, or
 * -errno when the point cannot be judged (its published row missing):
 * the report is then not written. */
static int report_point(FILE *summary, FILE *md, const struct sp_reference *ref,
			const struct sp_case_result *cases, size_t n,
			const char *topo, enum sp_ref_rw rw, int qd,
			struct tally *tally)
{
	const char *rw_name = sp_ref_rw_name(rw);
	struct sp_repro_point pt;
	char point[80];
	int flagged, ret;

	ret = sp_repro_point_judge(ref, cases, n, topo, rw, qd, &pt);
	if (ret)
		return ret;
	/* the published table's verdict is its own, measured here or not */
	tally->published_claims += pt.claimed;
	tally->published_held += pt.claimed && pt.published.holds;
	fprintf(md, "\n### %s %s iodepth %d\n\n", topo, rw_name, qd);
	if (!pt.measured) {
		fprintf(md, "Not measured (the run did not finish).\n");
		fprintf(summary, "| %s %s %d | - | - | - | - | not measured |\n",
			topo, rw_name, qd);
		tally->missing++;
		return 0;
	}
	tally->points++;
	point_details(md, &pt, tally);
	flagged = env_line(md, "ST", pt.m_st);
	flagged |= env_line(md, "HST", pt.m_hst);
	tally->flagged += flagged;
	snprintf(point, sizeof(point), "%s %s %d", topo, rw_name, qd);
	tally_se(tally, pt.m_st, point);
	tally_se(tally, pt.m_hst, point);
	fprintf(summary, "| %s %s %d | %.1f / %.1f%% | %.1f / %.1f%% | %.3f%s | %.3f%s |",
		topo, rw_name, qd, 100 * pt.st.slow_published,
		100 * pt.st.slow_measured, 100 * pt.hst.slow_published,
		100 * pt.hst.slow_measured, pt.st.tvd, target_mark(&pt.st),
		pt.hst.tvd, target_mark(&pt.hst));
	point_verdict(summary, md, &pt, flagged, tally);
	return 0;
}

/* The cases of OUT/runs/NAME appended to *all, and (plot: a folder of
 * both selectors, not one case run again) their plots as
 * OUT/plots/NAME. 0 also when it holds none; -ENOMEM. */
static int load_run(const char *out, const char *name, int plots,
		    struct sp_case_result **all, size_t *n_all)
{
	struct sp_case_result *some, *grown;
	char path[PATH_MAX];
	size_t n, i;
	int st = 0, hst = 0;

	if (sp_repro_path_printf(path, sizeof(path), "%s/runs/%s", out, name) ||
	    sp_case_load_dir(path, &some, &n))
		return 0;
	grown = realloc(*all, (*n_all + n) * sizeof(**all));
	if (!grown) {
		free(some);
		return -ENOMEM;
	}
	*all = grown;
	memcpy(*all + *n_all, some, n * sizeof(*some));
	*n_all += n;
	free(some);
	for (i = *n_all - n; i < *n_all; i++) {
		st |= !strcmp(sp_selector_short((*all)[i].selector), "st");
		hst |= !strcmp(sp_selector_short((*all)[i].selector), "hst");
	}
	if (plots && st && hst &&
	    !sp_repro_path_printf(path, sizeof(path), "%s/plots/%s", out, name) &&
	    sp_plot_run(path, *all + *n_all - n, n, "st", "hst",
			&sp_plot_exec_gnuplot))
		sp_warn("reproduce: no plots for %s", path);
	return 0;
}

static int run_name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* A run folder of this tree's own: a directory, never a link to one
 * elsewhere, and no dot-name. */
static int run_folder(const char *runs, const char *name)
{
	char path[PATH_MAX];
	struct stat sb;

	return name[0] != '.' &&
	       !sp_repro_path_printf(path, sizeof(path), "%s/%s", runs, name) &&
	       !lstat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* Every run folder under OUT/runs into *all, in the order of their
 * names, whatever those names are: what each case ran (topology, rw,
 * iodepth, selector, k, engine) is the case file's own record, so a
 * folder renamed, or one whose "-kK" says another k than its cases,
 * is read for what its cases say. */
static int load_all_runs(const char *out, int plots,
			 struct sp_case_result **all, size_t *n_all)
{
	struct dirent **names = NULL;
	char runs[PATH_MAX];
	int count, i, ret = 0;

	if (sp_repro_path_printf(runs, sizeof(runs), "%s/runs", out))
		return 0;
	count = scandir(runs, &names, NULL, run_name_order);
	for (i = 0; i < count; i++) {
		if (!ret && run_folder(runs, names[i]->d_name))
			ret = load_run(out, names[i]->d_name, plots, all, n_all);
		free(names[i]);
	}
	free(names);
	return ret;
}

int sp_repro_runs_load(const char *out, struct sp_case_result **all,
		       size_t *n_all)
{
	*all = NULL;
	*n_all = 0;
	return load_all_runs(out, 0, all, n_all);
}

/* Every planned point into the summary table and the per-case text
 * (malloc'd), before report.md is begun: a point that cannot be judged
 * leaves no report. */
static int judge_plan(const struct sp_repro_plan *plan,
		      const struct sp_reference *ref,
		      const struct sp_case_result *all, size_t n_all,
		      struct tally *tally, char **summary_text, char **details_text)
{
	size_t summary_len = 0, details_len = 0, t, q;
	FILE *summary, *details;
	int rw, ret = 0;

	*summary_text = *details_text = NULL;
	summary = open_memstream(summary_text, &summary_len);
	details = open_memstream(details_text, &details_len);
	if (!summary || !details)
		ret = -ENOMEM;
	for (t = 0; t < SP_REPRO_N_TOPOS && !ret; t++)
		for (rw = 0; rw < SP_REF_N_RW && !ret; rw++)
			for (q = 0; q < SP_REPRO_N_QD && !ret; q++)
				if (plan->want[t][rw][q])
					ret = report_point(summary, details, ref,
							   all, n_all,
							   sp_repro_topologies[t],
							   rw, sp_repro_iodepths[q],
							   tally);
	if (summary)
		fclose(summary);
	if (details)
		fclose(details);
	if (ret) {
		free(*summary_text);
		free(*details_text);
		*summary_text = *details_text = NULL;
	}
	return ret;
}

/* Whether the runs were on exact time, as their cases recorded it
 * (every case with an engine on "exact"); cases from before the engine
 * was recorded leave it to the unit's text this reproduction wrote. */
static int runs_exact_time(const struct sp_case_result *all, size_t n_all,
			   const char *unit_text)
{
	int recorded = 0, exact = 1;
	size_t i;

	for (i = 0; i < n_all; i++) {
		if (!all[i].env.recorded || !all[i].env.engine[0])
			continue;
		recorded = 1;
		exact &= !strcmp(all[i].env.time, "exact");
	}
	return recorded ? exact : strstr(unit_text, "exact time") != NULL;
}

/* A counted run's size, from what fio did: the fewest I/Os of any case
 * (a noisy one ran again with more), 0 for none. */
static uint64_t fewest_ios(const struct sp_case_result *all, size_t n_all)
{
	uint64_t fewest = 0, ios;
	size_t i, d;

	for (i = 0; i < n_all; i++) {
		for (ios = 0, d = 0; d < SP_FIO_NDIR; d++)
			ios += all[i].fio.dir[d].ios;
		if (ios && (!fewest || ios < fewest))
			fewest = ios;
	}
	return fewest;
}

/* The machine the cases say they ran on, for a report whose
 * reproduce.info gives no mode: "?" when no case recorded one. */
static void runs_machine(const struct sp_case_result *all, size_t n_all,
			 char *buf, size_t len)
{
	char one[512];
	size_t i;

	snprintf(buf, len, "?");
	for (i = 0; i < n_all; i++) {
		if (!all[i].env.recorded)
			continue;
		sp_case_env_machine(&all[i].env, one, sizeof(one));
		if (!strcmp(buf, "?")) {
			snprintf(buf, len, "%s", one);
		} else if (strcmp(buf, one)) {
			snprintf(buf, len, "varied (each case's ran-under line "
				 "gives its own)");
			return;
		}
	}
}

static void write_summary(FILE *md, const struct tally *tally,
			  const char *summary_text, const char *details_text)
{
	fprintf(md, "\n## Summary\n\n%d of %d points measured; the published "
		"conclusion holds in %d of %d counted (in the published table "
		"itself: %d of %d); the verdict is the published table's in %d; "
		"%d lab-shaped (shown, not counted); %d of %d fidelity targets "
		"met.\n\n"
		"Slow paths' share published / measured; TVD is the total variation "
		"distance between the published and the measured spread over the "
		"paths (targets: ST at qd 1-2 <= 0.01, HST at qd 1-2 "
		"<= 0.05, qd 32-64 <= 0.08). The verdict is the published conclusion: "
		"HST moves I/O off the slow paths at low iodepth (>= %.0f pp less than "
		"ST), ST and HST converge at high iodepth (within %.0f pp), equal paths "
		"are spread evenly (within %.0f pp).\n\n"
		"The shares' standard error is within %.1f pp in %d of %d runs "
		"(%d of them by batch means over %d stretches of the run's "
		"timeline, the rest binomial); the largest is %.2f pp (%s).\n\n"
		"| case | ST slow share | HST slow share | TVD ST | TVD HST | conclusion |\n"
		"|---|---:|---:|---:|---:|---|\n%s\n%s## Per case\n%s",
		tally->points, tally->points + tally->missing, tally->verdicts_held,
		tally->counted, tally->published_held, tally->published_claims,
		tally->agreed, tally->flagged, tally->targets_met, tally->targets,
		100 * SP_REPRO_MOVED_MIN,
		100 * SP_REPRO_ALIKE_MAX, 100 * SP_REPRO_EVEN_MAX,
		100 * SP_ENV_SHARE_SE_MAX, tally->se_within, tally->se_runs,
		tally->se_batch_runs, SP_ENV_SE_BATCHES, 100 * tally->se_worst,
		tally->se_worst_case[0] ? tally->se_worst_case : "-",
		summary_text, tally->flagged ? "Lab-shaped points (a run whose "
		"CPU was over 50% busy or whose calibration ended outside +-3%) "
		"are not findings: their conclusion is shown, not counted.\n\n"
		: "", details_text);
}

/* The head of report.md: what ran, where, how long. */
static void write_head(FILE *md, const struct sp_repro_opts *o,
		       const struct sp_case_result *all, size_t n_all,
		       const char *unit_text, int64_t elapsed_s,
		       const char *mode, const char *host, const char *scaling)
{
	char machine[512], counted[64];
	int exact = runs_exact_time(all, n_all, unit_text);

	snprintf(counted, sizeof(counted), "%" PRIu64 " I/Os each",
		 fewest_ios(all, n_all));
	if (!mode) {
		runs_machine(all, n_all, machine, sizeof(machine));
		mode = machine;
	}
	fprintf(md, "# %s, reproduced by slowpath\n\n"
		"- mode: %s; machine: %s\n"
		"- delay unit: %s; runs: %s\n- cases: %s; took %" PRId64 " s\n",
		o->title, mode, host, unit_text,
		o->full ? "500M of 4k I/O each (the published size)" :
		exact ? counted : "time-based",
		o->cases ? o->cases : "all", elapsed_s);
	scaling_section(md, scaling, exact);
}

/* The closing line: what the report says, in one. */
static void say_tally(const struct tally *tally, const char *path, char *said,
		      size_t said_len)
{
	snprintf(said, said_len, "reproduce: %d of %d points measured, "
		 "conclusion holds in %d of %d counted (published table: %d of "
		 "%d), verdict as published in %d, %d lab-shaped (not counted), "
		 "%d of %d TVD targets met; report %s", tally->points,
		 tally->points + tally->missing, tally->verdicts_held,
		 tally->counted, tally->published_held, tally->published_claims,
		 tally->agreed, tally->flagged, tally->targets_met,
		 tally->targets, path);
}

int sp_repro_write_report(const struct sp_repro_opts *o,
			  const struct sp_repro_plan *plan,
			  const struct sp_reference *ref, const char *out,
			  const char *unit_text, int64_t elapsed_s,
			  const char *mode, const char *host, char *said,
			  size_t said_len)
{
	struct sp_case_result *all = NULL;
	char path[PATH_MAX], *summary_text = NULL, *details_text = NULL;
	char *scaling = NULL;
	struct tally tally = { 0 };
	size_t n_all = 0;
	FILE *md = NULL;
	int ret;

	said[0] = '\0';
	if (!sp_repro_path_printf(path, sizeof(path), "%s/plots", out))
		mkdir(path, 0755);
	ret = load_all_runs(out, 1, &all, &n_all);
	if (!ret)
		ret = read_scaling(out, &scaling);
	if (!ret)
		ret = judge_plan(plan, ref, all, n_all, &tally, &summary_text,
				 &details_text);
	if (!ret && sp_repro_path_printf(path, sizeof(path), "%s/report.md", out))
		ret = -ENAMETOOLONG;
	if (!ret) {
		/* --report-only writes the report again, as it says; a run
		 * writes a new one and never over an earlier one */
		md = o->report_only ? sp_outdir_fopen(path) : sp_repro_fopen_new(path);
		if (!md) {
			ret = -errno;
			sp_err("reproduce: %s: %s", path, strerror(errno));
		}
	}
	if (!ret) {
		write_head(md, o, all, n_all, unit_text, elapsed_s, mode, host,
			   scaling);
		write_summary(md, &tally, summary_text, details_text);
	}
	free(scaling);
	free(summary_text);
	free(details_text);
	free(all);
	if (ret)
		return ret;
	if (fclose(md)) {
		sp_err("reproduce: %s: %s", path, strerror(errno));
		return -EIO;
	}
	say_tally(&tally, path, said, said_len);
	return tally.missing ? -EIO : 0;
}
