/* What a run folder gets besides its cases: run.json (the options, and
 * each case's wall time against fio's, so the harness's own cost shows)
 * and the rendered reports and plots. */
#include "harness/run/run_loop.h"

#include "common/log.h"
#include "common/outdir.h"
#include "dm/selector.h"
#include "harness/report/render.h"
#include "harness/report/render_order.h"
#include "harness/report/render_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static json_object *opts_json(const struct sp_run_plan *plan)
{
	json_object *o = json_object_new_object(), *a;
	size_t i;
	const char *stop[] = { "size", "ios", "runtime" };

	a = json_object_new_array();
	for (i = 0; i < plan->n_sel; i++)
		json_object_array_add(a, json_object_new_string(
			sp_selector_kernel_name(plan->sel[i])));
	json_object_object_add(o, "selectors", a);
	a = json_object_new_array();
	for (i = 0; i < plan->n_rw; i++)
		json_object_array_add(a, json_object_new_string(plan->rw[i]));
	json_object_object_add(o, "rw", a);
	a = json_object_new_array();
	for (i = 0; i < plan->n_bs; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)plan->bs[i]));
	json_object_object_add(o, "bs", a);
	a = json_object_new_array();
	for (i = 0; i < plan->n_qd; i++)
		json_object_array_add(a, json_object_new_int(plan->iodepth[i]));
	json_object_object_add(o, "iodepth", a);
	json_object_object_add(o, "numjobs", json_object_new_int(plan->numjobs));
	json_object_object_add(o, "stop", json_object_new_string(stop[plan->stop]));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)plan->size_bytes));
	json_object_object_add(o, "ios", json_object_new_int64((int64_t)plan->ios));
	json_object_object_add(o, "runtime_s", json_object_new_int64(plan->runtime_s));
	json_object_object_add(o, "warmup_s", json_object_new_int64(plan->warmup_s));
	json_object_object_add(o, "job", plan->job_file ?
			       json_object_new_string(plan->job_file) : NULL);
	return o;
}

static json_object *seconds(int64_t ns)
{
	return json_object_new_double((double)ns / 1e9);
}

int sp_run_save_manifest(const char *out_dir, const struct sp_run_plan *plan,
			 const struct sp_run_target *t,
			 const struct sp_run_summary *sum)
{
	json_object *o = json_object_new_object(), *a, *c;
	char path[4096], stem[256];
	const char *text;
	FILE *f;
	size_t i;
	int ret = 0;

	json_object_object_add(o, "slowpath_run", json_object_new_int(1));
	json_object_object_add(o, "topology", json_object_new_string(t->topology));
	json_object_object_add(o, "map", json_object_new_string(t->map_name));
	json_object_object_add(o, "uuid", json_object_new_string(t->map_uuid));
	json_object_object_add(o, "device", json_object_new_string(t->device));
	json_object_object_add(o, "options", opts_json(plan));
	json_object_object_add(o, "planned", json_object_new_int64((int64_t)sum->planned));
	json_object_object_add(o, "done", json_object_new_int64((int64_t)sum->done));
	json_object_object_add(o, "interrupted", json_object_new_boolean(sum->interrupted));
	a = json_object_new_array();
	for (i = 0; i < sum->done; i++) {
		const struct sp_run_timing *tm = &sum->timing[i];

		c = json_object_new_object();
		sp_case_stem(&sum->cases[i], stem, sizeof(stem));
		json_object_object_add(c, "case", json_object_new_string(stem));
		json_object_object_add(c, "wall_s", seconds(tm->wall_ns));
		json_object_object_add(c, "fio_wall_s", seconds(tm->fio_wall_ns));
		json_object_object_add(c, "fio_runtime_s", seconds(tm->fio_runtime_ns));
		json_object_object_add(c, "selector_s", seconds(tm->selector_ns));
		json_object_object_add(c, "harness_s",
				       seconds(sp_run_overhead_ns(tm)));
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "timing", a);
	snprintf(path, sizeof(path), "%s/run.json", out_dir);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	f = sp_outdir_fopen(path);
	if (!f || fprintf(f, "%s\n", text) < 0)
		ret = -errno;
	if (f && fclose(f) && !ret)
		ret = -errno;
	if (ret)
		sp_err("%s: %s", path, strerror(-ret));
	json_object_put(o);
	return ret;
}

static int save_reports(const char *out_dir,
			const struct sp_case_result *cases, size_t n,
			const struct sp_plot_ops *plot_ops)
{
	static const struct { const char *name; enum sp_format fmt; } files[] = {
		{ "report.txt", SP_FMT_TEXT }, { "report.md", SP_FMT_MD },
		{ "report.csv", SP_FMT_CSV }, { "report.json", SP_FMT_JSON },
	};
	char path[4096];
	size_t i, shown;
	FILE *f;
	int ret = 0;

	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s", out_dir, files[i].name);
		f = sp_outdir_fopen(path);
		if (!f) {
			ret = -errno;
			sp_err("%s: %s", path, strerror(errno));
			break;
		}
		ret = sp_render_report(f, files[i].fmt, cases, n,
				       sp_selector_kernel_name(SP_SEL_ST),
				       sp_selector_kernel_name(SP_SEL_HST));
		if (!ret && files[i].fmt == SP_FMT_TEXT)
			ret = sp_render_timelines(f, out_dir, cases, n, NULL,
						  NULL, &shown);
		if (fclose(f) && !ret)
			ret = -EIO;
	}
	if (ret || !plot_ops || !n)
		return ret;
	snprintf(path, sizeof(path), "%s/plots", out_dir);
	ret = sp_render_timelines(NULL, out_dir, cases, n, path, plot_ops,
				  &shown);
	if (ret)
		return ret;
	ret = sp_plot_run(path, cases, n, sp_selector_kernel_name(SP_SEL_ST),
			  sp_selector_kernel_name(SP_SEL_HST), plot_ops);
	if (ret == -ENODATA) {
		sp_info("no ST/HST pair among the cases: no comparison plots");
		return 0;
	}
	return ret;
}

int sp_run_save_reports(const char *out_dir,
			const struct sp_case_result *cases, size_t n,
			const struct sp_plot_ops *plot_ops)
{
	const char *st = sp_selector_kernel_name(SP_SEL_ST);
	const char *hst = sp_selector_kernel_name(SP_SEL_HST);
	struct sp_case_result *ordered = NULL;
	int ret;

	/* in the order `slowpath report` lists them (render_order.h), so
	 * it renders these files again from the cases alone, whatever
	 * order the run measured them in */
	if (n) {
		ordered = malloc(n * sizeof(*ordered));
		if (!ordered)
			return -ENOMEM;
		memcpy(ordered, cases, n * sizeof(*ordered));
	}
	ret = sp_render_order_cases(ordered, n, st, hst);
	if (!ret)
		ret = save_reports(out_dir, ordered, n, plot_ops);
	free(ordered);
	return ret;
}
