#include "harness/repro/reference.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/log.h"
#include "dm/selector.h"
#include "harness/measure/shares.h"

static const char *const rw_names[SP_REF_N_RW] = {
	"read", "write", "randread", "randwrite",
};
/* The published selectors in enum sp_ref_selector order. */
static const enum sp_selector ref_kinds[SP_REF_N_SELECTORS] = {
	SP_SEL_ST, SP_SEL_HST,
};
static const char *const col_names[SP_REF_N_COLS] = {
	"reads", "rmerg", "secR", "tRed", "wrts", "wmerg", "secW", "tWrit",
};

#define N_KEY_FIELDS 6	/* topology rw iodepth selector path dev */
#define N_FIELDS (N_KEY_FIELDS + SP_REF_N_COLS + 1)	/* + carried */
#define MAX_LINE 1024

static int name_index(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], name))
			return i;
	}
	return -EINVAL;
}

const char *sp_ref_rw_name(enum sp_ref_rw rw)
{
	return (unsigned)rw < SP_REF_N_RW ? rw_names[rw] : "?";
}

int sp_ref_rw_parse(const char *name)
{
	return name_index(rw_names, SP_REF_N_RW, name);
}

int sp_ref_rw_is_read(enum sp_ref_rw rw)
{
	return rw == SP_REF_READ || rw == SP_REF_RANDREAD;
}

enum sp_selector sp_ref_selector_kind(enum sp_ref_selector sel)
{
	return ref_kinds[(unsigned)sel < SP_REF_N_SELECTORS ? sel : 0];
}

/* The data file spells dm/selector.c's short names in capitals. */
const char *sp_ref_selector_name(enum sp_ref_selector sel)
{
	static char names[SP_REF_N_SELECTORS][SP_SEL_SHORT_MAX];
	const char *s;
	size_t i;

	if ((unsigned)sel >= SP_REF_N_SELECTORS)
		return "?";
	if (!names[sel][0]) {
		s = sp_selector_short_name(ref_kinds[sel]);
		for (i = 0; s[i] && i + 1 < SP_SEL_SHORT_MAX; i++)
			names[sel][i] = (char)toupper((unsigned char)s[i]);
	}
	return names[sel];
}

int sp_ref_selector_parse(const char *name)
{
	int k;

	for (k = 0; k < SP_REF_N_SELECTORS; k++)
		if (!strcmp(name, sp_ref_selector_name((enum sp_ref_selector)k)))
			return k;
	return -EINVAL;
}

const char *sp_ref_col_name(enum sp_ref_col col)
{
	return (unsigned)col < SP_REF_N_COLS ? col_names[col] : "?";
}

/* Where the parser is, so every message can say FILE:LINE. */
struct cursor {
	const char *origin;
	int line;
};

static int bad(const struct cursor *at, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(const struct cursor *at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sp_err("%s:%d: %s", at->origin, at->line, msg);
	return -EINVAL;
}

/* Digits only: the seed has no signs, blanks or fractions. */
static int parse_u64(const struct cursor *at, const char *field,
		     const char *text, uint64_t *out)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return bad(at, "%s: '%s' is not a count", field, text);
	errno = 0;
	*out = strtoull(text, &end, 10);
	if (*end || errno)
		return bad(at, "%s: '%s' is not a count", field, text);
	return 0;
}

static int parse_carried(const struct cursor *at, char *text, unsigned *mask)
{
	char *tok, *save = NULL;
	int col;

	*mask = 0;
	if (!strcmp(text, "-"))
		return 0;
	for (tok = strtok_r(text, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		col = name_index(col_names, SP_REF_N_COLS, tok);
		if (col < 0)
			return bad(at, "carried: '%s' is not a column", tok);
		*mask |= 1u << col;
	}
	return 0;
}

static size_t split_tabs(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		if (n < max)
			fields[n] = p;
		n++;
		p = strchr(p, '\t');
		if (!p)
			return n;
		*p++ = '\0';
	}
}

