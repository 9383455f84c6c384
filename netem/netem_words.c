/* parse -> validate -> emit for netem's words, with no effects. */
#include "netem/netem.h"

#include "common/strbuf.h"
#include "common/units.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

const char *sp_netem_explain(void)
{
	return "netem words: [ delay TIME [ JITTER [ CORRELATION% ] ] "
	       "[ distribution {normal|pareto|paretonormal} ] ] "
	       "[ loss [random] PERCENT% [ CORRELATION% ] ] [ rate RATE ] "
	       "[ limit PACKETS ]; TIME like 1ms or 250us, RATE like "
	       "100mbit, 1gbit or 10mbps";
}

static int bad(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	char msg[SP_NETEM_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

/* "25%" or "0.5%": the sign is required, so a stray number is caught. */
static int parse_pct(const char *text, double *out)
{
	char num[32];
	size_t n = strlen(text);

	if (n < 2 || n >= sizeof(num) || text[n - 1] != '%')
		return -EINVAL;
	memcpy(num, text, n - 1);
	num[n - 1] = '\0';
	if (sp_parse_double(num, out) || *out < 0 || *out > 100)
		return -EINVAL;
	return 0;
}

int sp_netem_parse_rate(const char *text, uint64_t *bps)
{
	static const struct {
		const char *suffix;
		double bits;
	} units[] = {
		{ "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 },
		{ "tbit", 1e12 }, { "kibit", 1024.0 }, { "mibit", 1048576.0 },
		{ "gibit", 1073741824.0 }, { "bps", 8 }, { "kbps", 8e3 },
		{ "mbps", 8e6 }, { "gbps", 8e9 },
	};
	char *end;
	double v;
	size_t i;

	if (!text || !*text || !strchr("0123456789.", *text))
		return -EINVAL;
	v = strtod(text, &end);
	if (end == text || !isfinite(v) || v <= 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		v *= units[i].bits;
		if (v > 1e15)
			return -ERANGE;
		*bps = (uint64_t)llround(v);
		return *bps ? 0 : -EINVAL;
	}
	return -EINVAL;
}

static int is_duration(const char *s)
{
	int64_t ns;

	return s && !sp_parse_duration_ns(s, &ns);
}

int sp_netem_parse(int argc, char **argv, struct sp_netem_spec *spec,
		   char *err, size_t errlen)
{
	int i, k, have_dist = 0, have_jitter = 0, have_corr = 0;
	int64_t n;

	memset(spec, 0, sizeof(*spec));
	for (i = 0; i < argc; i++) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(w, "delay") || !strcmp(w, "latency")) {
			if (spec->has & SP_NETEM_HAS_DELAY)
				return bad(err, errlen, "'delay' given twice");
			if (!v || sp_parse_duration_ns(v, &spec->delay_ns))
				return bad(err, errlen, "bad delay '%s': want a "
					   "time such as 1ms or 250us",
					   v ? v : "");
			spec->has |= SP_NETEM_HAS_DELAY;
			i++;
			if (is_duration(i + 1 < argc ? argv[i + 1] : NULL)) {
				sp_parse_duration_ns(argv[++i], &spec->jitter_ns);
				have_jitter = 1;
				if (i + 1 < argc && strchr(argv[i + 1], '%')) {
					if (parse_pct(argv[++i],
						      &spec->delay_corr_pct))
						return bad(err, errlen,
							   "bad delay correlation "
							   "'%s': want 0%% to 100%%",
							   argv[i]);
					have_corr = 1;
				}
			}
		} else if (!strcmp(w, "distribution")) {
			if (have_dist)
				return bad(err, errlen,
					   "'distribution' given twice");
			for (k = 1; v && sp_dist_names[k]; k++)
				if (!strcmp(v, sp_dist_names[k]))
					break;
			if (!v || !sp_dist_names[k])
				return bad(err, errlen, "bad distribution '%s': "
					   "want normal, pareto or paretonormal",
					   v ? v : "");
			spec->dist = (enum sp_dist)k;
			have_dist = 1;
			i++;
		} else if (!strcmp(w, "loss")) {
			if (spec->has & SP_NETEM_HAS_LOSS)
				return bad(err, errlen, "'loss' given twice");
			if (v && !strcmp(v, "random"))
				v = ++i + 1 < argc ? argv[i + 1] : NULL;
			if (!v || parse_pct(v, &spec->loss_pct))
				return bad(err, errlen, "bad loss '%s': want a "
					   "percentage such as 1%%", v ? v : "");
			spec->has |= SP_NETEM_HAS_LOSS;
			i++;
			if (i + 1 < argc && strchr(argv[i + 1], '%') &&
			    parse_pct(argv[++i], &spec->loss_corr_pct))
				return bad(err, errlen, "bad loss correlation "
					   "'%s': want 0%% to 100%%", argv[i]);
		} else if (!strcmp(w, "rate")) {
			if (spec->has & SP_NETEM_HAS_RATE)
				return bad(err, errlen, "'rate' given twice");
			if (!v || sp_netem_parse_rate(v, &spec->rate_bps))
				return bad(err, errlen, "bad rate '%s': want "
					   "e.g. 100mbit, 1gbit or 10mbps",
					   v ? v : "");
			spec->has |= SP_NETEM_HAS_RATE;
			i++;
		} else if (!strcmp(w, "limit")) {
			if (spec->has & SP_NETEM_HAS_LIMIT)
				return bad(err, errlen, "'limit' given twice");
			if (!v || sp_parse_int64(v, 1, INT32_MAX, &n))
				return bad(err, errlen, "bad limit '%s': want "
					   "a packet count from 1", v ? v : "");
			spec->limit = (uint32_t)n;
			spec->has |= SP_NETEM_HAS_LIMIT;
			i++;
		} else {
			return bad(err, errlen, "unknown netem word '%s'; %s",
				   w, sp_netem_explain());
		}
	}
	if (have_dist && !have_jitter)
		return bad(err, errlen, "distribution %s needs a jitter: "
			   "delay TIME JITTER distribution %s",
			   sp_dist_names[spec->dist],
			   sp_dist_names[spec->dist]);
	if (have_corr && !spec->jitter_ns)
		return bad(err, errlen, "a delay correlation needs a jitter "
			   "above 0");
	return sp_netem_validate(spec, err, errlen);
}

int sp_netem_validate(const struct sp_netem_spec *s, char *err,
		      size_t errlen)
{
	char a[32], b[32];

	if (!(s->has & (SP_NETEM_HAS_DELAY | SP_NETEM_HAS_LOSS |
			SP_NETEM_HAS_RATE | SP_NETEM_HAS_LIMIT)))
		return bad(err, errlen, "nothing to set; %s", sp_netem_explain());
	/* one bound with the store's (common/units.h); libnl hands the
	 * kernel whole microseconds in a signed int, far above it */
	if (s->delay_ns < 0 || s->delay_ns > SP_DELAY_MAX_NS)
		return bad(err, errlen, "delay %s out of range (0 to 60s)",
			   sp_format_duration(s->delay_ns, a, sizeof(a)));
	if (s->delay_ns % SP_NSEC_PER_USEC || s->jitter_ns % SP_NSEC_PER_USEC)
		return bad(err, errlen, "delay %s / jitter %s: netem takes "
			   "whole microseconds",
			   sp_format_duration(s->delay_ns, a, sizeof(a)),
			   sp_format_duration(s->jitter_ns, b, sizeof(b)));
	if (s->jitter_ns < 0 || s->jitter_ns > s->delay_ns)
		return bad(err, errlen, "jitter %s is larger than the delay %s: "
			   "netem would reorder packets",
			   sp_format_duration(s->jitter_ns, a, sizeof(a)),
			   sp_format_duration(s->delay_ns, b, sizeof(b)));
	/* a packet is held up to delay + jitter */
	if (s->delay_ns + s->jitter_ns > SP_DELAY_MAX_NS)
		return bad(err, errlen, "delay %s plus jitter %s is over 60s, "
			   "the most one command may be held",
			   sp_format_duration(s->delay_ns, a, sizeof(a)),
			   sp_format_duration(s->jitter_ns, b, sizeof(b)));
	if (s->dist != SP_DIST_UNIFORM && !s->jitter_ns)
		return bad(err, errlen, "distribution %s needs a jitter above 0",
			   sp_dist_names[s->dist]);
	if (s->delay_corr_pct < 0 || s->delay_corr_pct > 100 ||
	    s->loss_pct < 0 || s->loss_pct > 100 ||
	    s->loss_corr_pct < 0 || s->loss_corr_pct > 100)
		return bad(err, errlen, "percentages must be from 0%% to 100%%");
	if ((s->has & SP_NETEM_HAS_RATE) &&
	    (s->rate_bps < 8 || s->rate_bps / 8 > UINT32_MAX))
		return bad(err, errlen, "rate %" PRIu64 "bit out of range "
			   "(8bit to 34gbit)", s->rate_bps);
	return 0;
}

static const char *rate_text(uint64_t bps, char *buf, size_t len)
{
	static const struct {
		const char *suffix;
		uint64_t bits;
	} units[] = { { "tbit", 1000000000000ULL }, { "gbit", 1000000000ULL },
		      { "mbit", 1000000ULL }, { "kbit", 1000ULL } };
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (bps % units[i].bits == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", bps / units[i].bits,
				 units[i].suffix);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "bit", bps);
	return buf;
}

