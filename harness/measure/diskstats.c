#include "harness/measure/diskstats.h"

#include "common/log.h"
#include "harness/measure/shares.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[SP_DS_NFIELDS] = {
	"reads", "rmerg", "secR", "tRed", "wrts", "wmerg", "secW", "tWrit",
	"inflt", "tIO", "tQue", "discs", "dmerg", "secD", "tDisc",
	"flush", "tFlush",
};

const char *sp_ds_field_name(enum sp_ds_field f)
{
	return (unsigned)f < SP_DS_NFIELDS ? field_names[f] : "?";
}

int sp_ds_field_by_name(const char *name)
{
	int i;

	for (i = 0; i < SP_DS_NFIELDS; i++)
		if (!strcmp(field_names[i], name))
			return i;
	return -1;
}

/* Strict unsigned decimal: strtoull alone would accept "-1" and " 7". */
static int parse_u64(const char *tok, uint64_t *out)
{
	char *end;

	if (*tok < '0' || *tok > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(tok, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int sp_diskstats_parse_line(const char *line, const char *origin,
			    unsigned int lineno, struct sp_diskstat *out)
{
	char buf[512], *tok, *save = NULL;
	unsigned int n_tok = 0;
	uint64_t num;
	size_t len = strcspn(line, "\n");

	if (len >= sizeof(buf)) {
		sp_err("%s:%u: line too long for a diskstats line", origin, lineno);
		return -EINVAL;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	memset(out, 0, sizeof(*out));

	for (tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save), n_tok++) {
		if (n_tok == 2) {
			if (strlen(tok) >= SP_DS_NAMELEN) {
				sp_err("%s:%u: device name '%s' is too long",
				       origin, lineno, tok);
				return -EINVAL;
			}
			strcpy(out->name, tok);
			continue;
		}
		if (n_tok >= 3 + SP_DS_NFIELDS) {
			sp_err("%s:%u: more than %d fields", origin, lineno,
			       3 + SP_DS_NFIELDS);
			return -EINVAL;
		}
		if (parse_u64(tok, &num) ||
		    (n_tok < 2 && num > 0xffffffffu)) {
			sp_err("%s:%u: field %u '%s' is not a counter%s%s%s",
			       origin, lineno, n_tok + 1, tok,
			       out->name[0] ? " (device " : "", out->name,
			       out->name[0] ? ")" : "");
			return -EINVAL;
		}
		if (n_tok == 0)
			out->major = (unsigned int)num;
		else if (n_tok == 1)
			out->minor = (unsigned int)num;
		else
			out->v[n_tok - 3] = num;
	}
	out->n_fields = n_tok > 3 ? n_tok - 3 : 0;
	if (out->n_fields != SP_DS_FIELDS_OLD &&
	    out->n_fields != SP_DS_FIELDS_DISCARD &&
	    out->n_fields != SP_DS_FIELDS_FLUSH) {
		sp_err("%s:%u: %u fields; a diskstats line has 14, 18 or 20",
		       origin, lineno, n_tok);
		return -EINVAL;
	}
	return 0;
}

int sp_diskstats_select(const char *text, const char *origin,
			const char *const *names, size_t n,
			struct sp_diskstat *out)
{
	const char *line = text;
	unsigned int lineno = 0;
	struct sp_diskstat row;
	size_t i, found = 0;
	int ret;
	char *seen = calloc(n ? n : 1, 1);

	if (!seen)
		return -ENOMEM;
	while (*line) {
		const char *next = strchr(line, '\n');

		lineno++;
		if (line[strspn(line, " \t")] != '\n' &&
		    line[strspn(line, " \t")] != '\0') {
			ret = sp_diskstats_parse_line(line, origin, lineno, &row);
			if (ret) {
				free(seen);
				return ret;
			}
			for (i = 0; i < n; i++) {
				if (seen[i] || strcmp(names[i], row.name))
					continue;
				out[i] = row;
				seen[i] = 1;
				found++;
			}
		}
		if (!next)
			break;
		line = next + 1;
	}
	for (i = 0; i < n && found < n; i++) {
		if (!seen[i]) {
			sp_err("%s: no device '%s'", origin, names[i]);
			free(seen);
			return -ENOENT;
		}
	}
	free(seen);
	return 0;
}

int sp_diskstats_delta(const struct sp_diskstat *before,
		       const struct sp_diskstat *after, size_t n,
		       struct sp_diskstat *delta)
{
	size_t i;
	unsigned int f;

	for (i = 0; i < n; i++) {
		const struct sp_diskstat *b = &before[i], *a = &after[i];

		if (strcmp(b->name, a->name)) {
			sp_err("diskstats delta: device %zu is '%s' before and '%s' after",
			       i, b->name, a->name);
			return -EINVAL;
		}
		if (b->n_fields != a->n_fields) {
			sp_err("diskstats delta: %s has %u fields before and %u after",
			       a->name, b->n_fields, a->n_fields);
			return -EINVAL;
		}
		for (f = 0; f < a->n_fields; f++) {
			if (f == SP_DS_IN_FLIGHT)
				continue;
			if (a->v[f] < b->v[f]) {
				sp_err("diskstats delta: %s %s went backwards: %llu then %llu",
				       a->name, field_names[f],
				       (unsigned long long)b->v[f],
				       (unsigned long long)a->v[f]);
				return -ERANGE;
			}
		}
	}
	for (i = 0; i < n; i++) {
		delta[i] = after[i];
		for (f = 0; f < after[i].n_fields; f++)
			if (f != SP_DS_IN_FLIGHT)
				delta[i].v[f] = after[i].v[f] - before[i].v[f];
	}
	return 0;
}

static double mean_ms(uint64_t ticks, uint64_t ios)
{
	return ios ? (double)ticks / (double)ios : -1.0;
}

int sp_diskstats_summarise(const struct sp_diskstat *delta, size_t n,
			   struct sp_path_summary *out)
{
	uint64_t *all, *rd, *wr;
	double *f;
	size_t i;

	if (!n)
		return -EINVAL;
	all = calloc(3 * n, sizeof(*all));
	f = calloc(n, sizeof(*f));
	if (!all || !f) {
		free(all);
		free(f);
		return -ENOMEM;
	}
	rd = all + n;
	wr = all + 2 * n;
	for (i = 0; i < n; i++) {
		rd[i] = delta[i].v[SP_DS_READS];
		wr[i] = delta[i].v[SP_DS_WRITES];
		all[i] = rd[i] + wr[i];
		memset(&out[i], 0, sizeof(out[i]));
		out[i].rsvc_ms = mean_ms(delta[i].v[SP_DS_RTICKS], rd[i]);
		out[i].wsvc_ms = mean_ms(delta[i].v[SP_DS_WTICKS], wr[i]);
		out[i].svc_ms = mean_ms(delta[i].v[SP_DS_RTICKS] +
					delta[i].v[SP_DS_WTICKS], all[i]);
	}
	/* sp_shares refuses an all-zero spread; that is a direction nobody
	 * used here, whose shares stay 0. */
	if (!sp_shares(all, n, f))
		for (i = 0; i < n; i++)
			out[i].share_ios = f[i];
	if (!sp_shares(rd, n, f))
		for (i = 0; i < n; i++)
			out[i].share_reads = f[i];
	if (!sp_shares(wr, n, f))
		for (i = 0; i < n; i++)
			out[i].share_writes = f[i];
	free(all);
	free(f);
	return 0;
}
