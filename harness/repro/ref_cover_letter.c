/* The cover letter's table as published cases; see ref_cover_letter.h. */
#include "harness/repro/ref_cover_letter.h"

#include "common/file.h"
#include "common/log.h"
#include "common/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 32

static const struct sp_ref_topology *topo_named(
	const struct sp_ref_topologies *topos, const char *name, size_t *t)
{
	for (*t = 0; *t < SP_REF_N_TOPOLOGIES; (*t)++)
		if (!strcmp(sp_ref_topology_names[*t], name) &&
		    topos->topo[*t].n_paths)
			return &topos->topo[*t];
	return NULL;
}

/* slow paths get share s between them, the others 1 - s, each group
 * split equally, as whole I/Os of SP_REF_RUN_IOS */
static int fill(struct sp_ref_case *c, const struct sp_ref_topology *tp,
		double s)
{
	double fastest = INFINITY;
	size_t i, n_slow = 0;
	enum sp_ref_col col = sp_ref_rw_is_read(c->rw) ? SP_REF_READS
						       : SP_REF_WRTS;

	for (i = 0; i < tp->n_paths; i++)
		fastest = fmin(fastest, tp->delay_ns[i]);
	for (i = 0; i < tp->n_paths; i++)
		n_slow += tp->delay_ns[i] > fastest;
	if (!n_slow || n_slow == tp->n_paths)
		return -EINVAL;
	c->n_paths = tp->n_paths;
	for (i = 0; i < tp->n_paths; i++) {
		int slow = tp->delay_ns[i] > fastest;
		double each = slow ? s / (double)n_slow
				   : (1 - s) / (double)(tp->n_paths - n_slow);

		snprintf(c->paths[i].dev, sizeof(c->paths[i].dev), "sd%c",
			 (char)('a' + i));
		c->paths[i].v[col] = (uint64_t)llround(each * SP_REF_RUN_IOS);
	}
	return 0;
}

int sp_cover_parse(const char *text, const char *origin,
		   const struct sp_ref_topologies *topos,
		   struct sp_reference *ref)
{
	struct sp_ref_case *cases = calloc(MAX_ROWS, sizeof(*cases));
	const char *line = text;
	char buf[256];
	int lineno = 0, header = 0, got;
	size_t n = 0, t;

	if (!cases)
		return -ENOMEM;
	while ((got = sp_text_data_line(&line, &lineno, buf, sizeof(buf))) > 0) {
		char topo[32], rw[16], sel[16];
		const struct sp_ref_topology *tp;
		struct sp_ref_case *c;
		double s;
		int qd, r, k, end = 0;

		if (!header) {
			header = 1;
			if (!strncmp(buf, "topology\t", 9))
				continue;
		}
		if (sscanf(buf, "%31s %15s %d %15s %lf%n", topo, rw, &qd, sel,
			   &s, &end) != 5 || buf[end] || s < 0 || s > 1 ||
		    qd < 1 || (r = sp_ref_rw_parse(rw)) < 0 ||
		    (k = sp_ref_selector_parse(sel)) < 0 ||
		    !(tp = topo_named(topos, topo, &t))) {
			sp_err("%s:%d: want TOPOLOGY RW IODEPTH ST|HST "
			       "SLOW_SHARE (0..1) of a published topology",
			       origin, lineno);
			goto bad;
		}
		if (n >= MAX_ROWS) {
			sp_err("%s:%d: more than %d rows", origin, lineno,
			       MAX_ROWS);
			goto bad;
		}
		c = &cases[n++];
		c->topology = sp_ref_topology_names[t];
		c->topo = tp;
		c->rw = (enum sp_ref_rw)r;
		c->iodepth = qd;
		c->selector = (enum sp_ref_selector)k;
		c->line = lineno;
		if (fill(c, tp, s)) {
			sp_err("%s:%d: %s has no slow path", origin, lineno,
			       topo);
			goto bad;
		}
	}
	if (got < 0) {
		sp_err("%s:%d: a line over %zu characters", origin, lineno,
		       sizeof(buf) - 1);
		goto bad;
	}
	if (!n) {
		sp_err("%s: no rows", origin);
		goto bad;
	}
	ref->cases = cases;
	ref->n_cases = n;
	ref->topologies = topos;
	return 0;
bad:
	free(cases);
	return -EINVAL;
}

int sp_cover_load(const char *path, const struct sp_ref_topologies *topos,
		  struct sp_reference *ref)
{
	char *text = NULL;
	int ret = sp_file_read(path, 1 << 16, &text, NULL);

	if (ret) {
		sp_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = sp_cover_parse(text, path, topos, ref);
	free(text);
	return ret;
}