int sp_netem_format(const struct sp_netem_spec *s, char *buf, size_t len)
{
	char a[32], b[32];
	struct sp_strbuf sb = SP_STRBUF(buf, len);

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (s->has & SP_NETEM_HAS_DELAY) {
		sp_strbuf_printf(&sb, "delay %s",
		    s->delay_ns ? sp_format_duration(s->delay_ns, a, sizeof(a))
				: "0");
		if (s->jitter_ns)
			sp_strbuf_printf(&sb, " %s",
			    sp_format_duration(s->jitter_ns, b, sizeof(b)));
		if (s->jitter_ns && s->delay_corr_pct > 0)
			sp_strbuf_printf(&sb, " %g%%", s->delay_corr_pct);
		if (s->dist != SP_DIST_UNIFORM)
			sp_strbuf_printf(&sb, " distribution %s",
			    sp_dist_names[s->dist]);
	}
	if (s->has & SP_NETEM_HAS_LOSS) {
		sp_strbuf_printf(&sb, "%sloss %g%%", sb.used ? " " : "",
		    s->loss_pct);
		if (s->loss_corr_pct > 0)
			sp_strbuf_printf(&sb, " %g%%", s->loss_corr_pct);
	}
	if (s->has & SP_NETEM_HAS_RATE)
		sp_strbuf_printf(&sb, "%srate %s", sb.used ? " " : "",
		    rate_text(s->rate_bps, a, sizeof(a)));
	if (s->has & SP_NETEM_HAS_LIMIT)
		sp_strbuf_printf(&sb, "%slimit %" PRIu32,
		    sb.used ? " " : "", s->limit);
	return sb.overflow ? -ENOSPC : 0;
}

