/* Fuzz target: the command output `up` parses, against the plan of the
 * equal3 topology. The first byte picks which: even, `iscsiadm -m
 * session -P3` text searched for each path's disk; odd, `ip -o -4 addr
 * show` text checked for subnets clashing with the plan's. */
#include "tests/fuzz/fuzz.h"

#include "tests/fuzz/equal3_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sp_state *st = equal3_plan();
	char err[SP_BRINGUP_ERRLEN], disk[32];
	char *text;
	size_t i;

	if (size < 1)
		return 0;
	text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	if (data[0] & 1)
		sp_bringup_addr_clash(st, text, err, sizeof(err));
	else
		for (i = 0; i < st->npaths; i++)
			sp_bringup_session_disk(text, st->iqn,
						st->paths[i].target_ip,
						st->paths[i].portal_port, disk,
						sizeof(disk));
	free(text);
	return 0;
}
