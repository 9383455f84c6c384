/* Timeline tables and plots of a saved run. */
#include "harness/report/render_timeline.h"

#include "harness/report/render_selector.h"

#include "common/log.h"
#include "common/name.h"
#include "common/outdir.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int sp_timeline_load(const char *run_dir, const struct sp_case_result *c,
		     struct sp_timeline *tl)
{
	char cases[4200];
	size_t i;
	int ret;

	snprintf(cases, sizeof(cases), "%s/cases", run_dir);
	ret = sp_case_timeline_read(cases, c, tl);
	/* device names reach gnuplot scripts */
	for (i = 0; !ret && i < tl->n_devs; i++)
		if (!sp_name_ok(tl->dev[i])) {
			sp_err("%s: device '%s' is not a name slowpath uses (%s)",
			       cases, tl->dev[i], SP_NAME_RULE);
			sp_tl_free(tl);
			ret = -EINVAL;
		}
	return ret;
}

static void ms_or_dash(FILE *out, int64_t ms)
{
	if (ms < 0)
		fprintf(out, " %12s", "-");
	else
		fprintf(out, " %12" PRId64, ms);
}

int sp_render_timeline(FILE *out, const struct sp_case_result *c,
		       const struct sp_timeline *tl)
{
	const struct sp_case_faults *f = &c->faults;
	struct sp_tl_fault_metrics m[SP_TL_MAX_EVENTS];
	struct sp_tl_stall stall;
	char stem[256];
	size_t n = 0, i;

	sp_case_stem(c, stem, sizeof(stem));
	fprintf(out, "--- %s: timeline ---\n", stem);
	if (tl && tl->n_devs) {
		sp_tl_stall(tl, tl->n_devs - 1, -1, -1, &stall);
		if (stall.ms)
			fprintf(out, "longest stall on the map: %" PRId64 " ms "
				"(%.1f s to %.1f s)\n", stall.ms,
				(double)stall.from_ms / 1000,
				(double)stall.to_ms / 1000);
		else
			fprintf(out, "longest stall on the map: none\n");
	} else {
		fprintf(out, "no timeline samples\n");
	}
	if (f->counted || f->verify)
		fprintf(out, "fio errors: %" PRIu64 " (I/O %" PRIu64 ", verify %"
			PRIu64 ")%s%s%s\n", f->fio_errors,
			sp_case_faults_io_errors(f), f->verify_errors,
			f->first_error ? ", first: " : "",
			f->first_error ? strerror(f->first_error) : "",
			f->verify ? "" : "; data not verified");
	if (tl)
		sp_tl_fault_metrics(tl, f->ev, f->n_events, m,
				    SP_TL_MAX_EVENTS, &n);
	if (n) {
		fprintf(out, "%-6s %-8s %-8s %-10s %10s %12s %12s %12s "
			"%12s\n", "fault", "path", "dev", "how", "at_ms",
			"failover_ms", "restored_ms", "reinstate_ms",
			"stall_ms");
		for (i = 0; i < n; i++) {
			fprintf(out, "%-6zu %-8s %-8s %-10s %10" PRId64, i + 1,
				m[i].applied->path, m[i].applied->dev,
				m[i].applied->how, m[i].applied->t_ms);
			ms_or_dash(out, m[i].failover_ms);
			ms_or_dash(out, m[i].restored ? m[i].restored->t_ms : -1);
			ms_or_dash(out, m[i].reinstate_ms);
			fprintf(out, " %12" PRId64 "\n", m[i].stall.ms);
		}
		fprintf(out, "(failover: fault to the path failed in the map's "
			"status; reinstate: restore to active again; '-': never "
			"seen; to within 200 ms)\n");
	}
	for (i = 0; i < f->n_events; i++)
		if (f->ev[i].kind == SP_TL_EV_FAILED)
			fprintf(out, "at %" PRId64 " ms: %s %s could not be "
				"done\n", f->ev[i].t_ms, f->ev[i].path,
				f->ev[i].how);
	if (tl && sp_render_selector(out, c, tl))
		return -EIO;
	return ferror(out) ? -EIO : 0;
}

