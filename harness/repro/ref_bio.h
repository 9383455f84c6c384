/* The third published reference: HST's high-resolution timer fix for
 * bio-based multipath (c06dfd124d46, 2022), "hst-bio-2022": 10 paths of
 * U-shaped cost (u10's), bio-based, randwrite at iodepth 64, each
 * path's share under ST, HST before the fix, HST after it and the best
 * split (harness/repro/data/hst-bio-2022.tsv), and how a measured run
 * of the same four scores against it: the slow paths' total share (the
 * number the fix is about), TVD per column, and whether the commit's
 * conclusion holds. Pure: the loader reads only the file it is given. */
#ifndef SP_REF_BIO_H
#define SP_REF_BIO_H

#include <stddef.h>

#define SP_BIO_DEFAULT_DATA "harness/repro/data/hst-bio-2022.tsv"
#define SP_BIO_TOPOLOGY "u10-bio"
#define SP_BIO_RW "randwrite"
#define SP_BIO_IODEPTH 64
#define SP_BIO_N_PATHS 10

enum sp_bio_col {
	SP_BIO_ST,		/* service-time */
	SP_BIO_HST_BEFORE,	/* HST before the fix (hst-prebio) */
	SP_BIO_HST_AFTER,	/* HST with it (the stock build) */
	SP_BIO_BEST,		/* capacity-proportional: 1 / cost */
	SP_BIO_N_COLS,
};

struct sp_bio_table {
	size_t n_paths;
	char dev[SP_BIO_N_PATHS][8];
	double share[SP_BIO_N_COLS][SP_BIO_N_PATHS];	/* as published */
};

/* "ST", "HST before the fix", "HST after the fix", "best split" */
const char *sp_bio_col_title(enum sp_bio_col col);

/* text: the TSV (a header line "path ST ...", then one line per path:
 * DEV and four shares in 0..1). 0, or -EINVAL with one
 * "ORIGIN:LINE: ..." error (t left empty). */
int sp_bio_parse(const char *text, const char *origin, struct sp_bio_table *t);
int sp_bio_load(const char *path, struct sp_bio_table *t);

/* The best split of serial paths: share[i] = (1 / delay[i]) / sum.
 * -EINVAL for no paths or a delay that is not positive. */
int sp_bio_best_split(const double *delay_ns, size_t n, double *share);

/* A measured column (have 0: not run) beside the published one. */
struct sp_bio_col_score {
	int have;
	double published_slow, measured_slow;	/* the slow paths' total */
	double tvd;	/* to the published column, it normalised */
};

/* The commit's conclusion: before the fix HST starves the slow paths
 * (their share under the best split's by more than SP_BIO_STARVE_MIN);
 * after it HST is within SP_BIO_ALIKE_MAX of ST and above its own
 * before-the-fix share by SP_BIO_STARVE_MIN. */
#define SP_BIO_STARVE_MIN 0.05
#define SP_BIO_ALIKE_MAX 0.05

struct sp_bio_score {
	struct sp_bio_col_score col[SP_BIO_N_COLS];
	int holds;	/* -1: a column it needs was not run */
	char why[200];
};

/* measured[col][i]: each path's share in col's run (rows with
 * have[col] 0 are ignored); slow[i]: path i is slow (sp_slow_marks).
 * n must be the table's path count: -EINVAL otherwise. */
int sp_bio_score(const struct sp_bio_table *pub,
		 const double measured[SP_BIO_N_COLS][SP_BIO_N_PATHS],
		 const int have[SP_BIO_N_COLS], const int *slow, size_t n,
		 struct sp_bio_score *s);

#endif
