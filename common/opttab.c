#include "common/opttab.h"

#include "common/units.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct sp_opt *find_opt(const struct sp_opt *table,
				     const char *name, size_t name_len)
{
	for (; table->name; table++) {
		if (strlen(table->name) == name_len &&
		    !strncmp(table->name, name, name_len))
			return table;
	}
	return NULL;
}

static int bad_value(const struct sp_opt *opt, const char *value, int ret,
		     const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen, "bad value '%s' for option '%s': %s",
		 value ? value : "", opt->name, why);
	return ret;
}

static int store_int(const struct sp_opt *opt, char *field,
		     const char *value, char *err, size_t errlen)
{
	int bounded = opt->min != 0 || opt->max != 0;
	int64_t i64;
	int ret;

	ret = sp_parse_int64(value, bounded ? (int64_t)opt->min : INT64_MIN,
			     bounded ? (int64_t)opt->max : INT64_MAX, &i64);
	if (ret == -ERANGE) {
		char why[64];

		snprintf(why, sizeof(why), "must be from %.0f to %.0f",
			 opt->min, opt->max);
		return bad_value(opt, value, ret, why, err, errlen);
	}
	if (ret)
		return bad_value(opt, value, ret, "not a whole number",
				 err, errlen);
	*(int64_t *)field = i64;
	return 0;
}

static int store_double(const struct sp_opt *opt, char *field,
			const char *value, char *err, size_t errlen)
{
	int bounded = opt->min != 0 || opt->max != 0;
	double dbl;

	if (sp_parse_double(value, &dbl))
		return bad_value(opt, value, -EINVAL, "not a number",
				 err, errlen);
	if (bounded && (dbl < opt->min || dbl > opt->max)) {
		char why[64];

		snprintf(why, sizeof(why), "must be from %g to %g",
			 opt->min, opt->max);
		return bad_value(opt, value, -ERANGE, why, err, errlen);
	}
	*(double *)field = dbl;
	return 0;
}

/* SP_OPT_DURATION, and SP_OPT_DELAY: no longer than one command may be
 * held. */
static int store_duration(const struct sp_opt *opt, char *field,
			  const char *value, char *err, size_t errlen)
{
	int64_t i64;
	int ret = sp_parse_duration_ns(value, &i64);

	if (ret)
		return bad_value(opt, value, ret,
				 "want a time such as 500us, 1ms or 2s",
				 err, errlen);
	if (opt->type == SP_OPT_DELAY && i64 > SP_DELAY_MAX_NS)
		return bad_value(opt, value, -ERANGE,
				 "must be at most 60s, the most one "
				 "command may be held", err, errlen);
	*(int64_t *)field = i64;
	return 0;
}

static int store_size(const struct sp_opt *opt, char *field,
		      const char *value, char *err, size_t errlen)
{
	uint64_t u64;
	int ret = sp_parse_size_bytes(value, &u64);

	if (ret)
		return bad_value(opt, value, ret,
				 "want a size such as 4k or 500M",
				 err, errlen);
	*(uint64_t *)field = u64;
	return 0;
}

/* A bare flag (no value) is yes. */
static int store_bool(const struct sp_opt *opt, char *field,
		      const char *value, char *err, size_t errlen)
{
	if (!value || !strcmp(value, "1") || !strcmp(value, "yes") ||
	    !strcmp(value, "on") || !strcmp(value, "true"))
		*(int *)field = 1;
	else if (!strcmp(value, "0") || !strcmp(value, "no") ||
		 !strcmp(value, "off") || !strcmp(value, "false"))
		*(int *)field = 0;
	else
		return bad_value(opt, value, -EINVAL, "want yes or no",
				 err, errlen);
	return 0;
}

/* The choice's index; a wrong one gets the choices listed. */
static int store_enum(const struct sp_opt *opt, char *field,
		      const char *value, char *err, size_t errlen)
{
	char why[160] = "want one of";
	size_t used = strlen(why);
	int k;

	for (k = 0; opt->choices[k]; k++) {
		if (!strcmp(opt->choices[k], value)) {
			*(int *)field = k;
			return 0;
		}
	}
	for (k = 0; opt->choices[k] && used < sizeof(why); k++)
		used += (size_t)snprintf(why + used,
			sizeof(why) - used, "%s%s",
			k ? "|" : " ", opt->choices[k]);
	return bad_value(opt, value, -EINVAL, why, err, errlen);
}

