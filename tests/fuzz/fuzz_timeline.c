/* Fuzz target: a case's timeline as `report` reads it back. The first
 * line is the case JSON's part that timelines use ({"faults": {...}},
 * through sp_case_faults_from_json); the rest is <stem>.timeline.tsv
 * (sp_tl_parse_tsv). A timeline that parses must write out and parse
 * back to the same samples; then every metric the report draws from it
 * runs: intervals, stalls, the share's standard error, per-fault
 * failover and reinstatement (sp_render_timeline), the plot data and
 * what the selector saw (render_selector.c, as HST, ST and QL). */
#include "tests/fuzz/fuzz.h"

#include <json-c/json.h>
#include <stdio.h>

#include "harness/measure/case_env.h"
#include "harness/measure/case_result.h"
#include "harness/report/render_selector.h"
#include "harness/report/render_timeline.h"

static FILE *devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* Written out and read back, the samples must be the same. */
static void round_trip(const struct sp_timeline *tl,
		       const struct sp_case_faults *f)
{
	struct sp_timeline back;
	char *text = NULL;
	size_t len = 0, i;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	if (sp_tl_write_tsv(mem, tl, f->ev, f->n_events) | fclose(mem))
		abort();
	if (sp_tl_parse_tsv(text, "round-trip", &back) ||
	    back.n != tl->n || back.n_devs != tl->n_devs ||
	    back.mono_ns_t0 != tl->mono_ns_t0)
		abort();
	for (i = 0; i < tl->n; i++)
		if (back.s[i].t_ms != tl->s[i].t_ms ||
		    back.s[i].ios != tl->s[i].ios ||
		    back.s[i].sectors != tl->s[i].sectors ||
		    back.s[i].in_flight != tl->s[i].in_flight ||
		    back.s[i].state != tl->s[i].state ||
		    back.s[i].ticks_ms != tl->s[i].ticks_ms ||
		    back.s[i].n_sel != tl->s[i].n_sel ||
		    memcmp(back.s[i].sel, tl->s[i].sel, sizeof(tl->s[i].sel)) ||
		    strcmp(back.dev[back.s[i].dev], tl->dev[tl->s[i].dev]))
			abort();
	sp_tl_free(&back);
	free(text);
}

/* What the selector saw, as HST's and as ST's args. */
static void selector(const struct sp_timeline *tl,
		     const struct sp_case_result *c)
{
	static struct sp_case_result as;
	static const char *const names[] = {
		"historical-service-time", "service-time", "queue-length",
	};
	size_t i;

	as = *c;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(as.selector, sizeof(as.selector), "%s", names[i]);
		sp_render_selector(devnull(), &as, tl);
		sp_plot_selector_data(devnull(), &as, tl);
		sp_plot_selector_script(devnull(), &as, tl);
	}
}

static void metrics(const struct sp_timeline *tl,
		    const struct sp_case_result *c)
{
	struct sp_tl_interval *iv;
	struct sp_tl_stall stall;
	double se[SP_TL_MAX_DEVS], worst;
	size_t n, d;

	if (!sp_tl_intervals(tl, &iv, &n))
		free(iv);
	for (d = 0; d < tl->n_devs; d++)
		sp_tl_stall(tl, d, -1, -1, &stall);
	if (tl->n_devs > 1)
		sp_tl_share_se(tl, tl->n_devs - 1, SP_ENV_SE_BATCHES, se,
			       &worst);
	sp_render_timeline(devnull(), c, tl);
	sp_plot_timeline_data(devnull(), tl);
	sp_plot_timeline_script(devnull(), c, tl);
	selector(tl, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_case_result c;
	struct sp_timeline tl;
	json_object *o;
	char *text = fuzz_text(data, size), *tsv;

	if (!text)
		return 0;
	tsv = fuzz_first_line(text);
	memset(&c, 0, sizeof(c));
	o = json_tokener_parse(text);
	if (o && !sp_case_faults_from_json(o, "case.json", &c.faults) &&
	    !sp_tl_parse_tsv(tsv, "case.timeline.tsv", &tl)) {
		round_trip(&tl, &c.faults);
		metrics(&tl, &c);
		sp_tl_free(&tl);
	}
	json_object_put(o);
	free(text);
	return 0;
}