struct row {
	const struct sp_ref_topology *topo;
	int rw, selector;
	uint64_t iodepth, path;
	struct sp_ref_path values;
};

static int parse_row(const struct cursor *at, const struct sp_reference *ref,
		     char *line, struct row *row)
{
	char *f[N_FIELDS];
	size_t n, i;
	int ret;

	n = split_tabs(line, f, N_FIELDS);
	if (n != N_FIELDS)
		return bad(at, "%zu tab-separated fields, expected %d", n, N_FIELDS);
	row->topo = sp_ref_topology(ref, f[0]);
	if (!row->topo)
		return bad(at, "topology '%s' is none of equal3, skew4, u10", f[0]);
	row->rw = sp_ref_rw_parse(f[1]);
	if (row->rw < 0)
		return bad(at, "rw '%s' is none of read, write, randread, randwrite",
			   f[1]);
	if ((ret = parse_u64(at, "iodepth", f[2], &row->iodepth)))
		return ret;
	if (row->iodepth < 1 || row->iodepth > 65536)
		return bad(at, "iodepth '%s' is out of 1..65536", f[2]);
	row->selector = sp_ref_selector_parse(f[3]);
	if (row->selector < 0)
		return bad(at, "selector '%s' is neither ST nor HST", f[3]);
	if ((ret = parse_u64(at, "path", f[4], &row->path)))
		return ret;
	if (strlen(f[5]) == 0 || strlen(f[5]) >= sizeof(row->values.dev))
		return bad(at, "dev '%s' is not a device name", f[5]);
	strcpy(row->values.dev, f[5]);
	for (i = 0; i < SP_REF_N_COLS; i++) {
		ret = parse_u64(at, col_names[i], f[N_KEY_FIELDS + i],
				&row->values.v[i]);
		if (ret)
			return ret;
	}
	return parse_carried(at, f[N_FIELDS - 1], &row->values.carried);
}

static int same_case(const struct sp_ref_case *c, const struct row *row)
{
	return c->topology == row->topo->name && (int)c->rw == row->rw &&
	       c->iodepth == (int)row->iodepth &&
	       (int)c->selector == row->selector;
}

static int case_complete(const struct cursor *at, const struct sp_ref_case *c)
{
	const struct sp_ref_topology *topo = c->topo;

	if (c->n_paths == topo->n_paths)
		return 0;
	return bad(at, "%s %s iodepth %d %s (from line %d) has %zu paths, %s has %zu",
		   c->topology, rw_names[c->rw], c->iodepth,
		   sp_ref_selector_name(c->selector), c->line, c->n_paths,
		   c->topology, topo->n_paths);
}

/* Adds the row to the case it continues, or opens a new case. Rows of a
 * case are consecutive and numbered 1..n so a dropped or repeated row
 * shows up at its own line. */
