/* The initiator's side of failover at `up`: the iSCSI timeouts that
 * decide how fast a silent or dead connection fails its I/O up to the
 * map (see docs/faults.md). */
#include "harness/bringup/bringup.h"

#include <stdio.h>

int sp_bringup_iscsi_timeouts(const struct sp_sys_ops *ops,
			      const struct sp_state *st, char *err,
			      size_t errlen)
{
	const struct sp_initiator *in = &st->init;
	const char *const names[] = {
		"node.session.timeo.replacement_timeout",
		"node.conn[0].timeo.noop_out_interval",
		"node.conn[0].timeo.noop_out_timeout",
	};
	const int values[] = { in->replacement_timeout, in->noop_out_interval,
			       in->noop_out_timeout };
	char v[16], what[96];
	size_t i;
	int r;

	for (i = 0; i < 3; i++) {
		if (values[i] < 0)
			continue;
		snprintf(v, sizeof(v), "%d", values[i]);
		r = sp_sys_runv(ops, NULL, 0, "iscsiadm", "-m", "node", "-T",
				st->iqn, "-o", "update", "-n", names[i], "-v",
				v, NULL);
		if (r) {
			snprintf(what, sizeof(what), "iscsiadm update %s",
				 names[i]);
			return sp_sys_failed(ops, r, what, err, errlen);
		}
	}
	return 0;
}
