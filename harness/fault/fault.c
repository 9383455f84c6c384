/* The pure half of path faults: HOW names, the spec grammar
 * ("at=10s path=p2 how=hang for=20s") read and written back. Every
 * word is checked here, before anything touches the system: a spec
 * comes from a user's command line or a run's --fault. See fault.h. */
#include "harness/fault/fault.h"

#include "common/name.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "harness/bringup/nvmet.h"
#include "tgt-backend/delay_fault.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const how_names[SP_FAULT_HOW_COUNT] = {
	[SP_FAULT_HANG] = "hang", [SP_FAULT_RESET] = "reset",
	[SP_FAULT_BLACKHOLE] = "blackhole", [SP_FAULT_DOWN] = "down",
	[SP_FAULT_ERROR] = "error", [SP_FAULT_FLAP] = "flap",
	[SP_FAULT_SLOW] = "slow", [SP_FAULT_ANA] = "ana",
	[SP_FAULT_RESTORE] = "restore",
};

#define SPEC_MAX 512
#define DEFAULT_PERIOD_NS (5 * SP_NSEC_PER_SEC)
/* a link toggled faster than this is noise, not a flapping port */
#define MIN_PERIOD_NS (100 * SP_NSEC_PER_MSEC)
#define DEFAULT_FACTOR 10.0
#define MAX_FACTOR 100000.0

const char *sp_fault_how_name(enum sp_fault_how how)
{
	return how >= 0 && how < SP_FAULT_HOW_COUNT ? how_names[how] : "?";
}

int sp_fault_how_parse(const char *name, enum sp_fault_how *how)
{
	int i;

	for (i = 0; i < SP_FAULT_HOW_COUNT; i++)
		if (!strcmp(how_names[i], name)) {
			*how = (enum sp_fault_how)i;
			return 0;
		}
	return -EINVAL;
}

void sp_fault_init(struct sp_fault *f, enum sp_fault_how how)
{
	memset(f, 0, sizeof(*f));
	f->how = how;
	f->at_ns = -1;
	f->error_rate = 1.0;
	snprintf(f->error_sense, sizeof(f->error_sense), "%s",
		 delay_sense_names[DELAY_SENSE_MEDIUM]);
	f->flap_period_ns = DEFAULT_PERIOD_NS;
	f->slow_factor = DEFAULT_FACTOR;
	snprintf(f->ana_state, sizeof(f->ana_state), "inaccessible");
}


enum key { K_AT, K_PATH, K_HOW, K_FOR, K_RATE, K_SENSE, K_PERIOD, K_FACTOR,
	   K_STATE, K_COUNT };
static const char *const key_names[K_COUNT] = {
	"at", "path", "how", "for", "rate", "sense", "period", "factor",
	"state",
};

/* Which HOW a key belongs to; -1: to every one. */
static int key_owner(int k)
{
	switch (k) {
	case K_RATE: case K_SENSE: return SP_FAULT_ERROR;
	case K_PERIOD: return SP_FAULT_FLAP;
	case K_FACTOR: return SP_FAULT_SLOW;
	case K_STATE: return SP_FAULT_ANA;
	default: return -1;
	}
}

static int duration(const char *key, const char *v, int64_t *ns, char *err,
		    size_t errlen)
{
	if (v[0] == '-')
		return sp_errf(err, errlen, -EINVAL, "%s=%s: a time cannot be "
			       "negative", key, v);
	if (sp_parse_duration_ns(v, ns) || *ns < 0)
		return sp_errf(err, errlen, -EINVAL, "%s=%s: want a time such "
			       "as 500ms, 10s or 0", key, v);
	return 0;
}

static int set_value(struct sp_fault *f, int k, const char *v, char *err,
		     size_t errlen)
{
	int s;

	switch (k) {
	case K_AT:
		return duration("at", v, &f->at_ns, err, errlen);
	case K_FOR:
		return duration("for", v, &f->for_ns, err, errlen);
	case K_PERIOD:
		if (duration("period", v, &f->flap_period_ns, err, errlen))
			return -EINVAL;
		if (f->flap_period_ns < MIN_PERIOD_NS)
			return sp_errf(err, errlen, -EINVAL, "period=%s: at "
				       "least 100ms", v);
		return 0;
	case K_PATH:
		if (!sp_name_ok(v) || strlen(v) >= sizeof(f->path))
			return sp_errf(err, errlen, -EINVAL, "path=%.80s: a "
				       "path is %s", v, SP_NAME_RULE);
		strcpy(f->path, v);
		return 0;
	case K_RATE:
		if (sp_parse_double(v, &f->error_rate) ||
		    !(f->error_rate > 0 && f->error_rate <= 1))
			return sp_errf(err, errlen, -EINVAL, "rate=%.80s: want "
				       "a share of commands above 0 and at "
				       "most 1 (0.1 = 10 %%)", v);
		return 0;
	case K_SENSE:
		for (s = 0; delay_sense_names[s]; s++)
			if (!strcmp(delay_sense_names[s], v)) {
				strcpy(f->error_sense, v);
				return 0;
			}
		return sp_errf(err, errlen, -EINVAL, "sense=%.80s: want medium, "
			       "not-ready, aborted or hardware", v);
	case K_FACTOR:
		if (sp_parse_double(v, &f->slow_factor) ||
		    !(f->slow_factor > 0 && f->slow_factor <= MAX_FACTOR))
			return sp_errf(err, errlen, -EINVAL, "factor=%.80s: want "
				       "a number above 0 and at most 100000", v);
		return 0;
	case K_STATE:
		if (!sp_nvmet_ana_state_ok(v))
			return sp_errf(err, errlen, -EINVAL, "state=%.40s: want "
				       "optimized, non-optimized or "
				       "inaccessible", v);
		snprintf(f->ana_state, sizeof(f->ana_state), "%s", v);
		return 0;
	}
	return -EINVAL;
}

