/* The initiator keys of a topology (queue_if_no_path, no_path_retry,
 * the iSCSI timeouts, queue_mode): what they mean for the map and how they read
 * and print in the state journal and `status`. See topo.h. */
#include "topologies/topo.h"

#include "common/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_initiator_init(struct sp_initiator *in)
{
	memset(in, 0, sizeof(*in));
	in->no_path_retry = SP_NPR_UNSET;
	in->replacement_timeout = -1;
	in->noop_out_interval = -1;
	in->noop_out_timeout = -1;
}

int sp_initiator_queues(const struct sp_initiator *in)
{
	if (in->no_path_retry == SP_NPR_QUEUE || in->no_path_retry > 0)
		return 1;
	if (in->no_path_retry == SP_NPR_FAIL || in->no_path_retry == 0)
		return 0;
	return in->has_queue_if_no_path && in->queue_if_no_path;
}

unsigned int sp_initiator_queue_timeout_s(const struct sp_initiator *in)
{
	return in->no_path_retry > 0
		? (unsigned int)in->no_path_retry * SP_NPR_INTERVAL_S : 0;
}

int sp_initiator_nvme_opts(const struct sp_initiator *in,
			   char opts[][SP_NVME_OPT_LEN], size_t *n)
{
	int loss = -2;	/* none said */

	*n = 0;
	/* iSCSI notices a silent connection after a NOP-Out interval and
	 * its timeout; NVMe after the keep-alive timeout (0: none sent) */
	if (in->noop_out_interval == 0)
		snprintf(opts[(*n)++], SP_NVME_OPT_LEN, "--keep-alive-tmo=0");
	else if (in->noop_out_interval > 0 || in->noop_out_timeout >= 0)
		snprintf(opts[(*n)++], SP_NVME_OPT_LEN, "--keep-alive-tmo=%d",
			 (in->noop_out_interval >= 0 ? in->noop_out_interval : 5) +
			 (in->noop_out_timeout >= 0 ? in->noop_out_timeout : 5));
	/* the head queues while a controller may come back: for ever (-1),
	 * not at all (0) or for the map's queueing time */
	if (in->no_path_retry == SP_NPR_QUEUE)
		loss = -1;
	else if (in->no_path_retry == SP_NPR_FAIL || in->no_path_retry == 0)
		loss = 0;
	else if (in->no_path_retry > 0)
		loss = (int)sp_initiator_queue_timeout_s(in);
	else if (in->has_queue_if_no_path)
		loss = in->queue_if_no_path ? -1 : 0;
	if (loss > -2)
		snprintf(opts[(*n)++], SP_NVME_OPT_LEN, "--ctrl-loss-tmo=%d",
			 loss);
	return 0;
}

int sp_initiator_parse_npr(const char *text, int *npr)
{
	char *end;
	long v;

	if (!strcmp(text, "queue")) {
		*npr = SP_NPR_QUEUE;
		return 0;
	}
	if (!strcmp(text, "fail")) {
		*npr = SP_NPR_FAIL;
		return 0;
	}
	if (*text < '0' || *text > '9')
		return -EINVAL;
	v = strtol(text, &end, 10);
	if (*end || v > SP_NPR_MAX)
		return -EINVAL;
	*npr = (int)v;
	return 0;
}

int sp_initiator_format(const struct sp_initiator *in, char *buf,
			size_t len)
{
	struct sp_strbuf o = SP_STRBUF(buf, len);

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (in->has_queue_if_no_path)
		sp_strbuf_printf(&o, "queue_if_no_path=%s ",
				 in->queue_if_no_path ? "yes" : "no");
	if (in->no_path_retry == SP_NPR_QUEUE)
		sp_strbuf_printf(&o, "no_path_retry=queue ");
	else if (in->no_path_retry == SP_NPR_FAIL)
		sp_strbuf_printf(&o, "no_path_retry=fail ");
	else if (in->no_path_retry >= 0)
		sp_strbuf_printf(&o, "no_path_retry=%d ", in->no_path_retry);
	if (in->replacement_timeout >= 0)
		sp_strbuf_printf(&o, "replacement_timeout=%d ",
				 in->replacement_timeout);
	if (in->noop_out_interval >= 0)
		sp_strbuf_printf(&o, "noop_out_interval=%d ",
				 in->noop_out_interval);
	if (in->noop_out_timeout >= 0)
		sp_strbuf_printf(&o, "noop_out_timeout=%d ",
				 in->noop_out_timeout);
	if (in->queue_bio)
		sp_strbuf_printf(&o, "queue_mode=bio ");
	if (o.overflow)
		return -ENOSPC;
	if (o.used)
		buf[o.used - 1] = '\0';	/* the last blank */
	return 0;
}

static int seconds(const char *v, int *out)
{
	char *end;
	long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	n = strtol(v, &end, 10);
	if (*end || n > SP_ISCSI_TIMEOUT_MAX)
		return -EINVAL;
	*out = (int)n;
	return 0;
}

int sp_initiator_parse_kv(struct sp_initiator *in, const char *kv)
{
	const char *v = strchr(kv, '=');
	size_t klen;

	if (!v)
		return -EINVAL;
	klen = (size_t)(v - kv);
	v++;
#define KEY(k) (klen == strlen(k) && !strncmp(kv, k, klen))
	if (KEY("queue_if_no_path")) {
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return -EINVAL;
		in->has_queue_if_no_path = 1;
		in->queue_if_no_path = !strcmp(v, "yes");
		return 0;
	}
	if (KEY("no_path_retry"))
		return sp_initiator_parse_npr(v, &in->no_path_retry);
	if (KEY("replacement_timeout"))
		return seconds(v, &in->replacement_timeout);
	if (KEY("noop_out_interval"))
		return seconds(v, &in->noop_out_interval);
	if (KEY("noop_out_timeout"))
		return seconds(v, &in->noop_out_timeout);
	if (KEY("queue_mode")) {
		if (strcmp(v, "bio") && strcmp(v, "rq"))
			return -EINVAL;
		in->queue_bio = !strcmp(v, "bio");
		return 0;
	}
#undef KEY
	return -EINVAL;
}
