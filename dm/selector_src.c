/* The checks of a user's selector source and module (selector_src.h). */
#include "dm/selector_src.h"

#include "common/name.h"
#include "dm/selector.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

static const char *skip_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* The matching '}' of the '{' at p (strings and comments are not
 * special: a selector's initialiser holds neither braces nor both). */
static const char *closing_brace(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p;
	}
	return NULL;
}

/* The string literal at q (after optional space) into name. */
static int literal(const char *q, const char *end, char *name, size_t len)
{
	const char *close;
	size_t n;

	q = skip_space(q);
	if (*q != '"')
		return -ENOENT;
	close = strchr(q + 1, '"');
	if (!close || (end && close > end))
		return -ENOENT;
	n = (size_t)(close - q - 1);
	if (n >= len || n >= SP_SEL_NAME_MAX)
		return -EINVAL;
	memcpy(name, q + 1, n);
	name[n] = '\0';
	return sp_name_ok(name) ? 0 : -EINVAL;
}

/* `#define ident "string"` somewhere in src: a .name given by macro. */
static int macro_literal(const char *src, const char *ident, size_t idlen,
			 char *name, size_t len)
{
	const char *p = src, *q;

	while ((p = strstr(p, "#define"))) {
		q = skip_space(p + 7);
		p += 7;
		if (strncmp(q, ident, idlen) ||
		    isalnum((unsigned char)q[idlen]) || q[idlen] == '_' ||
		    q[idlen] == '(')
			continue;
		return literal(q + idlen, NULL, name, len);
	}
	return -ENOENT;
}

static int name_in(const char *src, const char *p, const char *end,
		   char *name, size_t len)
{
	const char *q, *id;

	for (; (p = strstr(p, ".name")) && p < end; p += 5) {
		q = skip_space(p + 5);
		if (*q != '=')
			continue;
		q = skip_space(q + 1);
		if (*q == '"')
			return literal(q, end, name, len);
		id = q;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (q == id || q > end)
			return -ENOENT;
		return macro_literal(src, id, (size_t)(q - id), name, len);
	}
	return -ENOENT;
}

int sp_selector_src_name(const char *src, char *name, size_t len)
{
	const char *p = src, *q, *end;

	while ((p = strstr(p, "struct path_selector_type"))) {
		p += strlen("struct path_selector_type");
		q = skip_space(p);
		/* an identifier, then '=' and '{': a definition, not a
		 * pointer or a prototype */
		if (!isalpha((unsigned char)*q) && *q != '_')
			continue;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		q = skip_space(q);
		if (*q != '=')
			continue;
		q = skip_space(q + 1);
		if (*q != '{' || !(end = closing_brace(q)))
			continue;
		return name_in(src, q, end, name, len);
	}
	return -ENOENT;
}

/* needle (with its NUL) somewhere in the image, preceded by a NUL: a
 * whole string of the module's string tables. */
static int has_string(const char *ko, size_t len, const char *needle)
{
	size_t n = strlen(needle) + 1;
	const char *p = ko, *end = ko + len;

	while (p < end && (p = memmem(p, (size_t)(end - p), needle, n))) {
		if (p > ko && p[-1] == '\0')
			return 1;
		p++;
	}
	return 0;
}

int sp_selector_ko_registers(const char *ko, size_t len, const char *name)
{
	return has_string(ko, len, "dm_register_path_selector") &&
	       has_string(ko, len, name);
}

/* The value of the .modinfo string "KEY=value" (key with its '='),
 * preceded by a NUL as every string of that section is. */
static int modinfo_value(const char *ko, size_t len, const char *key,
			 char *out, size_t outlen)
{
	size_t klen = strlen(key), n;
	const char *p = ko, *end = ko + len, *nul;

	while (p < end && (p = memmem(p, (size_t)(end - p), key, klen))) {
		if (p > ko && p[-1] == '\0') {
			p += klen;
			nul = memchr(p, '\0', (size_t)(end - p));
			if (!nul)
				return -ENOENT;
			n = (size_t)(nul - p);
			if (n == 0 || n >= outlen)
				return -ENOENT;
			memcpy(out, p, n);
			out[n] = '\0';
			return 0;
		}
		p++;
	}
	return -ENOENT;
}

int sp_selector_ko_modname(const char *ko, size_t len, char *mod,
			   size_t modlen)
{
	if (modinfo_value(ko, len, "name=", mod, modlen))
		return -ENOENT;
	return sp_name_ok(mod) ? 0 : -ENOENT;
}

int sp_selector_ko_srcversion(const char *ko, size_t len, char *out,
			      size_t outlen)
{
	size_t i;

	if (modinfo_value(ko, len, "srcversion=", out, outlen))
		return -ENOENT;
	for (i = 0; out[i]; i++)
		if (!isalnum((unsigned char)out[i])) {
			out[0] = '\0';
			return -ENOENT;
		}
	return 0;
}

static void copy_line(const char *start, const char *tmpdir, const char *shown,
		      char *line, size_t len)
{
	const char *eol = strchr(start, '\n');
	size_t tl = tmpdir ? strlen(tmpdir) : 0, o = 0, sl;

	if (!eol)
		eol = start + strlen(start);
	while (start < eol && o + 1 < len) {
		if (tl && (size_t)(eol - start) >= tl && !strncmp(start, tmpdir, tl)) {
			sl = strlen(shown);
			if (o + sl >= len)
				break;
			memcpy(line + o, shown, sl);
			o += sl;
			start += tl;
			continue;
		}
		line[o++] = *start++;
	}
	line[o] = '\0';
}

void sp_selector_first_error(const char *log, const char *tmpdir,
			     const char *shown, char *line, size_t len)
{
	const char *p, *hit = NULL;

	if (!len)
		return;
	line[0] = '\0';
	if (!log)
		return;
	for (p = log; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char buf[1024];

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (strstr(buf, "error:")) {
			hit = p;
			break;
		}
		if (!hit && strstr(buf, "***") && strstr(buf, "Error"))
			hit = p;
	}
	if (hit)
		copy_line(hit, tmpdir, shown, line, len);
}