int sp_netem_tc_command(const char *verb, const char *netns, const char *dev,
			const struct sp_netem_spec *spec, char *buf,
			size_t len)
{
	char words[256];
	int n, ret = 0;

	if (strcmp(verb, "del") && (ret = sp_netem_format(spec, words,
							   sizeof(words))))
		return ret;
	n = snprintf(buf, len, "tc%s%s qdisc %s dev %s root%s%s",
		     netns ? " -n " : "", netns ? netns : "", verb, dev,
		     strcmp(verb, "del") ? " netem " : "",
		     strcmp(verb, "del") ? words : "");
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int sp_netem_parse_dist(const char *text, int16_t *out, size_t max,
			size_t *n)
{
	const char *p = text;
	char *end;
	long v;

	*n = 0;
	while (*p) {
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if (strchr(" \t\r\n", *p)) {
			p++;
			continue;
		}
		v = strtol(p, &end, 10);
		if (end == p || !strchr(" \t\r\n#", *end ? *end : ' ') ||
		    v < INT16_MIN || v > INT16_MAX)
			return -EINVAL;
		if (*n == max)
			return -E2BIG;
		out[(*n)++] = (int16_t)v;
		p = end;
	}
	return *n ? 0 : -EINVAL;
}

int sp_netem_dist_path(const char *name, char *path, size_t len)
{
	static const char *const dirs[] = {
		"/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/aarch64-linux-gnu/tc",
		"/usr/lib/tc", "/usr/lib64/tc", "/usr/local/lib/tc",
	};
	const char *env = getenv("SLOWPATH_TC_DIST_DIR");
	struct stat st;
	size_t i;

	if (env && *env) {
		snprintf(path, len, "%s/%s.dist", env, name);
		return stat(path, &st) ? -ENOENT : 0;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, len, "%s/%s.dist", dirs[i], name);
		if (!stat(path, &st))
			return 0;
	}
	return -ENOENT;
}

const char *sp_netem_strerror(int err, const char *netns, const char *dev,
			      char *buf, size_t len)
{
	char where[96];

	snprintf(where, sizeof(where), "%s%s%s", dev, netns ? " in netns " : "",
		 netns ? netns : "");
	switch (-err) {
	case ENODEV:
		snprintf(buf, len, "no such device '%s'", where);
		break;
	case ENOPKG:
		snprintf(buf, len, "sch_netem is missing: this kernel has no "
			 "netem qdisc (modprobe sch_netem, or run in the lab)");
		break;
	case EPERM:
	case EACCES:
		snprintf(buf, len, "not permitted to change qdiscs on %s: "
			 "needs root (CAP_NET_ADMIN)", where);
		break;
	case ENOENT:
		snprintf(buf, len, "no netem qdisc on %s", where);
		break;
	case ESRCH:
		snprintf(buf, len, "no network namespace '%s' (/run/netns/%s)",
			 netns ? netns : "", netns ? netns : "");
		break;
	default:
		snprintf(buf, len, "netem on %s: %s", where, strerror(-err));
		break;
	}
	return buf;
}
