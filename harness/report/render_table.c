#include "harness/report/render_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const sp_format_names[] = { "text", "md", "csv", "json", NULL };

void sp_table_init(struct sp_table *t)
{
	memset(t, 0, sizeof(*t));
}

int sp_table_col(struct sp_table *t, const char *name)
{
	if (t->n_cols >= SP_TABLE_MAX_COLS || t->n_rows)
		return -EINVAL;
	t->right[t->n_cols] = name[0] == '>';
	t->header[t->n_cols] = strdup(name + (name[0] == '>'));
	if (!t->header[t->n_cols])
		return -ENOMEM;
	t->n_cols++;
	return 0;
}

int sp_table_row(struct sp_table *t, const char *const *cells)
{
	size_t i;

	if (t->n_rows == t->cap_rows) {
		size_t cap = t->cap_rows ? 2 * t->cap_rows : 8;
		char **more = realloc(t->cells, cap * t->n_cols * sizeof(*more));

		if (!more)
			return -ENOMEM;
		t->cells = more;
		t->cap_rows = cap;
	}
	for (i = 0; i < t->n_cols; i++) {
		t->cells[t->n_rows * t->n_cols + i] = strdup(cells[i] ? cells[i] : "");
		if (!t->cells[t->n_rows * t->n_cols + i]) {
			while (i--)
				free(t->cells[t->n_rows * t->n_cols + i]);
			return -ENOMEM;
		}
	}
	t->n_rows++;
	return 0;
}

void sp_table_free(struct sp_table *t)
{
	size_t i;

	for (i = 0; i < t->n_rows * t->n_cols; i++)
		free(t->cells[i]);
	for (i = 0; i < t->n_cols; i++)
		free(t->header[i]);
	free(t->cells);
	sp_table_init(t);
}

static const char *cell(const struct sp_table *t, size_t r, size_t c)
{
	return t->cells[r * t->n_cols + c];
}

/* Pads lazily so a row never ends in spaces when its last cells are empty. */
static void emit_text(const struct sp_table *t, FILE *out)
{
	size_t w[SP_TABLE_MAX_COLS], r, c, len, pending;

	for (c = 0; c < t->n_cols; c++) {
		w[c] = strlen(t->header[c]);
		for (r = 0; r < t->n_rows; r++)
			if (strlen(cell(t, r, c)) > w[c])
				w[c] = strlen(cell(t, r, c));
	}
	for (r = 0; r <= t->n_rows; r++) {
		pending = 0;
		for (c = 0; c < t->n_cols; c++) {
			const char *s = r ? cell(t, r - 1, c) : t->header[c];

			len = strlen(s);
			if (t->right[c])
				pending += w[c] - len;
			if (len) {
				fprintf(out, "%*s%s", (int)pending, "", s);
				pending = 0;
			}
			if (!t->right[c])
				pending += w[c] - len;
			pending += 2;
		}
		fputc('\n', out);
	}
}

static void emit_md(const struct sp_table *t, FILE *out)
{
	size_t r, c;

	for (c = 0; c < t->n_cols; c++)
		fprintf(out, "| %s ", t->header[c]);
	fputs("|\n", out);
	for (c = 0; c < t->n_cols; c++)
		fputs(t->right[c] ? "|---:" : "|:---", out);
	fputs("|\n", out);
	for (r = 0; r < t->n_rows; r++) {
		for (c = 0; c < t->n_cols; c++) {
			const char *s = cell(t, r, c);

			fputs("| ", out);
			for (; *s; s++) {
				if (*s == '|')
					fputc('\\', out);
				fputc(*s, out);
			}
			fputc(' ', out);
		}
		fputs("|\n", out);
	}
}

static void csv_field(const char *s, FILE *out)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void emit_csv(const struct sp_table *t, FILE *out)
{
	size_t r, c;

	for (r = 0; r <= t->n_rows; r++) {
		for (c = 0; c < t->n_cols; c++) {
			if (c)
				fputc(',', out);
			csv_field(r ? cell(t, r - 1, c) : t->header[c], out);
		}
		fputc('\n', out);
	}
}

int sp_table_emit(const struct sp_table *t, enum sp_format fmt, FILE *out)
{
	switch (fmt) {
	case SP_FMT_TEXT:
		emit_text(t, out);
		break;
	case SP_FMT_MD:
		emit_md(t, out);
		break;
	case SP_FMT_CSV:
		emit_csv(t, out);
		break;
	default:
		return -EINVAL;
	}
	return ferror(out) ? -EIO : 0;
}
