/* Text composed into a caller's fixed buffer, and messages handed back
 * through a caller's err buffer: how pure code returns words without
 * printing them. */
#ifndef SP_STRBUF_H
#define SP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct sp_strbuf {
	char *buf;
	size_t len, used;
	int overflow;	/* something did not fit; buf holds what did */
};

#define SP_STRBUF(b, n) { .buf = (b), .len = (n) }

void sp_strbuf_printf(struct sp_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* snprintf into a fixed buffer: 0, or -ENOSPC when the text did not fit
 * (buf then holds what did), so that a cut path or command is an error,
 * not a silent truncation. */
int sp_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int sp_snprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes the message into err (when there is one) and returns ret. */
int sp_errf(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The next line of a table's text that holds data (not empty, not a
 * '#' comment) into buf, *text moved past it and *lineno counting every
 * line: 1; 0 at the end. Lines are copied whole or not at all (a
 * published table is short; a line that does not fit is damaged input,
 * never cut and read as a shorter one): -E2BIG, *lineno naming it. */
int sp_text_data_line(const char **text, int *lineno, char *buf, size_t len);

#endif
