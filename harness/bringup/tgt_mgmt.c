/* tgtadm's command line read into the request tgtadm would send
 * (tgt_mgmt.h). Pure: unit tests hold it to tgtadm's text byte for byte.
 * One table says which options are spoken; a form tgtadm also accepts
 * but slowpath never writes (--op=new, -Cport, abbreviations) is not,
 * and goes to the tgtadm program. */
#include "harness/bringup/tgt_mgmt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tgt_field {
	F_PORT, F_LLD, F_OP, F_MODE, F_TID, F_LUN, F_PATH, F_BSTYPE,
	F_BSOPTS, F_TARGETNAME, F_ADDRESS, F_USER, F_PASSWORD, F_PARAMS,
	F_FORCE, F_OUTGOING, F_COUNT
};

struct tgt_opt {
	const char *long_name;
	char short_name;
	enum tgt_field field;
	int takes_value;
};

static const struct tgt_opt tgt_opts[] = {
	{ "control-port", 'C', F_PORT, 1 },
	{ "lld", 'L', F_LLD, 1 },
	{ "op", 'o', F_OP, 1 },
	{ "mode", 'm', F_MODE, 1 },
	{ "tid", 't', F_TID, 1 },
	{ "lun", 'l', F_LUN, 1 },
	{ "backing-store", 'b', F_PATH, 1 },
	{ "bstype", 'E', F_BSTYPE, 1 },
	{ "bsopts", 'S', F_BSOPTS, 1 },
	{ "targetname", 'T', F_TARGETNAME, 1 },
	{ "initiator-address", 'I', F_ADDRESS, 1 },
	{ "user", 'u', F_USER, 1 },
	{ "password", 'p', F_PASSWORD, 1 },
	{ "params", 'P', F_PARAMS, 1 },
	{ "force", 'F', F_FORCE, 0 },
	{ "outgoing", 'O', F_OUTGOING, 0 },
};

/* tgtadm's names, with its short forms */
struct tgt_name {
	const char *name;
	int value;
};

static const struct tgt_name tgt_modes[] = {
	{ "system", SP_TGT_SYSTEM }, { "sys", SP_TGT_SYSTEM },
	{ "target", SP_TGT_TARGET }, { "tgt", SP_TGT_TARGET },
	{ "logicalunit", SP_TGT_LU }, { "lu", SP_TGT_LU },
	{ "account", SP_TGT_ACCOUNT }, { NULL, 0 },
};
static const struct tgt_name tgt_ops[] = {
	{ "new", SP_TGT_NEW }, { "delete", SP_TGT_DELETE },
	{ "show", SP_TGT_SHOW }, { "bind", SP_TGT_BIND },
	{ "update", SP_TGT_UPDATE }, { NULL, 0 },
};

static int lookup(const struct tgt_name *t, const char *name, int *value)
{
	for (; t->name; t++)
		if (!strcmp(t->name, name)) {
			*value = t->value;
			return 0;
		}
	return -ENOTSUP;
}

static const struct tgt_opt *find_opt(const char *arg)
{
	size_t i;

	for (i = 0; i < sizeof(tgt_opts) / sizeof(tgt_opts[0]); i++) {
		const struct tgt_opt *o = &tgt_opts[i];

		if ((arg[0] == '-' && arg[1] == '-' &&
		     !strcmp(arg + 2, o->long_name)) ||
		    (arg[0] == '-' && arg[1] == o->short_name && !arg[2]))
			return o;
	}
	return NULL;
}

/* tgtadm's str_to_int: all digits, within max */
static int parse_uint(const char *s, unsigned long long max,
		      unsigned long long *v)
{
	char *end;

	if (!s[0] || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -EINVAL : 0;
}

static int add(struct sp_tgt_req *r, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->params + *len, sizeof(r->params) - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(r->params) - *len)
		return -ENOSPC;
	*len += (size_t)n;
	return 0;
}

/* the text in tgtadm's order and spelling (usr/tgtadm.c, the end of
 * main); --params is its targetOps, with the trailing comma */
static int build_params(struct sp_tgt_req *r, const char *const *val)
{
	static const struct {
		enum tgt_field field;
		const char *key;
	} keys[] = {
		{ F_PATH, "path" }, { F_BSTYPE, "bstype" },
		{ F_BSOPTS, "bsopts" }, { F_TARGETNAME, "targetname" },
		{ F_ADDRESS, "initiator-address" }, { F_USER, "user" },
		{ F_PASSWORD, "password" },
	};
	size_t i, len = 0;
	int ret = 0;

	r->params[0] = '\0';
	for (i = 0; !ret && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (val[keys[i].field])
			ret = add(r, &len, "%s%s=%s", len ? "," : "",
				  keys[i].key, val[keys[i].field]);
	if (!ret && val[F_PARAMS])
		ret = add(r, &len, "%stargetOps %s,", len ? "," : "",
			  val[F_PARAMS]);
	return ret;
}

static int collect(const char *const *argv, const char **val)
{
	size_t i;

	for (i = 1; argv[i]; i++) {
		const struct tgt_opt *o = find_opt(argv[i]);

		if (!o)
			return -ENOTSUP;
		if (!o->takes_value) {
			val[o->field] = "";
			continue;
		}
		if (!argv[i + 1])
			return -EINVAL;
		val[o->field] = argv[++i];
	}
	return 0;
}

int sp_tgt_req_parse(const char *const *argv, struct sp_tgt_req *r)
{
	const char *val[F_COUNT] = { 0 };
	unsigned long long n;
	int mode, op, ret;

	memset(r, 0, sizeof(*r));
	r->tid = -1;
	r->lun = UINT64_MAX;
	ret = collect(argv, val);
	if (ret)
		return ret;
	if (!val[F_OP] || !val[F_MODE] || !val[F_PORT])
		return -ENOTSUP;
	if (lookup(tgt_ops, val[F_OP], &op) ||
	    lookup(tgt_modes, val[F_MODE], &mode))
		return -ENOTSUP;
	r->op = (enum sp_tgt_op)op;
	r->mode = (enum sp_tgt_mode)mode;
	if (parse_uint(val[F_PORT], 65535, &n))
		return -EINVAL;
	r->port = (unsigned int)n;
	if (val[F_TID]) {
		if (parse_uint(val[F_TID], INT32_MAX, &n))
			return -EINVAL;
		r->tid = (int32_t)n;
	}
	if (val[F_LUN]) {
		if (parse_uint(val[F_LUN], UINT64_MAX, &n))
			return -EINVAL;
		r->lun = n;
	}
	if (val[F_LLD] && strlen(val[F_LLD]) >= sizeof(r->lld))
		return -EINVAL;
	snprintf(r->lld, sizeof(r->lld), "%s", val[F_LLD] ? val[F_LLD] : "");
	r->force = val[F_FORCE] != NULL;
	r->outgoing = val[F_OUTGOING] != NULL;
	return build_params(r, val);
}
