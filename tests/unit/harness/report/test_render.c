#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/log.h"
#include "harness/measure/case_result.h"
#include "harness/report/render.h"
#include "harness/report/render_kernels.h"
#include "harness/report/render_plot.h"

/* errors and warnings */
#include "tests/unit/log_capture.h"
#include "tests/unit/harness/measure/case_fixture.h"

static int setup(void **state)
{
	(void)state;
	capture_start(SP_LOG_WARN);
	return 0;
}

static char *render_to_string(int (*fn)(FILE *, enum sp_format, const void *),
			      enum sp_format fmt, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, fmt, arg), 0);
	fclose(f);
	return buf;
}

static int case_fn(FILE *f, enum sp_format fmt, const void *arg)
{
	return sp_render_case(f, fmt, arg);
}

static int compare_fn(FILE *f, enum sp_format fmt, const void *arg)
{
	return sp_render_compare(f, fmt, arg);
}

/* Runs of blanks to one, so a test checks columns, not widths. */
static void squeeze(char *s)
{
	char *start = s, *w = s;

	for (; *s; s++)
		if (*s != ' ' || w == start || w[-1] != ' ')
			*w++ = *s;
	*w = '\0';
}

static void fill_takes_deltas_and_fio_total(void **state)
{
	struct sp_case_result c;

	(void)state;
	filled_case(&c, "service-time");
	assert_int_equal(c.path[0].v[SP_DS_READS], 42676);
	assert_int_equal(c.path[0].v[SP_DS_WTICKS], 0);
	assert_int_equal(c.map.v[SP_DS_READS], 128030);
	assert_int_equal(c.fio_jobs, 1);
	assert_int_equal(c.fio.dir[SP_FIO_READ].ios, 128030);
	assert_int_equal(n_err, 0);	/* fio's disk_util and total agreed */
}

static void fill_warns_when_fio_disagrees(void **state)
{
	struct sp_case_result c = { .n_paths = 1, .path[0].name = "sda" };
	char *b = read_fixture("diskstats/seed-randread-before.txt");
	char *a = read_fixture("diskstats/seed-randread-after.txt");
	char *f = read_fixture("fio/handmade-dm-disk-util.json");
	char *at = strstr(f, "\"read_ios\": 42676");

	(void)state;
	assert_non_null(at);
	memcpy(at, "\"read_ios\": 30000", 17);
	assert_int_equal(sp_case_fill(&c, b, a, f), 0);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "sda: fio counted 30000 reads"));
	assert_int_equal(c.path[0].v[SP_DS_READS], 42676);	/* ours stand */
	/* a map that saw a different number of I/Os than fio completed */
	c.has_map = 1;
	strcpy(c.map.name, "dm-0");
	memcpy(at, "\"read_ios\": 42676", 17);
	at = strstr(f, "\"total_ios\": 128030");
	assert_non_null(at);
	memcpy(at, "\"total_ios\": 100000", 19);
	assert_int_equal(sp_case_fill(&c, b, a, f), 0);
	assert_int_equal(n_err, 2);
	assert_non_null(strstr(last_err, "dm-0: fio completed 100000 reads"));
	free(a);
	free(b);
	free(f);
}

static void fill_refuses_missing_path(void **state)
{
	struct sp_case_result c;
	char *b = read_fixture("diskstats/seed-randread-before.txt");
	char *f = read_fixture("fio/randread-psync-1job.json");

	(void)state;
	memset(&c, 0, sizeof(c));
	c.n_paths = 1;
	strcpy(c.path[0].name, "sdq");
	assert_int_equal(sp_case_fill(&c, b, b, f), -ENOENT);
	assert_int_equal(n_err, 1);
	assert_non_null(strstr(last_err, "'sdq'"));
	free(b);
	free(f);
}