int sp_plot_timeline_data(FILE *out, const struct sp_timeline *tl)
{
	struct sp_tl_interval *iv;
	size_t n, i, d;
	int ret = sp_tl_intervals(tl, &iv, &n);

	if (ret)
		return ret;
	fputs("# t_s", out);
	for (d = 0; d < tl->n_devs; d++)
		fprintf(out, " iops_%s", tl->dev[d]);
	for (d = 0; d < tl->n_devs; d++)
		fprintf(out, " inflight_%s", tl->dev[d]);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		fprintf(out, "%.3f", (double)iv[i].t_ms / 1000);
		for (d = 0; d < tl->n_devs; d++)
			fprintf(out, " %.1f", iv[i].iops[d]);
		for (d = 0; d < tl->n_devs; d++)
			fprintf(out, " %" PRIu32, iv[i].in_flight[d]);
		fputc('\n', out);
	}
	free(iv);
	return ferror(out) ? -EIO : 0;
}

/* A vertical line and a label per fault event, on both panels. */
static void marks(FILE *out, const struct sp_case_faults *f)
{
	static const char *const colour[SP_TL_EV_KINDS] = {
		"#cc0000", "#008800", "#888888",
	};
	size_t i;

	fputs("unset arrow\nunset label\n", out);
	for (i = 0; i < f->n_events; i++) {
		const struct sp_tl_event *e = &f->ev[i];
		double x = (double)e->t_ms / 1000;
		char text[96];

		fprintf(out, "set arrow from %.3f, graph 0 to %.3f, graph 1 "
			"nohead dt 2 lc rgb '%s'\n", x, x, colour[e->kind]);
		snprintf(text, sizeof(text), "%s %s", e->path,
			 e->kind == SP_TL_EV_APPLIED ? e->how :
			 sp_tl_event_kind_name(e->kind));
		fprintf(out, "set label ");
		sp_plot_quote(out, "", text, "");
		fprintf(out, " at %.3f, graph %.2f left offset 0.3,0 tc rgb "
			"'%s' noenhanced\n", x, 0.95 - 0.07 * (double)(i % 4),
			colour[e->kind]);
	}
}

static void panel(FILE *out, const char *data, const struct sp_timeline *tl,
		  size_t first_col, const char *ylabel)
{
	size_t d;

	fprintf(out, "set ylabel '%s'\nplot ", ylabel);
	for (d = 0; d < tl->n_devs; d++) {
		int map = d + 1 == tl->n_devs;

		if (d)
			fputs(", ", out);
		sp_plot_quote(out, "", d ? "" : data, "");
		fprintf(out, " using 1:%zu with lines lw %d title ",
			first_col + d, map ? 2 : 1);
		sp_plot_quote(out, "", tl->dev[d], map ? " (map)" : "");
	}
	fputc('\n', out);
}

void sp_plot_panels_head(FILE *out, size_t t, const char *prefix,
			 const char *stem, const char *title)
{
	static const char *const term[2][2] = {
		{ ".png", "eval sprintf('set terminal %s size 900,720', png_term)" },
		{ ".svg", "set terminal svg size 900,720 dynamic" },
	};

	fprintf(out, "\n%s\nset output ", term[t][1]);
	sp_plot_quote(out, prefix, stem, term[t][0]);
	fputs("\nset multiplot layout 2,1 title ", out);
	sp_plot_quote(out, "", title, "");
	fputs(" noenhanced\nunset logscale x\nset xtics norotate\n"
	      "set xlabel 'seconds since fio started'\nset yrange [0:*]\n"
	      "set offsets 0, 0, graph 0.12, 0\n", out);
}

