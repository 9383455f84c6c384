/* hst-bio-2022's table and its scoring; see ref_bio.h. */
#include "harness/repro/ref_bio.h"

#include "common/file.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "harness/measure/shares.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const titles[SP_BIO_N_COLS] = {
	"ST", "HST before the fix", "HST after the fix", "best split",
};

const char *sp_bio_col_title(enum sp_bio_col col)
{
	return (unsigned)col < SP_BIO_N_COLS ? titles[col] : "?";
}

/* One data line into row n of t: 0, or -EINVAL. */
static int parse_row(const char *buf, struct sp_bio_table *t)
{
	double v[SP_BIO_N_COLS];
	char dev[8];
	int end = 0, c;

	if (t->n_paths >= SP_BIO_N_PATHS ||
	    sscanf(buf, "%7s %lf %lf %lf %lf%n", dev, &v[0], &v[1], &v[2],
		   &v[3], &end) != 5 || buf[end])
		return -EINVAL;
	for (c = 0; c < SP_BIO_N_COLS; c++) {
		if (!(v[c] >= 0 && v[c] <= 1))
			return -EINVAL;
		t->share[c][t->n_paths] = v[c];
	}
	snprintf(t->dev[t->n_paths], sizeof(t->dev[0]), "%s", dev);
	t->n_paths++;
	return 0;
}

int sp_bio_parse(const char *text, const char *origin, struct sp_bio_table *t)
{
	const char *line = text;
	char buf[256];
	int lineno = 0, header = 0, got;

	memset(t, 0, sizeof(*t));
	while ((got = sp_text_data_line(&line, &lineno, buf, sizeof(buf))) > 0) {
		if (!header++ && !strncmp(buf, "path\t", 5))
			continue;
		if (parse_row(buf, t)) {
			sp_err("%s:%d: want DEV and the ST, HST_before, HST_after "
			       "and best shares (0..1), at most %d paths",
			       origin, lineno, SP_BIO_N_PATHS);
			memset(t, 0, sizeof(*t));
			return -EINVAL;
		}
	}
	if (got < 0) {
		sp_err("%s:%d: a line over %zu characters", origin, lineno,
		       sizeof(buf) - 1);
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	if (t->n_paths != SP_BIO_N_PATHS) {
		sp_err("%s: %zu paths, the published table has %d", origin,
		       t->n_paths, SP_BIO_N_PATHS);
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	return 0;
}

int sp_bio_load(const char *path, struct sp_bio_table *t)
{
	char *text = NULL;
	int ret = sp_file_read(path, 1 << 16, &text, NULL);

	if (ret) {
		sp_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = sp_bio_parse(text, path, t);
	free(text);
	return ret;
}

int sp_bio_best_split(const double *delay_ns, size_t n, double *share)
{
	double sum = 0;
	size_t i;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!(delay_ns[i] > 0))
			return -EINVAL;
		sum += 1 / delay_ns[i];
	}
	for (i = 0; i < n; i++)
		share[i] = 1 / delay_ns[i] / sum;
	return 0;
}

/* The published column normalised (the table's two decimals need not
 * sum to 1) against the measured one. */
static void score_col(const double *pub, const double *meas, const int *slow,
		      size_t n, struct sp_bio_col_score *cs)
{
	double norm[SP_BIO_N_PATHS], sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += pub[i];
	for (i = 0; i < n; i++)
		norm[i] = sum > 0 ? pub[i] / sum : 0;
	cs->published_slow = sp_share_of(pub, slow, n);
	cs->measured_slow = sp_share_of(meas, slow, n);
	cs->tvd = sp_total_variation(norm, meas, n);
}

static void judge(struct sp_bio_score *s)
{
	const struct sp_bio_col_score *st = &s->col[SP_BIO_ST],
		*before = &s->col[SP_BIO_HST_BEFORE],
		*after = &s->col[SP_BIO_HST_AFTER], *best = &s->col[SP_BIO_BEST];
	int starves, alike, restored;

	if (!st->have || !before->have || !after->have || !best->have) {
		s->holds = -1;
		snprintf(s->why, sizeof(s->why), "not every column was run");
		return;
	}
	starves = before->measured_slow < best->measured_slow - SP_BIO_STARVE_MIN;
	alike = fabs(after->measured_slow - st->measured_slow) <= SP_BIO_ALIKE_MAX;
	restored = after->measured_slow > before->measured_slow + SP_BIO_STARVE_MIN;
	s->holds = starves && alike && restored;
	snprintf(s->why, sizeof(s->why),
		 "before the fix HST %s the slow paths (%.3f, best %.3f); after "
		 "it %.3f, %s ST's %.3f%s",
		 starves ? "starves" : "does not starve", before->measured_slow,
		 best->measured_slow, after->measured_slow,
		 alike ? "alike" : "not alike", st->measured_slow,
		 restored ? "" : ", no more than before it");
}

int sp_bio_score(const struct sp_bio_table *pub,
		 const double measured[SP_BIO_N_COLS][SP_BIO_N_PATHS],
		 const int have[SP_BIO_N_COLS], const int *slow, size_t n,
		 struct sp_bio_score *s)
{
	int c;

	memset(s, 0, sizeof(*s));
	if (n != pub->n_paths || n > SP_BIO_N_PATHS) {
		sp_err("hst-bio-2022: %zu paths measured, the published table "
		       "has %zu", n, pub->n_paths);
		return -EINVAL;
	}
	for (c = 0; c < SP_BIO_N_COLS; c++) {
		s->col[c].have = have[c];
		score_col(pub->share[c], measured[c], slow, n, &s->col[c]);
	}
	judge(s);
	return 0;
}
