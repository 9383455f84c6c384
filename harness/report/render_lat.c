/* Per-path store latency of a case, see render_lat.h. */
#include "harness/report/render_lat.h"

#include <errno.h>
#include <stdio.h>

static const char *ms(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%.3f", (double)ns / 1e6);
	return buf;
}

int sp_render_store_lat(FILE *out, enum sp_format fmt,
			const struct sp_case_result *c)
{
	static const char *const cols[] = {
		"path", "dev", ">ios", ">p50_ms", ">p99_ms", ">p99.9_ms",
	};
	char b[4][32];
	const char *cells[6];
	struct sp_table t;
	size_t i, any = 0;
	int ret = 0;

	for (i = 0; i < c->n_paths; i++)
		any += c->lat[i].has != 0;
	if (!any || fmt == SP_FMT_CSV || fmt == SP_FMT_JSON)
		return 0;
	sp_table_init(&t);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		sp_table_col(&t, cols[i]);
	for (i = 0; i < c->n_paths && !ret; i++) {
		const struct sp_case_lat *l = &c->lat[i];

		if (!l->has)
			continue;
		cells[0] = c->label[i][0] ? c->label[i] : "-";
		cells[1] = c->path[i].name;
		snprintf(b[0], sizeof(b[0]), "%llu", (unsigned long long)l->count);
		cells[2] = b[0];
		cells[3] = ms(b[1], sizeof(b[1]), l->p50_ns);
		cells[4] = ms(b[2], sizeof(b[2]), l->p99_ns);
		cells[5] = ms(b[3], sizeof(b[3]), l->p999_ns);
		ret = sp_table_row(&t, cells);
	}
	fprintf(out, "%sper-path latency at the target (the delay store: "
		"submission to completion; fio's is the initiator's):\n",
		fmt == SP_FMT_MD ? "\n" : "");
	if (fmt == SP_FMT_MD)
		fputc('\n', out);
	if (!ret)
		ret = sp_table_emit(&t, fmt, out);
	sp_table_free(&t);
	return ret ? ret : ferror(out) ? -EIO : 0;
}