static void json_round_trip_is_lossless(void **state)
{
	struct sp_case_result c, back;
	char *text;

	(void)state;
	filled_case(&c, "historical-service-time");
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	assert_int_equal(sp_case_from_json(text, "mem", &back), 0);
	assert_string_equal(back.selector, c.selector);
	assert_int_equal(back.n_paths, 3);
	assert_int_equal(back.slow[2], 1);
	assert_int_equal(back.has_map, 1);
	assert_memory_equal(back.path, c.path, sizeof(c.path));
	assert_memory_equal(&back.map, &c.map, sizeof(c.map));
	assert_memory_equal(&back.fio.dir, &c.fio.dir, sizeof(c.fio.dir));
	/* an old case has no labels, and reads back without them */
	assert_string_equal(back.label[0], "");
	free(text);

	strcpy(c.label[1], "p2");
	c.delay_ns[1] = 2000000;
	c.lat[1] = (struct sp_case_lat){ 1, 42, 2007040, 2007040, 2039808 };
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	assert_int_equal(sp_case_from_json(text, "mem", &back), 0);
	assert_string_equal(back.label[1], "p2");
	assert_int_equal(back.delay_ns[1], 2000000);
	assert_memory_equal(&back.lat[1], &c.lat[1], sizeof(c.lat[1]));
	assert_int_equal(back.lat[0].has, 0);
	free(text);
	/* what a path with no I/O got written before 57a3c16 loads as no
	 * latencies, not as a bad file */
	c.lat[1].has = 0;
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	{
		static const char old[] = "\"store_lat\": { \"count\": 0, "
			"\"p50_ns\": -1, \"p99_ns\": -1, \"p999_ns\": -1 }, ";
		char *at = strstr(text, "\"delay_ns\""), *old_text;

		assert_non_null(at);
		old_text = malloc(strlen(text) + sizeof(old));
		memcpy(old_text, text, (size_t)(at - text));
		strcpy(old_text + (at - text), old);
		strcat(old_text, at);
		assert_int_equal(sp_case_from_json(old_text, "old.json", &back), 0);
		free(old_text);
	}
	free(text);
	assert_int_equal(back.lat[1].has, 0);

	/* a label reaches a plot only if it is a name */
	strcpy(c.label[1], "p2\"; x");
	assert_int_equal(sp_case_to_json(&c, &text), 0);
	assert_int_equal(sp_case_from_json(text, "mem", &back), -EINVAL);
	assert_non_null(strstr(last_err, "\"label\""));
	free(text);
}

static void json_errors_name_the_key(void **state)
{
	struct sp_case_result c;

	(void)state;
	assert_int_equal(sp_case_from_json("{\"slowpath_case\":1}", "f.json", &c), -EINVAL);
	assert_non_null(strstr(last_err, "f.json"));
	assert_non_null(strstr(last_err, "\"topology\""));
	assert_int_equal(sp_case_from_json("[1", "g.json", &c), -EINVAL);
	assert_non_null(strstr(last_err, "g.json"));
	assert_int_equal(sp_case_from_json(
		"{\"slowpath_case\":1,\"topology\":\"t\",\"selector\":\"st\",\"rw\":\"read\","
		"\"bs\":4096,\"iodepth\":0,\"numjobs\":1}", "h.json", &c), -EINVAL);
	assert_non_null(strstr(last_err, "\"iodepth\" is 0"));
	assert_int_equal(n_err, 3);
}

/* A case file from anyone who could write the run directory: names that
 * reach file names and gnuplot are refused on load, one line naming
 * file, key and value. */
static void json_refuses_unsafe_names(void **state)
{
	static const char *const bad[][2] = {
		{ "topology", "x`touch PWNED`" }, { "rw", "read'x" },
		{ "selector", "st;system" }, { "topology", "../up" },
		{ "topology", "-o" }, { "name", "sd a" },
	};
	struct sp_case_result c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json_object *o;
		char *text;

		filled_case(&c, "service-time");
		o = sp_case_json_object(&c);
		if (!strcmp(bad[i][0], "name"))
			json_object_object_add(
				json_object_array_get_idx(
					json_object_object_get(o, "paths"), 1),
				"name", json_object_new_string(bad[i][1]));
		else
			json_object_object_add(o, bad[i][0],
					       json_object_new_string(bad[i][1]));
		text = strdup(json_object_to_json_string(o));
		json_object_put(o);
		n_err = 0;
		assert_int_equal(sp_case_from_json(text, "bad.json", &c), -EINVAL);
		assert_int_equal(n_err, 1);
		assert_non_null(strstr(last_err, "bad.json"));
		assert_non_null(strstr(last_err, bad[i][1]));
		free(text);
	}
}

/* Even names that never went through the loader cannot reach gnuplot's
 * command substitution: single-quoted strings, quotes doubled,
 * backquotes and line breaks gone. */
