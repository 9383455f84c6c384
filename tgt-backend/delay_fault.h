/* Faults the delay store injects (slowpath fault ... error|hang): which
 * commands fail and with what sense, decided by a PRNG of their own
 * seeded from the store's seed, so a seed replays the same failures
 * without shifting the jitter sequence. Pure: unit-tested without tgt.
 *
 *   error_rate=R    0..1: the share of commands failed (0: none)
 *   error_sense=S   medium|not-ready|aborted|hardware, the sense of the
 *                   failure (tables below)
 *   hold=1|0        hold every new command until hold=0 (a target that
 *                   stopped answering), then release them in order */
#ifndef SP_DELAY_FAULT_H
#define SP_DELAY_FAULT_H

#include <stdint.h>

#include "tgt-backend/jitter.h"

enum delay_sense { DELAY_SENSE_MEDIUM, DELAY_SENSE_NOT_READY,
		   DELAY_SENSE_ABORTED, DELAY_SENSE_HARDWARE,
		   DELAY_SENSE_COUNT };

/* What a failed command reports: SCSI sense key, ASC and ASCQ. */
struct delay_sense_code {
	uint8_t key, asc, ascq;
	const char *what;	/* the standard's words, for docs and logs */
};

extern const char *const delay_sense_names[];	/* NULL-terminated */

/* The code of sense s; NULL for one out of range. */
const struct delay_sense_code *delay_sense_code(int s);

/* The error PRNG's seed: the store's seed mixed so the two sequences
 * never coincide. */
uint64_t delay_fault_seed(uint64_t store_seed);

/* 1 when this command fails: always at rate >= 1, never at <= 0 (and
 * then the generator is not advanced), else one draw below rate. */
int delay_fault_decide(struct jitter_rng *rng, double rate);

#endif
