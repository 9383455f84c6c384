#include "common/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sp_strbuf_printf(struct sp_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->overflow || sb->used >= sb->len) {
		sb->overflow = 1;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->used, sb->len - sb->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sb->len - sb->used)
		sb->overflow = 1;
	else
		sb->used += (size_t)n;
}

int sp_errf(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

int sp_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, len, fmt, ap);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int sp_snprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sp_vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

int sp_text_data_line(const char **text, int *lineno, char *buf, size_t len)
{
	while (*text && **text) {
		const char *line = *text, *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		(*lineno)++;
		*text = nl ? nl + 1 : NULL;
		if (n >= len)
			return -E2BIG;
		memcpy(buf, line, n);
		buf[n] = '\0';
		if (buf[0] && buf[0] != '#')
			return 1;
	}
	return 0;
}