static void plot_script_quotes_every_string(void **state)
{
	struct sp_case_result c[2];
	struct sp_case_pair pairs[2];
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *f;

	(void)state;
	filled_case(&c[0], "st");
	filled_case(&c[1], "hst");
	strcpy(c[0].topology, "x`touch PWNED`'\n\"a");
	strcpy(c[1].topology, c[0].topology);
	assert_int_equal(sp_pair_cases(c, 2, "st", "hst", pairs), 1);
	f = open_memstream(&buf, &len);
	assert_int_equal(sp_plot_script(f, pairs, 1), 0);
	fclose(f);
	assert_null(strchr(buf, '`'));
	assert_null(strstr(buf, "title \""));
	assert_non_null(strstr(buf, "set title 'x_touch PWNED_''_\"a"));
	/* every line still has its quotes paired */
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		size_t q = 0;
		char *s;

		for (s = line; *s; s++)
			q += *s == '\'';
		assert_int_equal(q % 2, 0);
	}
	free(buf);
}

static void save_then_load_dir(void **state)
{
	struct sp_case_result c[2], *back;
	char dir[] = "/tmp/sp-run-XXXXXX", path[512];
	size_t n;

	(void)state;
	filled_case(&c[0], "service-time");
	filled_case(&c[1], "historical-service-time");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sp_case_save(dir, &c[0]), 0);
	assert_int_equal(sp_case_save(dir, &c[1]), 0);
	assert_int_equal(sp_case_save_raw(dir, &c[0], "fio.json", "{}\n"), 0);
	snprintf(path, sizeof(path), "%s/raw/three-randread-4k-qd1-st.fio.json", dir);
	assert_int_equal(access(path, R_OK), 0);
	unlink(path);
	assert_int_equal(sp_case_load_dir(dir, &back, &n), 0);
	assert_int_equal(n, 2);
	/* sorted by file name: -hst before -st */
	assert_string_equal(back[0].selector, "historical-service-time");
	assert_memory_equal(back[1].path, c[0].path, sizeof(c[0].path));
	free(back);
	snprintf(path, sizeof(path), "%s/cases/three-randread-4k-qd1-st.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cases/three-randread-4k-qd1-hst.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cases", dir);
	rmdir(path);
	assert_int_equal(sp_case_load_dir(dir, &back, &n), -ENOENT);
	assert_non_null(strstr(last_err, "/cases"));
	snprintf(path, sizeof(path), "%s/raw", dir);
	rmdir(path);
	rmdir(dir);
}

static void stem_and_selector_names(void **state)
{
	struct sp_case_result c = { .topology = "u10", .selector = "historical-service-time",
				    .rw = "randwrite", .bs = 65536, .iodepth = 32,
				    .numjobs = 4 };
	char stem[128];

	(void)state;
	assert_int_equal(sp_case_stem(&c, stem, sizeof(stem)), 0);
	assert_string_equal(stem, "u10-randwrite-64k-qd32-j4-hst");
	c.numjobs = 1;
	strcpy(c.selector, "queue-length");
	assert_int_equal(sp_case_stem(&c, stem, sizeof(stem)), 0);
	assert_string_equal(stem, "u10-randwrite-64k-qd32-ql");
	assert_string_equal(sp_selector_short("odd"), "odd");
	assert_int_equal(sp_case_stem(&c, stem, 8), -ENAMETOOLONG);
}

static void text_case_has_seed_layout(void **state)
{
	struct sp_case_result c;
	char *out;

	(void)state;
	filled_case(&c, "service-time");
	out = render_to_string(case_fn, SP_FMT_TEXT, &c);
	assert_null(strstr(out, " \n"));	/* no trailing blanks */
	squeeze(out);
	assert_non_null(strstr(out, "\ndev reads rmerg secR tRed wrts wmerg secW tWrit share"));
	assert_non_null(strstr(out, "\nsda 42676 0 341328 59032 0 0 0 0 33.3% 1.383 1.383 -\n"));
	assert_non_null(strstr(out, "\nsdc 42677 0 341336 59011 0 0 0 0 33.3% 1.383 1.383 - yes\n"));
	assert_non_null(strstr(out, "\ndm-0 128030 0 1024000 178000 0 0 0 0 - 1.390 1.390 - map\n"));
	assert_non_null(strstr(out, "dm-0"));
	assert_non_null(strstr(out, "fio read: "));
	assert_null(strstr(out, "fio write"));	/* no writes, no line */
	free(out);
}

