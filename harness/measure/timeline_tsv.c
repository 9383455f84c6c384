/* A case's timeline as TSV: written by run, read back by report. Rows
 * of before selector state (6 columns) still read, as they were. */
#include "harness/measure/timeline.h"

#include "common/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CLOCK_COMMENT "# clock\tmonotonic_ns_at_t0\t"

static void write_selector(FILE *out, const struct sp_tl_sample *s)
{
	unsigned int i;

	if (!s->n_sel || s->n_sel > SP_TL_MAX_SEL) {
		fputs("\t-", out);
		return;
	}
	for (i = 0; i < s->n_sel; i++)
		fprintf(out, "%c%" PRIu64, i ? ',' : '\t', s->sel[i]);
}

int sp_tl_write_tsv(FILE *out, const struct sp_timeline *tl,
		    const struct sp_tl_event *ev, size_t n_ev)
{
	size_t i;

	fputs("t_ms\tdev\tios_done\tin_flight\tsectors\tpath_state\t"
	      "ticks_ms\tselector\n", out);
	if (tl->mono_ns_t0 >= 0)
		fprintf(out, CLOCK_COMMENT "%" PRId64 "\n", tl->mono_ns_t0);
	if (tl->map_sums_paths && tl->n_devs)
		fprintf(out, "# %s: the paths' sum (this disk keeps no I/O "
			"statistics of its own)\n", tl->dev[tl->n_devs - 1]);
	for (i = 0; i < n_ev; i++)
		fprintf(out, "# fault\t%" PRId64 "\t%s\t%s\t%s\t%s\t%" PRId64
			"\n", ev[i].t_ms, ev[i].path, ev[i].dev, ev[i].how,
			sp_tl_event_kind_name(ev[i].kind), ev[i].took_ms);
	if (tl->full)
		fputs("# samples stopped: the timeline is full\n", out);
	for (i = 0; i < tl->n; i++) {
		const struct sp_tl_sample *s = &tl->s[i];

		fprintf(out, "%" PRId64 "\t%s\t%" PRIu64 "\t%" PRIu32 "\t%"
			PRIu64 "\t%c\t%" PRIu64, s->t_ms, tl->dev[s->dev],
			s->ios, s->in_flight, s->sectors, s->state,
			s->ticks_ms);
		write_selector(out, s);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

/* One unsigned decimal of [*p, ...) ending at a ',' or the end; *p moves
 * past it. A sign, a blank or a value past 2^64 - 1 is refused. */
static int decimal(const char **p, uint64_t *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return 0;
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno || (*end && *end != ','))
		return 0;
	*p = end;
	return 1;
}

/* The selector column: "-", or 1 to SP_TL_MAX_SEL decimals by commas. */
static int parse_selector(const char *w, struct sp_tl_sample *s)
{
	if (!strcmp(w, "-"))
		return 1;
	for (;;) {
		if (s->n_sel == SP_TL_MAX_SEL || !decimal(&w, &s->sel[s->n_sel]))
			return 0;
		s->n_sel++;
		if (!*w)
			return 1;
		w++;		/* the comma */
	}
}

/* The two columns after path_state, from a row's text at rest. */
static int parse_new_columns(const char *rest, struct sp_tl_sample *s)
{
	char sel[96];
	unsigned long long ticks;
	int used = 0;

	if (sscanf(rest, "\t%llu\t%95s%n", &ticks, sel, &used) != 2 ||
	    rest[used] || rest[1] < '0' || rest[1] > '9' ||
	    !parse_selector(sel, s))
		return 0;
	s->ticks_ms = ticks;
	s->has_ticks = 1;
	return 1;
}

static int parse_row(struct sp_timeline *tl, const char *line, size_t len)
{
	char buf[256], dev[SP_DS_NAMELEN + 1], state;
	struct sp_tl_sample s = { 0 };
	long long t;
	unsigned long long ios, sectors;
	unsigned int inf;
	int idx, used = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (sscanf(buf, "%lld\t%32s\t%llu\t%u\t%llu\t%c%n", &t, dev, &ios, &inf,
		   &sectors, &state, &used) != 6 ||
	    ((size_t)used != len && !parse_new_columns(buf + used, &s)) ||
	    strlen(dev) >= SP_DS_NAMELEN || t < 0 || t > SP_TL_MS_MAX ||
	    (state != SP_TL_ACTIVE && state != SP_TL_FAILED &&
	     state != SP_TL_UNKNOWN))
		return -EINVAL;
	idx = sp_tl_dev_index(tl, dev);
	if (idx < 0) {
		if (tl->n_devs == SP_TL_MAX_DEVS)
			return -EINVAL;
		strcpy(tl->dev[tl->n_devs], dev);
		idx = (int)tl->n_devs++;
	}
	s.t_ms = t;
	s.dev = (uint32_t)idx;
	s.ios = ios;
	s.in_flight = inf;
	s.sectors = sectors;
	s.state = state;
	return sp_tl_add(tl, &s);
}

/* "# clock<TAB>monotonic_ns_at_t0<TAB>N": N into tl. Other comments: 0. */
static int parse_comment(struct sp_timeline *tl, const char *line, size_t len)
{
	size_t pre = strlen(CLOCK_COMMENT);
	char buf[64], *end;
	long long v;

	if (len < pre || strncmp(line, CLOCK_COMMENT, pre))
		return 0;
	if (len - pre >= sizeof(buf) || line[pre] < '0' || line[pre] > '9')
		return -EINVAL;
	memcpy(buf, line + pre, len - pre);
	buf[len - pre] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end)
		return -EINVAL;
	tl->mono_ns_t0 = v;
	return 0;
}

int sp_tl_parse_tsv(const char *text, const char *origin,
		    struct sp_timeline *tl)
{
	const char *p = text, *nl;
	unsigned int lineno = 0;
	size_t len;
	int ret;

	memset(tl, 0, sizeof(*tl));
	tl->mono_ns_t0 = -1;
	while (*p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		ret = 0;
		if (len && p[0] == '#')
			ret = parse_comment(tl, p, len);
		else if (len && (lineno > 1 || strncmp(p, "t_ms", 4)))
			ret = parse_row(tl, p, len);
		if (ret) {
			sp_err("%s:%u: '%.*s' is not a timeline row", origin,
			       lineno, (int)(len > 60 ? 60 : len), p);
			sp_tl_free(tl);
			return ret == -ENOMEM ? ret : -EINVAL;
		}
		p += len + (nl != NULL);
	}
	if (!tl->n_devs) {
		sp_err("%s: no timeline rows", origin);
		return -EINVAL;
	}
	return 0;
}