static int store(const struct sp_opt *opt, void *dst, size_t offset,
		 const char *value, char *err, size_t errlen)
{
	char *field = (char *)dst + offset;

	switch (opt->type) {
	case SP_OPT_STR:
		*(const char **)field = value;
		return 0;
	case SP_OPT_INT:
		return store_int(opt, field, value, err, errlen);
	case SP_OPT_DOUBLE:
		return store_double(opt, field, value, err, errlen);
	case SP_OPT_DURATION:
	case SP_OPT_DELAY:
		return store_duration(opt, field, value, err, errlen);
	case SP_OPT_SIZE:
		return store_size(opt, field, value, err, errlen);
	case SP_OPT_BOOL:
		return store_bool(opt, field, value, err, errlen);
	case SP_OPT_ENUM:
		return store_enum(opt, field, value, err, errlen);
	}
	return -EINVAL;
}

int sp_opt_set(const struct sp_opt *table, void *dst, const char *name,
	       const char *value, char *err, size_t errlen)
{
	const struct sp_opt *opt = find_opt(table, name, strlen(name));
	int ret;

	if (!opt) {
		snprintf(err, errlen, "unknown option '%s'", name);
		return -ENOENT;
	}
	if (!value && opt->type != SP_OPT_BOOL)
		return bad_value(opt, value, -EINVAL, "needs a value", err,
				 errlen);
	ret = store(opt, dst, opt->offset, value, err, errlen);
	if (!ret && opt->also_offset)
		ret = store(opt, dst, opt->also_offset, value, err, errlen);
	return ret;
}

int sp_opt_set_defaults(const struct sp_opt *table, void *dst)
{
	char err[SP_OPT_ERRLEN];
	int ret;

	for (; table->name; table++) {
		if (!table->def)
			continue;
		ret = store(table, dst, table->offset, table->def, err,
			    sizeof(err));
		if (!ret && table->also_offset)
			ret = store(table, dst, table->also_offset, table->def,
				    err, sizeof(err));
		if (ret)
			return ret;
	}
	return 0;
}

int sp_opt_parse_kv(const struct sp_opt *table, void *dst, char *text,
		    char separator, char *err, size_t errlen)
{
	char *pair = text, *next, *eq;
	int ret;

	while (pair && *pair) {
		next = strchr(pair, separator);
		if (next)
			*next++ = '\0';
		if (*pair) {
			eq = strchr(pair, '=');
			if (eq)
				*eq++ = '\0';
			ret = sp_opt_set(table, dst, pair, eq, err, errlen);
			if (ret)
				return ret;
		}
		pair = next;
	}
	return 0;
}

int sp_opt_parse_argv(const struct sp_opt *table, void *dst, int argc,
		      char **argv, int first, int *next, char *err,
		      size_t errlen)
{
	const struct sp_opt *opt;
	const char *name, *eq, *value;
	char name_buf[64];
	size_t name_len;
	int i, ret;

	for (i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (strncmp(argv[i], "--", 2) || !argv[i][2])
			break;
		name = argv[i] + 2;
		eq = strchr(name, '=');
		name_len = eq ? (size_t)(eq - name) : strlen(name);
		opt = find_opt(table, name, name_len);
		if (!opt || name_len >= sizeof(name_buf)) {
			snprintf(err, errlen, "unknown option '--%.*s'",
				 (int)name_len, name);
			return -ENOENT;
		}
		memcpy(name_buf, name, name_len);
		name_buf[name_len] = '\0';
		if (eq)
			value = eq + 1;
		else if (opt->type == SP_OPT_BOOL)
			value = NULL;
		else if (i + 1 < argc)
			value = argv[++i];
		else {
			snprintf(err, errlen, "option '--%s' needs a value",
				 name_buf);
			return -EINVAL;
		}
		ret = sp_opt_set(table, dst, name_buf, value, err, errlen);
		if (ret)
			return ret;
	}
	*next = i;
	return 0;
}

/* One line per option, its name as the user types it: "--name VALUE"
 * on a command line (prefix "--"), "name=VALUE" in a key=value list. */
static size_t help_lines(const struct sp_opt *table, const char *prefix,
			 char *buf, size_t len)
{
	size_t used = 0;
	char name[48];
	int n;

	if (len)
		buf[0] = '\0';
	for (; table->name && used < len; table++) {
		if (*prefix)
			snprintf(name, sizeof(name), "%s%s%s", prefix,
				 table->name, table->type == SP_OPT_BOOL ?
				 "" : " VALUE");
		else
			snprintf(name, sizeof(name), "%s%s", table->name,
				 table->type == SP_OPT_BOOL ? "" : "=VALUE");
		n = snprintf(buf + used, len - used, "  %-22s %s%s%s%s\n",
			     name, table->help ? table->help : "",
			     table->def ? " (default " : "",
			     table->def ? table->def : "",
			     table->def ? ")" : "");
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return used < len ? used : len;
}

size_t sp_opt_help(const struct sp_opt *table, char *buf, size_t len)
{
	return help_lines(table, "", buf, len);
}

size_t sp_opt_help_argv(const struct sp_opt *table, char *buf, size_t len)
{
	return help_lines(table, "--", buf, len);
}