static void md_csv_json_agree(void **state)
{
	struct sp_case_result c;
	json_object *o, *paths, *v;
	char *md, *csv, *js;

	(void)state;
	filled_case(&c, "service-time");
	md = render_to_string(case_fn, SP_FMT_MD, &c);
	csv = render_to_string(case_fn, SP_FMT_CSV, &c);
	js = render_to_string(case_fn, SP_FMT_JSON, &c);
	assert_non_null(strstr(md, "| sdc | 42677 | 0 | 341336 | 59011 |"));
	assert_non_null(strstr(md, "|:---|---:|"));
	assert_non_null(strstr(csv, "topology,rw,bs,iodepth,numjobs,selector,dev,reads"));
	assert_non_null(strstr(csv, "three,randread,4096,1,1,service-time,sdc,42677,0,341336,59011,"));
	assert_non_null(strstr(csv, ",yes\n"));
	o = json_tokener_parse(js);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "paths", &paths));
	assert_int_equal(json_object_array_length(paths), 3);
	json_object_object_get_ex(json_object_array_get_idx(paths, 2), "slow", &v);
	assert_true(json_object_get_boolean(v));
	json_object_put(o);
	free(md);
	free(csv);
	free(js);
}

/* A case that recorded its machine shows it, and one whose lab was
 * saturated is marked in every format instead of read as a finding. */
static void lab_shaped_case_is_flagged_everywhere(void **state)
{
	struct sp_case_result c;
	char *txt, *md, *csv, *js;

	(void)state;
	filled_case(&c, "service-time");
	txt = render_to_string(case_fn, SP_FMT_TEXT, &c);
	assert_null(strstr(txt, "ran under"));
	free(txt);
	c.env.recorded = 1;
	c.env.scale = 8;
	c.env.cpu_util = 0.72;
	snprintf(c.env.mode, sizeof(c.env.mode), "lab");
	snprintf(c.env.hst, sizeof(c.env.hst), "bucket_shift 27");
	snprintf(c.env.kernel, sizeof(c.env.kernel), "6.1.0");
	c.env.has_resid[2] = 1;
	c.env.resid[2] = 0.021;
	txt = render_to_string(case_fn, SP_FMT_TEXT, &c);
	md = render_to_string(case_fn, SP_FMT_MD, &c);
	csv = render_to_string(case_fn, SP_FMT_CSV, &c);
	js = render_to_string(case_fn, SP_FMT_JSON, &c);
	assert_non_null(strstr(txt, "ran under: scale k=8, CPU 72% busy, lab, "
			    "HST bucket_shift 27, kernel 6.1.0"));
	assert_non_null(strstr(txt, "sdc +2.1%"));
	assert_non_null(strstr(txt, "LAB-SHAPED: lab saturated: CPU 72% > 50% "
			    "(not a finding)"));
	assert_non_null(strstr(md, "- **lab-shaped**: lab saturated"));
	assert_non_null(strstr(csv, ",scale,cpu_util,mode,hst,calib_resid,"
			    "share_se,lab_shaped\n"));
	assert_non_null(strstr(csv, ",8,0.720,lab,bucket_shift 27,0.0210,"));
	assert_non_null(strstr(csv, "lab saturated: CPU 72% > 50%\n"));
	assert_non_null(strstr(js, "\"lab_shaped\": \"lab saturated"));
	free(txt);
	free(md);
	free(csv);
	free(js);
	/* within bounds: shown, not flagged */
	c.env.cpu_util = 0.31;
	txt = render_to_string(case_fn, SP_FMT_TEXT, &c);
	assert_non_null(strstr(txt, "CPU 31% busy"));
	assert_null(strstr(txt, "LAB-SHAPED"));
	assert_null(strstr(txt, "warm-up"));
	free(txt);
	/* a warmed selector says so: its shares are not a cold start's */
	c.env.warmup_s = 20;
	txt = render_to_string(case_fn, SP_FMT_TEXT, &c);
	assert_non_null(strstr(txt, "kernel 6.1.0, warm-up 20 s; shares'"));
	free(txt);
}

/* HST moves I/O off the slow path: the comparison must say so. */
static void compare_shows_the_shift(void **state)
{
	struct sp_case_result st, hst;
	struct sp_case_pair p = { &st, &hst };
	char *out;

	(void)state;
	filled_pair(&st, &hst, 1);
	/* the numbers themselves: measure/test_compare.c */
	out = render_to_string(compare_fn, SP_FMT_TEXT, &p);
	assert_non_null(strstr(out, "service-time vs historical-service-time"));
	assert_non_null(strstr(out, "share st"));
	assert_non_null(strstr(out, "-7.8pp"));
	assert_non_null(strstr(out, "x2.00"));
	free(out);
	out = render_to_string(compare_fn, SP_FMT_CSV, &p);
	assert_non_null(strstr(out, "three,randread,4096,1,1,service-time,historical-service-time,0.3333,0.2552,0.0781,"));
	free(out);
}

