/* What `slowpath reproduce` does once its options are parsed, around
 * the orchestration of repro_run.h: the published tables, the output
 * folder, the runs through the ops, the record and the report, and the
 * lines it prints of them. harness/cli/repro_cmd.c is its options and
 * these calls; each returns an sp_exit code but where it says -errno. */
#ifndef SP_REPRO_DO_H
#define SP_REPRO_DO_H

#include <stddef.h>
#include <stdint.h>

#include "harness/repro/reference.h"
#include "harness/repro/repro_ops.h"
#include "harness/repro/repro_plan.h"
#include "harness/repro/repro_run.h"

/* --scale: *scaled 0 for none (the unit calibrated from the setup's
 * base), else auto or a fixed k (*k, 0 for auto); text NULL: auto in
 * the lab (k = 1 on exact time), none natively. 0 or -EINVAL. */
int sp_repro_parse_scale(const char *text, int *scaled, uint64_t *k);
/* The published table (ref) and the 2020 fit (fit_ref; ref itself but
 * for the cover letter), data: --data or NULL. */
int sp_repro_load_refs(const char *data, int cover, struct sp_reference *ref,
		       struct sp_reference *fit_ref);
/* --out (given), or build/reproduce/<UTC time>: new or empty unless
 * report_only. */
int sp_repro_pick_out(const char *given, int report_only, char *out,
		      size_t len);
/* Where the runs are measured (native, which lab) and this host. */
void sp_repro_here(char *mode, size_t mode_len, char *host, size_t host_len);
/* The record and the report after the runs (ran: theirs, 0 or -errno;
 * started: sp_now_ns() before them). */
int sp_repro_do_finish(const struct sp_repro_opts *o,
		       const struct sp_repro_plan *plan,
		       const struct sp_reference *ref, const char *out,
		       const char *unit_text, int64_t started, const char *mode,
		       const char *host, int ran);
/* --report-only (unit: --unit or NULL). */
int sp_repro_do_report_again(const char *unit, const struct sp_repro_opts *o,
			     const struct sp_repro_plan *plan,
			     const struct sp_reference *ref, const char *out);
/* The runs through ops, scaled (fixed_k, 0: auto) or not (unit_ns, 0:
 * calibrated first), then the record and the report. */
int sp_repro_do_measure(const struct sp_repro_ops *ops,
			const struct sp_repro_opts *o,
			const struct sp_repro_plan *plan,
			const struct sp_reference *ref,
			const struct sp_reference *fit_ref, int64_t unit_ns,
			int scaled, uint64_t fixed_k, const char *out);

#endif
