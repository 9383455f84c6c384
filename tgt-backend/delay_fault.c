/* The pure half of the delay store's injected faults: sense codes and
 * the per-command fail decision. See delay_fault.h. */
#include "tgt-backend/delay_fault.h"

#include <stddef.h>

const char *const delay_sense_names[] = {
	[DELAY_SENSE_MEDIUM] = "medium",
	[DELAY_SENSE_NOT_READY] = "not-ready",
	[DELAY_SENSE_ABORTED] = "aborted",
	[DELAY_SENSE_HARDWARE] = "hardware",
	NULL,
};

/* SPC-4 sense keys with the additional sense code a real disk (or tgt's
 * own rdwr store, for MEDIUM ERROR) reports with them. */
static const struct delay_sense_code codes[] = {
	[DELAY_SENSE_MEDIUM] = { 0x03, 0x11, 0x00,
				 "MEDIUM ERROR, unrecovered read error" },
	[DELAY_SENSE_NOT_READY] = { 0x02, 0x04, 0x00,
				    "NOT READY, logical unit not ready, "
				    "cause not reportable" },
	[DELAY_SENSE_ABORTED] = { 0x0b, 0x00, 0x00,
				  "ABORTED COMMAND, no additional sense" },
	[DELAY_SENSE_HARDWARE] = { 0x04, 0x44, 0x00,
				   "HARDWARE ERROR, internal target failure" },
};

const struct delay_sense_code *delay_sense_code(int s)
{
	return s >= 0 && s < DELAY_SENSE_COUNT ? &codes[s] : NULL;
}

uint64_t delay_fault_seed(uint64_t store_seed)
{
	/* any fixed odd constant keeps the map one-to-one */
	return store_seed ^ 0xd1b54a32d192ed03ULL;
}

int delay_fault_decide(struct jitter_rng *rng, double rate)
{
	if (!(rate > 0))
		return 0;
	if (rate >= 1)
		return 1;
	return jitter_next_unit(rng) < rate;
}
