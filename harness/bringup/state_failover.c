/* The journal's failover records: the topology's initiator keys, the
 * dm_multipath timeout `up` changed, and the fault in force on a path
 * (harness/fault). Kept apart from state_parse.c, which replays the rest. */
#include "harness/bringup/state.h"

#include "common/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sp_state_path *path_by_text(struct sp_state *st,
					  const char *tok)
{
	char *end;
	unsigned long n;
	size_t i;

	if (*tok < '0' || *tok > '9')
		return NULL;
	n = strtoul(tok, &end, 10);
	if (*end)
		return NULL;
	for (i = 0; i < st->npaths; i++)
		if (st->paths[i].index == n)
			return &st->paths[i];
	return NULL;
}

static int id_ok(const char *id)
{
	return *id && strlen(id) < SP_STATE_FAULT_IDLEN &&
	       strspn(id, "0123456789abcdefghijklmnopqrstuvwxyz.-") ==
		       strlen(id);
}

/* t[from..n-1] joined by blanks into the path's spec */
static int join_spec(struct sp_state_path *p, char **t, int from, int n)
{
	size_t used = 0, k;
	int i;

	p->fault_spec[0] = '\0';
	for (i = from; i < n; i++) {
		k = strlen(t[i]);
		if (used + k + 2 > sizeof(p->fault_spec))
			return -ENOSPC;
		if (used)
			p->fault_spec[used++] = ' ';
		memcpy(p->fault_spec + used, t[i], k + 1);
		used += k;
	}
	return 0;
}

int sp_state_parse_failover(struct sp_state *st, char **t, int n, char *why,
			    size_t whylen)
{
	struct sp_state_path *p;
	struct sp_initiator in;
	unsigned long long u;
	char *end;
	int i;

	if (!strcmp(t[0], "initiator")) {
		sp_initiator_init(&in);
		for (i = 1; i < n; i++)
			if (sp_initiator_parse_kv(&in, t[i]))
				return sp_errf(why, whylen, -EINVAL, "bad "
					       "initiator field '%s'", t[i]);
		st->init = in;
		return 0;
	}
	if (!strcmp(t[0], "qtimeout")) {
		if (n < 2 || *t[1] < '0' || *t[1] > '9' ||
		    (u = strtoull(t[1], &end, 10), *end) || u > UINT32_MAX)
			return sp_errf(why, whylen, -EINVAL, "bad qtimeout '%s'",
				       n < 2 ? "" : t[1]);
		st->has_qtimeout = 1;
		st->qtimeout_was = (unsigned int)u;
		return 0;
	}
	/* fault N HOW [id=ID] SPEC... (a spec starts at= or path=, so an
	 * older journal's line has no id) */
	p = n >= 3 ? path_by_text(st, t[1]) : NULL;
	if (!p || strlen(t[2]) >= sizeof(p->fault_how))
		return sp_errf(why, whylen, -EINVAL, "bad fault line");
	p->fault_how[0] = p->fault_spec[0] = p->fault_id[0] = '\0';
	if (!strcmp(t[2], "none"))
		return 0;
	i = 3;
	if (n > 3 && !strncmp(t[3], "id=", 3)) {
		if (!id_ok(t[3] + 3))
			return sp_errf(why, whylen, -EINVAL, "bad fault id "
				       "'%.60s'", t[3] + 3);
		strcpy(p->fault_id, t[3] + 3);
		i = 4;
	}
	if (join_spec(p, t, i, n))
		return sp_errf(why, whylen, -EINVAL, "fault spec too long");
	strcpy(p->fault_how, t[2]);
	return 0;
}

int sp_state_fmt_initiator(const struct sp_state *st, char *buf, size_t len)
{
	char kv[256], qt[32] = "";
	int ret = sp_initiator_format(&st->init, kv, sizeof(kv));

	if (ret)
		return ret;
	if (st->has_qtimeout)
		snprintf(qt, sizeof(qt), "qtimeout %u\n", st->qtimeout_was);
	return sp_snprintf(buf, len, "%s%s%s%s", kv[0] ? "initiator " : "", kv,
			   kv[0] ? "\n" : "", qt);
}

int sp_state_fmt_fault_id(unsigned int index, const char *how,
			  const char *id, const char *spec, char *buf,
			  size_t len)
{
	if (!how || !*how)
		return sp_snprintf(buf, len, "fault %u none\n", index);
	if (strpbrk(how, " \t\n\r") || !strcmp(how, "none") ||
	    (spec && strpbrk(spec, "\n\r")) || (id && *id && !id_ok(id)))
		return -EINVAL;
	return sp_snprintf(buf, len, "fault %u %s %s%s%s%s\n", index, how,
			   id && *id ? "id=" : "", id && *id ? id : "",
			   id && *id ? " " : "", spec ? spec : "");
}

int sp_state_fmt_fault(unsigned int index, const char *how, const char *spec,
		       char *buf, size_t len)
{
	return sp_state_fmt_fault_id(index, how, NULL, spec, buf, len);
}
