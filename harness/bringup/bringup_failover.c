/* The initiator's side at `up`: the node records' CHAP credentials and
 * the iSCSI timeouts that decide how fast a silent or dead connection
 * fails its I/O up to the map (see docs/faults.md). */
#include "harness/bringup/bringup.h"

#include <stdio.h>

/* One iscsiadm for every setting (it takes -n/-v pairs in a row): a
 * started process costs a guest of the lab ~35 ms of the host's CPU. */
int sp_bringup_node_settings(const struct sp_sys_ops *ops,
			     const struct sp_state *st, const char *secret,
			     char *err, size_t errlen)
{
	const struct sp_initiator *in = &st->init;
	const char *const timeo_names[] = {
		"node.session.timeo.replacement_timeout",
		"node.conn[0].timeo.noop_out_interval",
		"node.conn[0].timeo.noop_out_timeout",
	};
	const int timeo_values[] = { in->replacement_timeout,
				     in->noop_out_interval,
				     in->noop_out_timeout };
	const char *argv[8 + 4 * 6 + 1] = { "iscsiadm", "-m", "node", "-T",
					    st->iqn, "-o", "update" };
	char v[3][16];
	size_t i, n = 7;
	int r;

	if (secret) {
		const char *const chap[] = {
			"node.session.auth.authmethod", "CHAP",
			"node.session.auth.username", st->chap_user,
			"node.session.auth.password", secret,
		};

		for (i = 0; i < 6; i += 2) {
			argv[n++] = "-n";
			argv[n++] = chap[i];
			argv[n++] = "-v";
			argv[n++] = chap[i + 1];
		}
	}
	for (i = 0; i < 3; i++) {
		if (timeo_values[i] < 0)
			continue;
		snprintf(v[i], sizeof(v[i]), "%d", timeo_values[i]);
		argv[n++] = "-n";
		argv[n++] = timeo_names[i];
		argv[n++] = "-v";
		argv[n++] = v[i];
	}
	if (n == 7)
		return 0;	/* nothing to set */
	argv[n] = NULL;
	r = ops->run(ops->ctx, argv, NULL, 0);
	return r ? sp_sys_failed(ops, r, "iscsiadm update of the node records",
				 err, errlen) : 0;
}
