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
	tl->mono_ns_t0 = -1;
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
			const char *diskstats,
			const struct sp_tl_path_view *views)
{
	struct sp_diskstat ds[SP_TL_MAX_DEVS];
	const char *names[SP_TL_MAX_DEVS];
	struct sp_tl_sample s, sum;
	size_t i;
	int ret;

	for (i = 0; i < tl->n_devs; i++)
		names[i] = tl->dev[i];
	ret = sp_diskstats_select(diskstats, "/proc/diskstats", names,
				  tl->n_devs, ds);
	memset(&sum, 0, sizeof(sum));
	for (i = 0; !ret && i < tl->n_devs; i++) {
		memset(&s, 0, sizeof(s));
		s.t_ms = t_ms;
		s.dev = (uint32_t)i;
		s.ios = ds[i].v[SP_DS_READS] + ds[i].v[SP_DS_WRITES];
		s.sectors = ds[i].v[SP_DS_RSECTORS] + ds[i].v[SP_DS_WSECTORS];
		s.in_flight = (uint32_t)ds[i].v[SP_DS_IN_FLIGHT];
		s.ticks_ms = ds[i].v[SP_DS_RTICKS] + ds[i].v[SP_DS_WTICKS];
		if (tl->map_sums_paths && i + 1 == tl->n_devs) {
			s.ios = sum.ios;
			s.sectors = sum.sectors;
			s.in_flight = sum.in_flight;
			s.ticks_ms = sum.ticks_ms;
		}
		sum.ios += s.ios;
		sum.sectors += s.sectors;
		sum.in_flight += s.in_flight;
		sum.ticks_ms += s.ticks_ms;
		s.has_ticks = 1;
		s.state = SP_TL_UNKNOWN;
		if (views && i + 1 < tl->n_devs) {
			s.state = views[i].state;
			s.n_sel = views[i].n_sel > SP_TL_MAX_SEL ? 0
								 : views[i].n_sel;
			memcpy(s.sel, views[i].sel, sizeof(s.sel));
		}
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

/* The selector's per-path args: the first SP_TL_MAX_SEL kept when each
 * is a decimal number (an unknown selector's words are not), all
 * nargs skipped. 0 when the status ends before them. */
static int selector_args(const char **p, unsigned long nargs,
			 struct sp_mpath_path *mp)
{
	unsigned long i;
	int numeric = 1;
	char w[32], *end;

	for (i = 0; i < nargs && i < SP_TL_MAX_SEL; i++) {
		if (!word(p, w, sizeof(w)))
			return 0;
		errno = 0;
		mp->sel[i] = strtoull(w, &end, 10);
		if (*end || errno || w[0] < '0' || w[0] > '9')
			numeric = 0;
	}
	if (nargs > i && !skip(p, nargs - i))
		return 0;
	mp->n_sel = numeric ? (unsigned int)(nargs < SP_TL_MAX_SEL ? nargs
							   : SP_TL_MAX_SEL) : 0;
	if (!numeric)
		memset(mp->sel, 0, sizeof(mp->sel));
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
			if (!number(&p, &fails) ||
			    !selector_args(&p, nargs, &mp))
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
		       struct sp_tl_path_view *views)
{
	struct sp_diskstat ds;
	const char *name;
	size_t i, j;

	for (i = 0; i + 1 < tl->n_devs; i++) {
		memset(&views[i], 0, sizeof(views[i]));
		views[i].state = SP_TL_UNKNOWN;
		name = tl->dev[i];
		if (sp_diskstats_select(diskstats, "/proc/diskstats", &name, 1,
					&ds))
			continue;
		for (j = 0; j < n; j++)
			if (paths[j].major == ds.major &&
			    paths[j].minor == ds.minor) {
				views[i].state = paths[j].active ? SP_TL_ACTIVE
								 : SP_TL_FAILED;
				views[i].n_sel = (uint8_t)(paths[j].n_sel <=
					SP_TL_MAX_SEL ? paths[j].n_sel : 0);
				memcpy(views[i].sel, paths[j].sel,
				       sizeof(views[i].sel));
			}
	}
}