/* run --kernels: the same point and selector on two kernels is one row
 * with each kernel's shares; comparisons pair within a kernel only. */
static void kernels_side_by_side(void **state)
{
	static struct sp_case_result c[4];
	struct sp_case_pair pairs[4];
	const char *k[4];
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	filled_pair(&c[0], &c[1], 0);
	filled_pair(&c[2], &c[3], 1);
	for (i = 0; i < 4; i++)
		strcpy(c[i].env.kernel, i < 2 ? "6.1.0-57-amd64"
					     : "6.12.95+deb12-amd64");
	assert_int_equal(sp_case_kernels(c, 4, k, 4), 2);
	assert_string_equal(k[1], "6.12.95+deb12-amd64");
	/* st of 6.1 pairs with hst of 6.1, not of 6.12 */
	assert_int_equal(sp_pair_cases(c, 4, "service-time",
				       "historical-service-time", pairs), 2);
	assert_ptr_equal(pairs[0].b, &c[1]);
	assert_ptr_equal(pairs[1].b, &c[3]);

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(sp_render_kernels(f, SP_FMT_TEXT, c, 4), 0);
	fclose(f);
	squeeze(buf);
	assert_non_null(strstr(buf, "selector 6.1.0 shares % 6.1.0 slow 6.1.0 IOPS "
			       "6.12.95+deb12 shares %"));
	/* two rows, st then hst, each with both kernels */
	assert_non_null(strstr(buf, "\nthree randread 4k 1 1 st "));
	assert_non_null(strstr(buf, "\nthree randread 4k 1 1 hst "));
	assert_null(strstr(strstr(buf, " hst ") + 1, " hst "));
	free(buf);

	/* one kernel: nothing to put side by side */
	assert_int_equal(sp_render_kernels(stdout, SP_FMT_TEXT, c, 2), -EINVAL);
	assert_int_equal(sp_render_kernels(stdout, SP_FMT_JSON, c, 4), -EINVAL);
}