static int add_row(const struct cursor *at, struct sp_reference *ref,
		   size_t *cap, const struct row *row)
{
	struct sp_ref_case *c = ref->n_cases ? &ref->cases[ref->n_cases - 1] : NULL;
	int ret;

	if (!c || !same_case(c, row)) {
		if (c && (ret = case_complete(at, c)))
			return ret;
		if (sp_ref_find(ref, row->topo->name, row->rw, (int)row->iodepth,
				row->selector)) {
			return bad(at, "second table for %s %s iodepth %d %s (each case appears once)",
				   row->topo->name, rw_names[row->rw],
				   (int)row->iodepth, sp_ref_selector_name(row->selector));
		}
		if (ref->n_cases == *cap) {
			size_t ncap = *cap ? *cap * 2 : 32;
			struct sp_ref_case *n = realloc(ref->cases, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			ref->cases = n;
			*cap = ncap;
		}
		c = &ref->cases[ref->n_cases++];
		memset(c, 0, sizeof(*c));
		c->topology = row->topo->name;
		c->topo = row->topo;
		c->rw = row->rw;
		c->iodepth = (int)row->iodepth;
		c->selector = row->selector;
		c->line = at->line;
	}
	if (row->path != c->n_paths + 1 || c->n_paths >= row->topo->n_paths) {
		if (c->n_paths >= row->topo->n_paths)
			return bad(at, "path %llu: %s has only %zu paths",
				   (unsigned long long)row->path,
				   row->topo->name, row->topo->n_paths);
		return bad(at, "%s %s iodepth %d %s: path %llu out of order, expected %zu",
			   c->topology, rw_names[c->rw], c->iodepth,
			   sp_ref_selector_name(c->selector),
			   (unsigned long long)row->path, c->n_paths + 1);
	}
	c->paths[c->n_paths++] = row->values;
	return 0;
}

static const char *expected_header(void)
{
	static char header[160];
	size_t i;

	if (!header[0]) {
		strcpy(header, "topology\trw\tiodepth\tselector\tpath\tdev");
		for (i = 0; i < SP_REF_N_COLS; i++) {
			strcat(header, "\t");
			strcat(header, col_names[i]);
		}
		strcat(header, "\tcarried");
	}
	return header;
}

int sp_ref_parse(const char *text, const char *origin,
		 const struct sp_ref_topologies *topos,
		 struct sp_reference *ref)
{
	struct cursor at = { origin, 0 };
	char line[MAX_LINE];
	const char *p = text, *eol;
	size_t len, cap = 0;
	int have_header = 0, ret = 0;
	struct row row;

	ref->cases = NULL;
	ref->n_cases = 0;
	ref->topologies = topos;
	while (*p && !ret) {
		at.line++;
		eol = strchr(p, '\n');
		len = eol ? (size_t)(eol - p) : strlen(p);
		if (len && p[len - 1] == '\r')
			len--;
		if (len >= sizeof(line)) {
			ret = bad(&at, "line longer than %d characters", MAX_LINE - 1);
			break;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p = eol ? eol + 1 : p + strlen(p);
		if (!len || line[0] == '#')
			continue;
		if (!have_header) {
			if (strcmp(line, expected_header()))
				ret = bad(&at, "header is not the column list 'topology rw iodepth selector path dev reads ... tWrit carried'");
			have_header = 1;
			continue;
		}
		ret = parse_row(&at, ref, line, &row);
		if (!ret)
			ret = add_row(&at, ref, &cap, &row);
	}
	if (!ret && !ref->n_cases)
		ret = bad(&at, "no data rows");
	if (!ret)
		ret = case_complete(&at, &ref->cases[ref->n_cases - 1]);
	if (ret)
		sp_ref_free(ref);
	return ret;
}

int sp_ref_load(const char *path, const struct sp_ref_topologies *topos,
		struct sp_reference *ref)
{
	char *text;
	size_t len;
	int ret;

	ref->cases = NULL;
	ref->n_cases = 0;
	ref->topologies = topos;
	ret = sp_file_read(path, SP_FILE_TEXT_MAX, &text, &len);
	if (ret) {
		sp_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	if (strlen(text) != len) {
		sp_err("%s: contains a NUL byte, not a data file", path);
		free(text);
		return -EINVAL;
	}
	ret = sp_ref_parse(text, path, topos, ref);
	free(text);
	return ret;
}

void sp_ref_free(struct sp_reference *ref)
{
	free(ref->cases);
	ref->cases = NULL;
	ref->n_cases = 0;
}

const struct sp_ref_case *sp_ref_find(const struct sp_reference *ref,
				      const char *topology, enum sp_ref_rw rw,
				      int iodepth, enum sp_ref_selector sel)
{
	size_t i;

	for (i = 0; i < ref->n_cases; i++) {
		const struct sp_ref_case *c = &ref->cases[i];

		if (!strcmp(c->topology, topology) && c->rw == rw &&
		    c->iodepth == iodepth && c->selector == sel)
			return c;
	}
	return NULL;
}

void sp_ref_ios(const struct sp_ref_case *c, uint64_t *ios)
{
	enum sp_ref_col col = sp_ref_rw_is_read(c->rw) ? SP_REF_READS : SP_REF_WRTS;
	size_t i;

	for (i = 0; i < c->n_paths; i++)
		ios[i] = c->paths[i].v[col];
}

int sp_ref_shares(const struct sp_ref_case *c, double *fractions)
{
	uint64_t ios[SP_REF_MAX_PATHS];

	sp_ref_ios(c, ios);
	return sp_shares(ios, c->n_paths, fractions);
}

int sp_ref_service_ms(const struct sp_ref_case *c, size_t path, double *ms)
{
	int read = sp_ref_rw_is_read(c->rw);
	enum sp_ref_col n_col = read ? SP_REF_READS : SP_REF_WRTS;
	enum sp_ref_col t_col = read ? SP_REF_TRED : SP_REF_TWRIT;
	const struct sp_ref_path *p;

	if (path >= c->n_paths)
		return -EINVAL;
	p = &c->paths[path];
	if (!p->v[n_col] || (p->carried & (1u << t_col)))
		return -EINVAL;
	*ms = (double)p->v[t_col] / (double)p->v[n_col];
	return 0;
}

int sp_ref_write_ms_recovered(const struct sp_reference *ref,
			      const struct sp_ref_case *c, size_t path,
			      uint64_t *ms)
{
	const struct sp_ref_case *next;
	uint64_t start, end;

	if (c < ref->cases || c >= ref->cases + ref->n_cases ||
	    sp_ref_rw_is_read(c->rw) || path >= c->n_paths)
		return -EINVAL;
	next = c + 1;
	if (next == ref->cases + ref->n_cases || path >= next->n_paths ||
	    strcmp(next->paths[path].dev, c->paths[path].dev))
		return -ENODATA;
	start = c->paths[path].v[SP_REF_TWRIT];
	end = next->paths[path].v[SP_REF_TWRIT];
	if (end < start)	/* a counter that went back is no counter */
		return -ENODATA;
	*ms = end - start;
	return 0;
}

int sp_linfit(const double *x, const double *y, size_t n, struct sp_linfit *fit)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, ss_res = 0;
	size_t i;

	if (n < 2)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx == 0)
		return -EINVAL;
	fit->slope = sxy / sxx;
	fit->base = my - fit->slope * mx;
	for (i = 0; i < n; i++) {
		double r = y[i] - (fit->base + fit->slope * x[i]);

		ss_res += r * r;
	}
	fit->r2 = syy > 0 ? 1 - ss_res / syy : 1;
	fit->rmse = sqrt(ss_res / (double)n);
	fit->n = n;
	return 0;
}

/* Only iodepth 1: deeper queues add queueing time that is not the
 * path's own latency. Only skew4 and u10: equal3 has one multiplier,
 * which says nothing about the slope. */
int sp_ref_calibrate(const struct sp_reference *ref, struct sp_linfit *fit)
{
	double x[256], y[256];
	size_t i, p, n = 0;

	for (i = 0; i < ref->n_cases; i++) {
		const struct sp_ref_case *c = &ref->cases[i];

		if (c->iodepth != 1 || !sp_ref_rw_is_read(c->rw) ||
		    !strcmp(c->topology, "equal3"))
			continue;
		for (p = 0; p < c->n_paths && n < 256; p++) {
			if (sp_ref_service_ms(c, p, &y[n]))
				continue;
			x[n++] = c->topo->multiplier[p];
		}
	}
	return sp_linfit(x, y, n, fit);
}

int sp_ref_unit_ns(const struct sp_linfit *fit, double base_ns, double *unit_ns)
{
	if (!(fit->base > 0) || !(fit->slope > 0) || !(base_ns > 0))
		return -EINVAL;
	*unit_ns = base_ns * fit->slope / fit->base;
	return 0;
}
