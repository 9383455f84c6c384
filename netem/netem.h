/* netem on one interface, optionally inside a named network namespace.
 * The words are iproute2's (tc-netem(8)):
 *   delay TIME [JITTER [CORRELATION%]] [distribution NAME]
 *   loss P% [CORRELATION%]   rate RATE   limit PACKETS
 * parse -> validate -> emit are pure (netem_spec.c); what touches the
 * kernel sits behind struct sp_netem_ops (netem_nl.c, libnl-route-3). */
#ifndef SP_NETEM_H
#define SP_NETEM_H

#include <stddef.h>
#include <stdint.h>

#include "common/dist.h"

#define SP_NETEM_ERRLEN 320
#define SP_NETEM_DIST_MAX 16384	/* int16 entries; tc's tables have 4096 */


/* Which words were given, so `change` and `show` know what is meant. */
enum {
	SP_NETEM_HAS_DELAY = 1 << 0,
	SP_NETEM_HAS_LOSS = 1 << 1,
	SP_NETEM_HAS_RATE = 1 << 2,
	SP_NETEM_HAS_LIMIT = 1 << 3,
};

struct sp_netem_spec {
	unsigned int has;
	int64_t delay_ns, jitter_ns;
	double delay_corr_pct;
	enum sp_dist dist;
	double loss_pct, loss_corr_pct;
	uint64_t rate_bps;		/* bits per second */
	uint32_t limit;			/* packets; 0: kernel default (1000) */
};


/* The grammar, for usage and for every parse error. */
const char *sp_netem_explain(void);

/* argv holds only the netem words. 0 or -EINVAL with err naming the
 * word; also validates. */
int sp_netem_parse(int argc, char **argv, struct sp_netem_spec *spec,
		   char *err, size_t errlen);
int sp_netem_validate(const struct sp_netem_spec *spec, char *err,
		      size_t errlen);

/* "delay 1ms 100us 25% distribution normal loss 1% rate 100mbit" */
int sp_netem_format(const struct sp_netem_spec *spec, char *buf, size_t len);

/* The tc command doing the same: verb is "replace", "change" or "del";
 * netns may be NULL. */
int sp_netem_tc_command(const char *verb, const char *netns, const char *dev,
			const struct sp_netem_spec *spec, char *buf,
			size_t len);

/* "100mbit", "1gbit", "12mbps" (bytes), "1000bit"; tc's units. */
int sp_netem_parse_rate(const char *text, uint64_t *bps);

/* A tc .dist table: whitespace-separated int16 values, '#' comments. */
int sp_netem_parse_dist(const char *text, int16_t *out, size_t max,
			size_t *n);
/* Where NAME.dist lives: $SLOWPATH_TC_DIST_DIR or iproute2's dirs. */
int sp_netem_dist_path(const char *name, char *path, size_t len);

struct sp_netem_ops {
	/* Replaces (change: modifies only) the root qdisc with netem. */
	int (*set)(void *ctx, const char *netns, const char *dev,
		   const struct sp_netem_spec *spec, int change);
	/* Removes the root netem qdisc; -ENOENT when there is none. */
	int (*clear)(void *ctx, const char *netns, const char *dev);
	/* -ENOENT when the root qdisc is not netem. */
	int (*get)(void *ctx, const char *netns, const char *dev,
		   struct sp_netem_spec *spec);
	void *ctx;
};

extern const struct sp_netem_ops sp_netem_nl_ops;

enum sp_netem_verb { SP_NETEM_SET, SP_NETEM_CHANGE, SP_NETEM_SHOW,
		     SP_NETEM_CLEAR };

struct sp_netem_request {
	enum sp_netem_verb verb;
	const char *netns;	/* NULL: this namespace */
	const char *dev;
	int dry_run;
	int nwords;
	char **words;
};

int sp_netem_verb_parse(const char *name, enum sp_netem_verb *out);

/* Parses, validates, then calls ops (never with --dry-run). out gets
 * what to print: the tc command, the `show` line, or "". A missing
 * netem is not an error for show and clear. 0 or -errno with err set. */
int sp_netem_run(const struct sp_netem_ops *ops,
		 const struct sp_netem_request *rq, char *out, size_t outlen,
		 char *err, size_t errlen);

/* One clear sentence for an error the ops returned. */
const char *sp_netem_strerror(int err, const char *netns, const char *dev,
			      char *buf, size_t len);

#endif