static void plot_script_names_every_output(void **state)
{
	struct sp_case_result c[4];
	struct sp_case_pair pairs[4];
	char *buf = NULL;
	size_t len = 0, np;
	FILE *f;

	(void)state;
	filled_case(&c[0], "st");
	filled_case(&c[1], "hst");
	filled_case(&c[2], "st");
	filled_case(&c[3], "hst");
	c[2].iodepth = c[3].iodepth = 32;
	np = sp_pair_cases(c, 4, "st", "hst", pairs);
	assert_int_equal(np, 2);
	f = open_memstream(&buf, &len);
	assert_int_equal(sp_plot_script(f, pairs, np), 0);
	fclose(f);
	assert_non_null(strstr(buf, "set output 'share-three-randread-4k-qd1.png'"));
	assert_non_null(strstr(buf, "set output 'share-three-randread-4k-qd32.svg'"));
	assert_non_null(strstr(buf, "plot 'share-three-randread-4k-qd32.dat'"));
	/* one latency plot for the series, not one per iodepth */
	assert_non_null(strstr(buf, "set output 'latency-three-randread-4k.png'"));
	assert_null(strstr(strstr(buf, "latency-three-randread-4k.svg") + 1,
			   "set output 'latency-three"));
	assert_non_null(strstr(buf, "pngcairo"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(sp_plot_latency_data(f, pairs, np, 0), 0);
	fclose(f);
	/* rows by increasing iodepth */
	assert_non_null(strstr(buf, "\n1 "));
	assert_true(strstr(buf, "\n1 ") < strstr(buf, "\n32 "));
	free(buf);
}

/* A plot names a path by its label and delay ("p3 x4 2 ms"), an old
 * case by its disk; latency is in ms; a flagged case says so on its
 * plots. Before 2026-12-03 every path was "sdc(slow)", latency "us"
 * and a lab-shaped case looked like any other in a picture. */
static void plots_name_paths_by_label_and_mark_flagged_cases(void **state)
{
	struct sp_case_result c[2];
	struct sp_case_pair pairs[2];
	static const int64_t delays[] = { 500000, 500000, 2000000 };
	char tag[64], *buf = NULL;
	size_t len = 0, i, np;
	FILE *f;

	(void)state;
	filled_case(&c[0], "st");
	filled_case(&c[1], "hst");
	sp_plot_path_tag(&c[0], 2, 1, tag, sizeof(tag));
	assert_string_equal(tag, "sdc(slow)");
	for (i = 0; i < 3; i++) {
		snprintf(c[0].label[i], sizeof(c[0].label[i]), "p%zu", i + 1);
		c[0].delay_ns[i] = delays[i];
	}
	sp_plot_path_tag(&c[0], 2, 1, tag, sizeof(tag));
	assert_string_equal(tag, "p3 x4 2 ms");
	sp_plot_path_tag(&c[0], 0, 0, tag, sizeof(tag));
	assert_string_equal(tag, "p1 x1 0.5 ms");

	np = sp_pair_cases(c, 2, "st", "hst", pairs);
	assert_int_equal(np, 1);
	f = open_memstream(&buf, &len);
	assert_int_equal(sp_plot_shares_data(f, &pairs[0]), 0);
	assert_int_equal(sp_plot_latency_data(f, pairs, np, 0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\n\"p3 x4 2 ms\" "));
	assert_non_null(strstr(buf, "(ms)"));
	free(buf);

	c[1].env.recorded = 1;
	c[1].env.cpu_util = 0.9;
	snprintf(c[1].env.time, sizeof(c[1].env.time), "real");
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(sp_plot_script(f, pairs, np), 0);
	fclose(f);
	assert_non_null(strstr(buf, "set label 1 'LAB-SHAPED, not a finding: "
			       "lab saturated: CPU 90% > 50%'"));
	assert_non_null(strstr(buf, "set ylabel 'clat (ms)'"));
	assert_null(strstr(buf, "unset label 1"));
	free(buf);
}

static int fake_runs;
static char fake_dir[256];

static int fake_gnuplot(const char *dir, const char *script, void *ctx)
{
	(void)ctx;
	fake_runs++;
	snprintf(fake_dir, sizeof(fake_dir), "%s/%s", dir, script);
	return 0;
}

static void plot_run_writes_files_then_runs(void **state)
{
	struct sp_case_result c[2];
	struct sp_plot_ops ops = { .run = fake_gnuplot };
	/* room for the "/plots" appended after mkdtemp */
	char dir[64] = "/tmp/sp-plot-XXXXXX", path[512];

	(void)state;
	filled_case(&c[0], "service-time");
	filled_case(&c[1], "historical-service-time");
	assert_non_null(mkdtemp(dir));
	strcat(dir, "/plots");
	assert_int_equal(sp_plot_run(dir, c, 2, "st", "hst", &ops), 0);
	assert_int_equal(fake_runs, 1);
	snprintf(path, sizeof(path), "%s/share-three-randread-4k-qd1.dat", dir);
	assert_int_equal(access(path, R_OK), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/latency-three-randread-4k.dat", dir);
	assert_int_equal(access(path, R_OK), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	assert_string_equal(fake_dir, path);
	unlink(path);
	rmdir(dir);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
	/* nothing to pair: said apart from errors, and gnuplot is not run */
	assert_int_equal(sp_plot_run(dir, c, 1, "st", "hst", &ops), -ENODATA);
	assert_int_equal(fake_runs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(fill_takes_deltas_and_fio_total, setup),
		cmocka_unit_test_setup(kernels_side_by_side, setup),
		cmocka_unit_test_setup(plots_name_paths_by_label_and_mark_flagged_cases, setup),
		cmocka_unit_test_setup(fill_warns_when_fio_disagrees, setup),
		cmocka_unit_test_setup(fill_refuses_missing_path, setup),
		cmocka_unit_test_setup(json_round_trip_is_lossless, setup),
		cmocka_unit_test_setup(json_errors_name_the_key, setup),
		cmocka_unit_test_setup(json_refuses_unsafe_names, setup),
		cmocka_unit_test_setup(plot_script_quotes_every_string, setup),
		cmocka_unit_test_setup(save_then_load_dir, setup),
		cmocka_unit_test_setup(stem_and_selector_names, setup),
		cmocka_unit_test_setup(text_case_has_seed_layout, setup),
		cmocka_unit_test_setup(md_csv_json_agree, setup),
		cmocka_unit_test_setup(compare_shows_the_shift, setup),
		cmocka_unit_test_setup(plot_script_names_every_output, setup),
		cmocka_unit_test_setup(plot_run_writes_files_then_runs, setup),
		cmocka_unit_test_setup(lab_shaped_case_is_flagged_everywhere, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
