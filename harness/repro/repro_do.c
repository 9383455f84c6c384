/* What `slowpath reproduce` does once parsed (repro_do.h): the
 * published tables loaded, the output folder picked, the runs through
 * the ops, the record and the report, and what it says of them. */
#include "harness/repro/repro_do.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/machine.h"
#include "common/outdir.h"
#include "common/units.h"
#include "harness/repro/ref_cover_letter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What --report-only cannot learn from the case files: the unit and
 * how long the runs took. */
void sp_repro_here(char *mode, size_t mode_len, char *host, size_t host_len)
{
	char name[128] = "?";

	gethostname(name, sizeof(name) - 1);
	snprintf(mode, mode_len, "%s", !sp_machine_in_lab() ? "native" :
		 sp_machine_exact_time() ?
		 "lab (uml, time exact: the testbed's own CPU costs nothing)" :
		 !strcmp(sp_machine_engine(), "uml") ? "lab (uml, time real)" :
		 "lab (qemu TCG, Debian's kernel)");
	snprintf(host, host_len, "%s, %ld cores", name,
		 sysconf(_SC_NPROCESSORS_ONLN));
}

/* --scale: *scaled 0 for none (the unit calibrated from the setup's
 * base as before), else auto or a fixed k (*k, 0 for auto). Without
 * it the lab takes auto, a native host none. */
int sp_repro_parse_scale(const char *text, int *scaled, uint64_t *k)
{
	int64_t v;

	*k = 0;
	*scaled = 1;
	if (!text) {
		/* exact time: k = 1, the published base injected and its
		 * residual checked once; the qemu lab: auto */
		*scaled = sp_machine_in_lab();
		if (sp_machine_exact_time())
			*k = 1;
		return 0;
	}
	if (!strcmp(text, "auto"))
		return 0;
	if (!strcmp(text, "none")) {
		*scaled = 0;
		return 0;
	}
	if (sp_parse_int64(text, 1, 1 << 20, &v) || (v & (v - 1)))
		return -EINVAL;
	*k = (uint64_t)v;
	return 0;
}

/* The published table (ref) and the 2020 fit (fit_ref; ref itself but
 * for the cover letter). 0 or an exit code. */
int sp_repro_load_refs(const char *data, int cover, struct sp_reference *ref,
		       struct sp_reference *fit_ref)
{
	static struct sp_ref_topologies topos;
	char err[SP_OUTDIR_ERRLEN];
	int ret;

	/* the same files `up` brings the topologies up from */
	ret = sp_ref_topologies_load(NULL, &topos, err, sizeof(err));
	if (ret) {
		sp_err("reproduce: %s", err);
		return sp_exit_from_errno(ret);
	}
	/* the 2020 tables give the fit (base and unit) either way */
	ret = sp_ref_load(!cover && data ? data : SP_REF_DEFAULT_DATA,
			  &topos, fit_ref);
	if (!ret && cover)
		ret = sp_cover_load(data ? data : SP_COVER_DEFAULT_DATA,
				    &topos, ref);
	else if (!ret)
		*ref = *fit_ref;
	if (ret) {
		sp_ref_free(fit_ref);
		return sp_exit_from_errno(ret);
	}
	return 0;
}

/* --out, or build/reproduce/<UTC time>: new or empty unless
 * --report-only. 0 or an exit code. */
int sp_repro_pick_out(const char *given, int report_only, char *out,
		      size_t len)
{
	char err[SP_OUTDIR_ERRLEN];
	int ret;

	if (given) {
		snprintf(out, len, "%s", given);
	} else {
		time_t now = time(NULL);
		char stamp[32];

		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
		snprintf(out, len, "build/reproduce/%s", stamp);
	}
	/* root writes reports, plots and fio jobs in here; a run only into
	 * a new or empty folder, so no earlier reproduction's record is
	 * written over (--report-only writes its report again, as it says) */
	ret = sp_outdir_check(out, report_only ? 0 :
			      SP_OUTDIR_CREATE | SP_OUTDIR_EMPTY, err, sizeof(err));
	if (ret) {
		sp_err("reproduce: --out %s%s", err, ret == -EEXIST ?
		       "; --report-only writes the report of "
		       "one again" : "");
		return SP_EXIT_USAGE;
	}
	return 0;
}

/* What the report states of the unit of a scaled reproduction. */
static void unit_text_scaled(uint64_t fixed_k, int exact_time, char *buf,
			     size_t len)
{
	snprintf(buf, len, "the 2020 fit's, scaled (k: auto)");
	if (fixed_k)
		snprintf(buf, len, "the 2020 fit's, scaled (k = %llu)",
			 (unsigned long long)fixed_k);
	if (fixed_k == 1 && exact_time)
		snprintf(buf, len, "the 2020 fit's, k = 1 on exact time");
}

/* The record and the report after the runs (ran: theirs, 0 or -errno).
 * An exit code. */
int sp_repro_do_finish(const struct sp_repro_opts *o,
		       const struct sp_repro_plan *plan,
		       const struct sp_reference *ref, const char *out,
		       const char *unit_text, int64_t started, const char *mode,
		       const char *host, int ran)
{
	char said[512];
	int ret;

	ret = sp_repro_finish(o, plan, ref, out, unit_text,
			      (sp_now_ns() - started) / SP_NSEC_PER_SEC, mode,
			      host, said, sizeof(said));
	if (said[0])
		printf("%s\n", said);
	return ret || ran ? SP_EXIT_RUNTIME : SP_EXIT_OK;
}

/* --report-only: an exit code. */
int sp_repro_do_report_again(const char *unit, const struct sp_repro_opts *o,
			     const struct sp_repro_plan *plan,
			     const struct sp_reference *ref, const char *out)
{
	char said[512];
	int ret = sp_repro_report_again(o, plan, ref, out, unit, said,
					sizeof(said));

	if (said[0])
		printf("%s\n", said);
	if (ret == -EINVAL)
		return SP_EXIT_USAGE;
	return ret ? SP_EXIT_RUNTIME : SP_EXIT_OK;
}

/* The runs, scaled or not, then the record and the report. An exit code. */
int sp_repro_do_measure(const struct sp_repro_ops *ops,
			const struct sp_repro_opts *o,
			const struct sp_repro_plan *plan,
			const struct sp_reference *ref,
			const struct sp_reference *fit_ref, int64_t unit_ns,
			int scaled, uint64_t fixed_k, const char *out)
{
	char unit_text[SP_REPRO_UNIT_TEXT], mode[160], host[160];
	int64_t started = sp_now_ns();
	int ret;

	if (scaled) {
		unit_text_scaled(fixed_k, o->exact_time, unit_text, sizeof(unit_text));
		printf("reproduce: %zu points x {ST, HST}, scaled, output in "
		       "%s\n", sp_repro_plan_points(plan), out);
		ret = sp_repro_scaled(ops, o, plan, ref, fit_ref, fixed_k, out);
	} else {
		ret = unit_ns ? 0 : sp_repro_unit(ops, fit_ref, out, &unit_ns);
		if (ret) {
			sp_err("reproduce: calibration failed");
			return SP_EXIT_RUNTIME;
		}
		ret = sp_repro_unscaled(ops, o, plan, unit_ns, out, unit_text,
					sizeof(unit_text));
	}
	sp_repro_here(mode, sizeof(mode), host, sizeof(host));
	return sp_repro_do_finish(o, plan, ref, out, unit_text, started, mode, host, ret);
}

