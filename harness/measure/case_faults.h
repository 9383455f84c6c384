/* What a case ran through and whether the data survived: the fault
 * events scheduled in it (each applied and restored at a time since
 * fio started), the timeline file kept next to the case, fio's error
 * counts and verify failures. A part of struct sp_case_result, saved
 * in the case JSON as "faults" only when the run had --fault or
 * --verify, so older case files read back unchanged. Pure. */
#ifndef SP_CASE_FAULTS_H
#define SP_CASE_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/measure/timeline.h"

struct sp_case_faults {
	int recorded;		/* 0: a case without any of this */
	int verify;		/* fio checked what it wrote (crc32c) */
	int counted;		/* fio counted errors (continue_on_error) */
	uint64_t fio_errors;	/* fio's total_err: I/O and verify errors */
	int first_error;	/* its errno, 0 none */
	uint64_t verify_errors;	/* blocks that read back wrong */
	int timeline;		/* cases/<stem>.timeline.tsv was written */
	size_t n_events;
	struct sp_tl_event ev[SP_TL_MAX_EVENTS];
};

/* Appends an event (dropped past SP_TL_MAX_EVENTS: -ENOSPC). */
int sp_case_faults_add(struct sp_case_faults *f, int64_t t_ms,
		       const char *path, const char *dev, const char *how,
		       enum sp_tl_event_kind kind);

/* I/O errors fio saw that were not verify failures. */
uint64_t sp_case_faults_io_errors(const struct sp_case_faults *f);

struct json_object;
/* Adds "faults" to a case's JSON object when f->recorded. */
void sp_case_faults_to_json(const struct sp_case_faults *f,
			    struct json_object *o);
/* Reads "faults" back (absent: recorded 0). Every name must pass
 * sp_name_ok: they reach gnuplot scripts and file names. 0, or -EINVAL
 * with one message naming origin and the key. */
int sp_case_faults_from_json(struct json_object *o, const char *origin,
			     struct sp_case_faults *f);

#endif
