/* One `slowpath netem` request carried out through the ops: parse and
 * validate first, so bad input never reaches the kernel, and --dry-run
 * never calls the ops at all. */
#include "netem/netem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const verb_names[] = { "set", "change", "show", "clear" };

int sp_netem_verb_parse(const char *name, enum sp_netem_verb *out)
{
	int k;

	for (k = 0; k <= SP_NETEM_CLEAR; k++) {
		if (!strcmp(name, verb_names[k])) {
			*out = (enum sp_netem_verb)k;
			return 0;
		}
	}
	return -EINVAL;
}

int sp_netem_run(const struct sp_netem_ops *ops,
		 const struct sp_netem_request *rq, char *out, size_t outlen,
		 char *err, size_t errlen)
{
	const char *verb = verb_names[rq->verb];
	struct sp_netem_spec spec = { 0 };
	char msg[SP_NETEM_ERRLEN], words[256];
	int ret;

	out[0] = '\0';
	if (rq->verb == SP_NETEM_SET || rq->verb == SP_NETEM_CHANGE) {
		if (sp_netem_parse(rq->nwords, rq->words, &spec, msg,
				   sizeof(msg))) {
			snprintf(err, errlen, "netem %s %s: %s", verb, rq->dev,
				 msg);
			return -EINVAL;
		}
	} else if (rq->nwords) {
		snprintf(err, errlen, "netem %s takes no netem words, got '%s'",
			 verb, rq->words[0]);
		return -EINVAL;
	}
	if (rq->dry_run) {
		if (rq->verb == SP_NETEM_SHOW) {
			snprintf(err, errlen, "netem show changes nothing; "
				 "--dry-run is for set, change and clear");
			return -EINVAL;
		}
		ret = sp_netem_tc_command(rq->verb == SP_NETEM_CLEAR ? "del"
					  : rq->verb == SP_NETEM_SET ? "replace"
								     : "change",
					  rq->netns, rq->dev, &spec, out, outlen);
		if (ret)
			snprintf(err, errlen, "netem %s: command too long", verb);
		return ret;
	}
	switch (rq->verb) {
	case SP_NETEM_SHOW:
		ret = ops->get(ops->ctx, rq->netns, rq->dev, &spec);
		if (ret == -ENOENT) {
			snprintf(out, outlen, "%s: no netem", rq->dev);
			return 0;
		}
		if (!ret && !(ret = sp_netem_format(&spec, words, sizeof(words))))
			snprintf(out, outlen, "%s: netem %s", rq->dev, words);
		break;
	case SP_NETEM_CLEAR:
		ret = ops->clear(ops->ctx, rq->netns, rq->dev);
		/* nothing to clear is what clear is for */
		if (ret == -ENOENT)
			return 0;
		break;
	default:
		ret = ops->set(ops->ctx, rq->netns, rq->dev, &spec,
			       rq->verb == SP_NETEM_CHANGE);
		break;
	}
	if (ret)
		snprintf(err, errlen, "netem %s: %s", verb,
			 sp_netem_strerror(ret, rq->netns, rq->dev, msg,
					   sizeof(msg)));
	return ret;
}
