/* A table of strings emitted as aligned text, Markdown or CSV, so each
 * report is built once and every format agrees on its cells. */
#ifndef SP_RENDER_TABLE_H
#define SP_RENDER_TABLE_H

#include <stddef.h>
#include <stdio.h>

enum sp_format { SP_FMT_TEXT, SP_FMT_MD, SP_FMT_CSV, SP_FMT_JSON };

extern const char *const sp_format_names[];	/* for an opttab enum */

#define SP_TABLE_MAX_COLS 32

struct sp_table {
	size_t n_cols, n_rows, cap_rows;
	char *header[SP_TABLE_MAX_COLS];	/* owned copies */
	int right[SP_TABLE_MAX_COLS];	/* numbers align right in text */
	char **cells;			/* n_rows * n_cols, owned */
};

void sp_table_init(struct sp_table *t);
/* Columns first (name copied); a leading '>' right-aligns the column. */
int sp_table_col(struct sp_table *t, const char *name);
/* Appends a row of n_cols cells (copied; NULL is empty). */
int sp_table_row(struct sp_table *t, const char *const *cells);
void sp_table_free(struct sp_table *t);

/* text: space-aligned; md: pipe table; csv: RFC 4180 quoting. */
int sp_table_emit(const struct sp_table *t, enum sp_format fmt, FILE *out);

#endif