int sp_plot_timeline_script(FILE *out, const struct sp_case_result *c,
			    const struct sp_timeline *tl)
{
	char stem[256], data[300], title[320];
	size_t t;
	int ret = sp_case_stem(c, stem, sizeof(stem));

	if (ret)
		return ret;
	snprintf(data, sizeof(data), "timeline-%s.dat", stem);
	snprintf(title, sizeof(title), "%s: per path over time", stem);
	for (t = 0; t < 2; t++) {
		sp_plot_panels_head(out, t, "timeline-", stem, title);
		fputs("set style data lines\n", out);
		marks(out, &c->faults);
		panel(out, data, tl, 2, "IOPS");
		panel(out, data, tl, 2 + tl->n_devs, "I/Os in flight");
		fputs("unset multiplot\n", out);
	}
	return ferror(out) ? -EIO : 0;
}

/* selector-<stem>.dat beside the timeline's, and its plot in script. */
static int selector_plot(const char *plot_dir, FILE *script,
			 const struct sp_case_result *c,
			 const struct sp_timeline *tl, const char *stem)
{
	char name[300];
	FILE *f;
	int ret;

	snprintf(name, sizeof(name), "selector-%s.dat", stem);
	f = sp_plot_open_in(plot_dir, "", name, "");
	if (!f)
		return -EIO;
	ret = sp_plot_close_out(f, sp_plot_selector_data(f, c, tl));
	return ret ? ret : sp_plot_selector_script(script, c, tl);
}

int sp_render_timelines(FILE *out, const char *run_dir,
			const struct sp_case_result *cases, size_t n,
			const char *plot_dir, const struct sp_plot_ops *ops,
			size_t *shown)
{
	struct sp_timeline tl;
	char err[SP_OUTDIR_ERRLEN], stem[256], name[300];
	FILE *script = NULL, *f;
	size_t i, plots = 0;
	int ret = 0, have;

	*shown = 0;
	for (i = 0; i < n && !ret; i++) {
		const struct sp_case_result *c = &cases[i];

		if (!c->faults.recorded)
			continue;
		ret = sp_timeline_load(run_dir, c, &tl);
		have = !ret;
		if (ret == -ENOENT && !c->faults.timeline)
			ret = 0;
		if (ret)
			break;
		if (out && !*shown)
			fputs("==== timelines ====\n\n", out);
		(*shown)++;
		if (out) {
			ret = sp_render_timeline(out, c, have ? &tl : NULL);
			fputc('\n', out);
		}
		if (!ret && have && ops && tl.n_devs) {
			if (!script) {
				ret = sp_outdir_check(plot_dir, SP_OUTDIR_CREATE,
						      err, sizeof(err));
				if (ret)
					sp_err("%s", err);
				else if (!(script = sp_plot_open_in(plot_dir, "",
							    "timelines.gp", "")))
					ret = -EIO;
				else
					fputs("# written by slowpath report; "
					      "gnuplot timelines.gp\npng_term = "
					      "(strstrt(GPVAL_TERMINALS, "
					      "'pngcairo') > 0) ? 'pngcairo' : "
					      "'png'\nset grid ytics\nset key "
					      "outside right top\n", script);
			}
			sp_case_stem(c, stem, sizeof(stem));
			snprintf(name, sizeof(name), "timeline-%s.dat", stem);
			if (!ret && !(f = sp_plot_open_in(plot_dir, "", name, "")))
				ret = -EIO;
			if (!ret)
				ret = sp_plot_close_out(f, sp_plot_timeline_data(f, &tl));
			if (!ret)
				ret = sp_plot_timeline_script(script, c, &tl);
			if (!ret && sp_tl_has_selector(&tl))
				ret = selector_plot(plot_dir, script, c, &tl,
						    stem);
			plots++;
		}
		if (have)
			sp_tl_free(&tl);
	}
	if (script) {
		fputs("set output\n", script);
		ret = sp_plot_close_out(script, ret);
	}
	if (!ret && plots)
		ret = ops->run(plot_dir, "timelines.gp", ops->ctx);
	return ret;
}
