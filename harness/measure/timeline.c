/* A case's timeline: samples, the map's status read for path states,
 * and the TSV they are kept in. */
#include "harness/measure/timeline.h"

#include "common/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[SP_TL_EV_KINDS] = {
	"applied", "restored", "failed",
};

const char *sp_tl_event_kind_name(enum sp_tl_event_kind k)
{
	return (unsigned int)k < SP_TL_EV_KINDS ? kind_names[k] : "?";
}

int sp_tl_event_kind_by_name(const char *name)
{
	int i;

	for (i = 0; i < SP_TL_EV_KINDS; i++)
		if (!strcmp(name, kind_names[i]))
			return i;
	return -1;
}

int sp_tl_init(struct sp_timeline *tl, const char *const *devs, size_t n)
{
	size_t i;

	memset(tl, 0, sizeof(*tl));
	if (!n || n > SP_TL_MAX_DEVS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!devs[i][0] || strlen(devs[i]) >= SP_DS_NAMELEN)
			return -EINVAL;
		strcpy(tl->dev[i], devs[i]);
	}
	tl->n_devs = n;
	return 0;
}

void sp_tl_free(struct sp_timeline *tl)
{
	free(tl->s);
	tl->s = NULL;
	tl->n = tl->cap = 0;
}

int sp_tl_dev_index(const struct sp_timeline *tl, const char *dev)
{
	size_t i;

	for (i = 0; i < tl->n_devs; i++)
		if (!strcmp(tl->dev[i], dev))
			return (int)i;
	return -1;
}

