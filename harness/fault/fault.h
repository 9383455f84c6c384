/* Faults on one path of a topology that is up: what `slowpath fault`
 * does by hand and what `slowpath run --fault` schedules mid-run.
 * This is the pure grammar: a fault parsed from one spec ("at=10s
 * path=p2 how=hang for=20s", the same words `slowpath fault PATH HOW
 * [--for D]` builds) and formatted back. Applying and undoing one is
 * harness/fault/fault_apply.h. */
#ifndef SP_FAULT_H
#define SP_FAULT_H

#include <stddef.h>
#include <stdint.h>

enum sp_fault_how {
	SP_FAULT_HANG,		/* the target stops answering */
	SP_FAULT_RESET,		/* the connection drops: tgtd killed, restarted on restore */
	SP_FAULT_BLACKHOLE,	/* every packet lost (netem loss 100 %) */
	SP_FAULT_DOWN,		/* the path's veth goes down */
	SP_FAULT_ERROR,		/* the store fails commands: error_rate, error_sense */
	SP_FAULT_FLAP,		/* down/up every flap_period */
	SP_FAULT_SLOW,		/* the path's delay x slow_factor */
	SP_FAULT_ANA,		/* nvme-tcp: the path's port's ANA state */
	SP_FAULT_RESTORE,	/* undo whatever fault the path has */
	SP_FAULT_HOW_COUNT
};

#define SP_FAULT_MAX 32		/* --fault options one run takes */

struct sp_fault {
	enum sp_fault_how how;
	char path[64];		/* path name as in the topology/journal */
	int64_t at_ns;		/* run only: since the case's fio started; -1 = now */
	int64_t for_ns;		/* 0 = until restored (or the case ends, in a run) */
	double error_rate;	/* ERROR: 0 < rate <= 1 */
	char error_sense[32];	/* ERROR: medium, not-ready, aborted, ... */
	int64_t flap_period_ns;	/* FLAP: each down and each up lasts this */
	double slow_factor;	/* SLOW: delay multiplied by this, > 0 */
	/* ANA: optimized, non-optimized or inaccessible, as nvmet's
	 * configfs spells them (ports/N/ana_groups/1/ana_state) */
	char ana_state[16];
};

const char *sp_fault_how_name(enum sp_fault_how how);
/* "hang" ... "restore" into *how; -EINVAL. */
int sp_fault_how_parse(const char *name, enum sp_fault_how *how);
/* A fault of how with the defaults every spec starts from: at=-1 (now),
 * for=0 (until restored), rate 1, sense medium, period 5s, factor 10,
 * state inaccessible. */
void sp_fault_init(struct sp_fault *f, enum sp_fault_how how);

/* "k=v k=v ..." (at= path= how= for= rate= sense= period= factor= state=) into
 * *f; -EINVAL with err naming the word and value. Pure. */
int sp_fault_parse(const char *spec, struct sp_fault *f, char *err,
		   size_t errlen);
/* The spec text of *f, which sp_fault_parse reads back to *f. */
int sp_fault_format(const struct sp_fault *f, char *buf, size_t len);

#endif