int sp_fault_parse(const char *spec, struct sp_fault *f, char *err,
		   size_t errlen)
{
	char copy[SPEC_MAX], *word, *save, *eq;
	const char *vals[K_COUNT] = { 0 };
	enum sp_fault_how how;
	int k, ret;

	if (strlen(spec) >= sizeof(copy))
		return sp_errf(err, errlen, -EINVAL, "fault spec longer than "
			       "%d characters", SPEC_MAX - 1);
	strcpy(copy, spec);
	for (word = strtok_r(copy, " \t", &save); word;
	     word = strtok_r(NULL, " \t", &save)) {
		eq = strchr(word, '=');
		if (!eq)
			return sp_errf(err, errlen, -EINVAL, "'%.80s' is not "
				       "key=value (at= path= how= for= rate= "
				       "sense= period= factor= state=)", word);
		*eq = '\0';
		for (k = 0; k < K_COUNT && strcmp(key_names[k], word); k++)
			;
		if (k == K_COUNT)
			return sp_errf(err, errlen, -EINVAL, "unknown key "
				       "'%.40s' (at= path= how= for= rate= "
				       "sense= period= factor= state=)", word);
		if (vals[k])
			return sp_errf(err, errlen, -EINVAL, "%s= given twice",
				       word);
		if (!eq[1])
			return sp_errf(err, errlen, -EINVAL, "%s= has no value",
				       word);
		vals[k] = eq + 1;
	}
	if (!vals[K_HOW])
		return sp_errf(err, errlen, -EINVAL, "no how= (hang, reset, "
			       "blackhole, down, error, flap, slow, ana, "
			       "restore)");
	if (sp_fault_how_parse(vals[K_HOW], &how))
		return sp_errf(err, errlen, -EINVAL, "how=%.40s: want hang, "
			       "reset, blackhole, down, error, flap, slow, ana "
			       "or restore", vals[K_HOW]);
	if (!vals[K_PATH])
		return sp_errf(err, errlen, -EINVAL, "no path= (a path's label "
			       "or number)");
	sp_fault_init(f, how);
	for (k = 0; k < K_COUNT; k++) {
		if (!vals[k] || k == K_HOW)
			continue;
		if (key_owner(k) >= 0 && key_owner(k) != (int)how)
			return sp_errf(err, errlen, -EINVAL, "%s= is for "
				       "how=%s, not how=%s", key_names[k],
				       how_names[key_owner(k)], how_names[how]);
		if (k == K_FOR && how == SP_FAULT_RESTORE)
			return sp_errf(err, errlen, -EINVAL, "for= makes no "
				       "sense with how=restore");
		ret = set_value(f, k, vals[k], err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* The shortest text strtod reads back to the same double. */
static void put_double(struct sp_strbuf *o, const char *key, double v)
{
	char txt[40];
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(txt, sizeof(txt), "%.*g", prec, v);
		if (strtod(txt, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(txt, sizeof(txt), "%.17g", v);
	sp_strbuf_printf(o, " %s=%s", key, txt);
}

int sp_fault_format(const struct sp_fault *f, char *buf, size_t len)
{
	struct sp_strbuf o = SP_STRBUF(buf, len);
	char d[32];

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (f->how < 0 || f->how >= SP_FAULT_HOW_COUNT || !sp_name_ok(f->path))
		return -EINVAL;
	if (f->at_ns >= 0)
		sp_strbuf_printf(&o, "at=%s ",
				 sp_format_duration(f->at_ns, d, sizeof(d)));
	sp_strbuf_printf(&o, "path=%s how=%s", f->path, how_names[f->how]);
	if (f->for_ns > 0)
		sp_strbuf_printf(&o, " for=%s",
				 sp_format_duration(f->for_ns, d, sizeof(d)));
	switch (f->how) {
	case SP_FAULT_ERROR:
		if (strpbrk(f->error_sense, " \t\n=") || !f->error_sense[0])
			return -EINVAL;
		put_double(&o, "rate", f->error_rate);
		sp_strbuf_printf(&o, " sense=%s", f->error_sense);
		break;
	case SP_FAULT_FLAP:
		sp_strbuf_printf(&o, " period=%s",
				 sp_format_duration(f->flap_period_ns, d,
						    sizeof(d)));
		break;
	case SP_FAULT_SLOW:
		put_double(&o, "factor", f->slow_factor);
		break;
	case SP_FAULT_ANA:
		if (!sp_nvmet_ana_state_ok(f->ana_state))
			return -EINVAL;
		sp_strbuf_printf(&o, " state=%s", f->ana_state);
		break;
	default:
		break;
	}
	return o.overflow ? -ENOSPC : 0;
}