int sp_tl_add(struct sp_timeline *tl, const struct sp_tl_sample *s)
{
	if (tl->n >= SP_TL_MAX_SAMPLES) {
		tl->full = 1;
		return 0;
	}
	if (tl->n == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 1024;
		struct sp_tl_sample *ns = realloc(tl->s, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		tl->s = ns;
		tl->cap = cap;
	}
	tl->s[tl->n++] = *s;
	return 0;
}

int sp_tl_add_diskstats(struct sp_timeline *tl, int64_t t_ms,
			const char *diskstats, const char *states)
{
	struct sp_diskstat ds[SP_TL_MAX_DEVS];
	const char *names[SP_TL_MAX_DEVS];
	struct sp_tl_sample s;
	size_t i;
	int ret;

	for (i = 0; i < tl->n_devs; i++)
		names[i] = tl->dev[i];
	ret = sp_diskstats_select(diskstats, "/proc/diskstats", names,
				  tl->n_devs, ds);
	for (i = 0; !ret && i < tl->n_devs; i++) {
		memset(&s, 0, sizeof(s));
		s.t_ms = t_ms;
		s.dev = (uint32_t)i;
		s.ios = ds[i].v[SP_DS_READS] + ds[i].v[SP_DS_WRITES];
		s.sectors = ds[i].v[SP_DS_RSECTORS] + ds[i].v[SP_DS_WSECTORS];
		s.in_flight = (uint32_t)ds[i].v[SP_DS_IN_FLIGHT];
		s.state = states && i + 1 < tl->n_devs ? states[i]
						       : SP_TL_UNKNOWN;
		ret = sp_tl_add(tl, &s);
	}
	return ret;
}

/* Next blank-separated word of *p into w; 0 at the end. */
static int word(const char **p, char *w, size_t len)
{
	const char *s = *p, *e;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (!*s)
		return 0;
	for (e = s; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
		;
	if ((size_t)(e - s) >= len)
		return 0;
	memcpy(w, s, (size_t)(e - s));
	w[e - s] = '\0';
	*p = e;
	return 1;
}

static int number(const char **p, unsigned long *v)
{
	char w[32], *end;

	if (!word(p, w, sizeof(w)))
		return 0;
	errno = 0;
	*v = strtoul(w, &end, 10);
	return !*end && !errno && w[0] != '-';
}

static int skip(const char **p, unsigned long n)
{
	char w[128];

	for (; n; n--)
		if (!word(p, w, sizeof(w)))
			return 0;
	return 1;
}

/* dm-mpath's status: features (count, args), hardware handler (count,
 * args), number of groups, the next group, then per group its state, the
 * selector's group args (count, args), its path count and per-path arg
 * count, and per path "MAJ:MIN A|F FAILS" and the selector's args. */
int sp_mpath_status_parse(const char *text, struct sp_mpath_path *paths,
			  size_t max, size_t *n)
{
	const char *p = strstr(text, "multipath");
	unsigned long v, ngroups, npaths, nargs, g, i;
	char w[64];

	*n = 0;
	if (p)
		p += strlen("multipath");
	else
		p = text;
	if (!number(&p, &v) || !skip(&p, v) ||		/* features */
	    !number(&p, &v) || !skip(&p, v) ||		/* hw handler */
	    !number(&p, &ngroups) || !number(&p, &v))	/* next group */
		return -EINVAL;
	for (g = 0; g < ngroups; g++) {
		if (!word(&p, w, sizeof(w)) || strlen(w) != 1 ||
		    !number(&p, &v) || !skip(&p, v) ||
		    !number(&p, &npaths) || !number(&p, &nargs))
			return -EINVAL;
		for (i = 0; i < npaths; i++) {
			struct sp_mpath_path mp = { 0 };
			unsigned long fails;

			if (!word(&p, w, sizeof(w)) ||
			    sscanf(w, "%u:%u", &mp.major, &mp.minor) != 2)
				return -EINVAL;
			if (!word(&p, w, sizeof(w)) ||
			    (strcmp(w, "A") && strcmp(w, "F")))
				return -EINVAL;
			mp.active = w[0] == 'A';
			if (!number(&p, &fails) || !skip(&p, nargs))
				return -EINVAL;
			mp.fail_count = (unsigned int)fails;
			if (*n < max)
				paths[(*n)++] = mp;
		}
	}
	return 0;
}

void sp_tl_path_states(const struct sp_timeline *tl, const char *diskstats,
		       const struct sp_mpath_path *paths, size_t n,
		       char *states)
{
	struct sp_diskstat ds;
	const char *name;
	size_t i, j;

	for (i = 0; i + 1 < tl->n_devs; i++) {
		states[i] = SP_TL_UNKNOWN;
		name = tl->dev[i];
		if (sp_diskstats_select(diskstats, "/proc/diskstats", &name, 1,
					&ds))
			continue;
		for (j = 0; j < n; j++)
			if (paths[j].major == ds.major &&
			    paths[j].minor == ds.minor)
				states[i] = paths[j].active ? SP_TL_ACTIVE
							    : SP_TL_FAILED;
	}
}

int sp_tl_write_tsv(FILE *out, const struct sp_timeline *tl,
		    const struct sp_tl_event *ev, size_t n_ev)
{
	size_t i;

	fputs("t_ms\tdev\tios_done\tin_flight\tsectors\tpath_state\n", out);
	for (i = 0; i < n_ev; i++)
		fprintf(out, "# fault\t%" PRId64 "\t%s\t%s\t%s\t%s\t%" PRId64
			"\n", ev[i].t_ms, ev[i].path, ev[i].dev, ev[i].how,
			sp_tl_event_kind_name(ev[i].kind), ev[i].took_ms);
	if (tl->full)
		fputs("# samples stopped: the timeline is full\n", out);
	for (i = 0; i < tl->n; i++) {
		const struct sp_tl_sample *s = &tl->s[i];

		fprintf(out, "%" PRId64 "\t%s\t%" PRIu64 "\t%" PRIu32 "\t%"
			PRIu64 "\t%c\n", s->t_ms, tl->dev[s->dev], s->ios,
			s->in_flight, s->sectors, s->state);
	}
	return ferror(out) ? -EIO : 0;
}

static int parse_row(struct sp_timeline *tl, const char *line, size_t len)
{
	char buf[256], dev[SP_DS_NAMELEN + 1], state;
	struct sp_tl_sample s = { 0 };
	long long t;
	unsigned long long ios, sectors;
	unsigned int inf;
	int idx, used = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (sscanf(buf, "%lld\t%32s\t%llu\t%u\t%llu\t%c%n", &t, dev, &ios, &inf,
		   &sectors, &state, &used) != 6 || (size_t)used != len ||
	    strlen(dev) >= SP_DS_NAMELEN || t < 0 || t > SP_TL_MS_MAX ||
	    (state != SP_TL_ACTIVE && state != SP_TL_FAILED &&
	     state != SP_TL_UNKNOWN))
		return -EINVAL;
	idx = sp_tl_dev_index(tl, dev);
	if (idx < 0) {
		if (tl->n_devs == SP_TL_MAX_DEVS)
			return -EINVAL;
		strcpy(tl->dev[tl->n_devs], dev);
		idx = (int)tl->n_devs++;
	}
	s.t_ms = t;
	s.dev = (uint32_t)idx;
	s.ios = ios;
	s.in_flight = inf;
	s.sectors = sectors;
	s.state = state;
	return sp_tl_add(tl, &s);
}

int sp_tl_parse_tsv(const char *text, const char *origin,
		    struct sp_timeline *tl)
{
	const char *p = text, *nl;
	unsigned int lineno = 0;
	size_t len;
	int ret;

	memset(tl, 0, sizeof(*tl));
	while (*p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (len && p[0] != '#' && (lineno > 1 || strncmp(p, "t_ms", 4))) {
			ret = parse_row(tl, p, len);
			if (ret) {
				sp_err("%s:%u: '%.*s' is not a timeline row",
				       origin, lineno, (int)(len > 60 ? 60 : len),
				       p);
				sp_tl_free(tl);
				return ret == -ENOMEM ? ret : -EINVAL;
			}
		}
		p += len + (nl != NULL);
	}
	if (!tl->n_devs) {
		sp_err("%s: no timeline rows", origin);
		return -EINVAL;
	}
	return 0;
}
