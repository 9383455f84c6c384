/* `slowpath reference`: the published 2020 experiment as tables — the
 * slow paths' share under ST and HST, and the latency-unit fit. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "harness/cli/commands.h"
#include "harness/repro/reference.h"
#include "harness/measure/shares.h"

enum { FORMAT_MD, FORMAT_TSV };
static const char *const format_names[] = { "md", "tsv", NULL };

struct reference_opts {
	char *data;
	int format;
	int help;
};

static const struct sp_opt reference_opttab[] = {
	{ .name = "data", .type = SP_OPT_STR,
	  .offset = offsetof(struct reference_opts, data),
	  .help = "data file (default: " SP_REF_DEFAULT_DATA
		  " next to the binary's build dir, else in the current dir)" },
	{ .name = "format", .type = SP_OPT_ENUM, .def = "md",
	  .offset = offsetof(struct reference_opts, format),
	  .choices = format_names,
	  .help = "md: markdown tables; tsv: one line per case pair" },
	{ .name = "help", .type = SP_OPT_BOOL,
	  .offset = offsetof(struct reference_opts, help),
	  .help = "this text" },
	SP_OPT_END,
};

/* build/slowpath -> build/../harness/repro/data/..., so the command works from
 * any directory; the cwd-relative path is the fallback. */
static void default_data_path(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		snprintf(buf, len, "%s/../%s", dirname(exe), SP_REF_DEFAULT_DATA);
		if (access(buf, R_OK) == 0)
			return;
	}
	snprintf(buf, len, "%s", SP_REF_DEFAULT_DATA);
}

struct pair_stats {
	int have_slow;
	double slow_st, slow_hst, tv;
};

static int pair_stats(const struct sp_ref_case *st, const struct sp_ref_case *hst,
		      struct pair_stats *out)
{
	double f_st[SP_REF_MAX_PATHS], f_hst[SP_REF_MAX_PATHS];
	int marked[SP_REF_MAX_PATHS];
	int n_slow, ret;

	if ((ret = sp_ref_shares(st, f_st)) || (ret = sp_ref_shares(hst, f_hst)))
		return ret;
	n_slow = sp_ref_case_slow_marks(st, marked);
	if (n_slow < 0)
		return n_slow;
	out->have_slow = n_slow > 0;
	out->slow_st = sp_share_of(f_st, marked, st->n_paths);
	out->slow_hst = sp_share_of(f_hst, marked, st->n_paths);
	out->tv = sp_total_variation(f_st, f_hst, st->n_paths);
	return 0;
}

static int print_shares(const struct sp_reference *ref, int format)
{
	size_t i;
	int ret;

	if (format == FORMAT_MD) {
		printf("| topology | rw | iodepth | slow share ST | slow share HST | HST - ST | TV(ST, HST) |\n");
		printf("|---|---|---:|---:|---:|---:|---:|\n");
	} else {
		printf("topology\trw\tiodepth\tslow_st\tslow_hst\ttv_st_hst\n");
	}
	for (i = 0; i < ref->n_cases; i++) {
		const struct sp_ref_case *st = &ref->cases[i], *hst;
		struct pair_stats s;

		if (st->selector != SP_REF_ST)
			continue;
		hst = sp_ref_find(ref, st->topology, st->rw, st->iodepth, SP_REF_HST);
		if (!hst) {
			sp_err("reference: %s %s iodepth %d has ST but no HST table",
			       st->topology, sp_ref_rw_name(st->rw), st->iodepth);
			return -EINVAL;
		}
		if ((ret = pair_stats(st, hst, &s)))
			return ret;
		if (format == FORMAT_TSV) {
			if (s.have_slow)
				printf("%s\t%s\t%d\t%.4f\t%.4f\t%.4f\n", st->topology,
				       sp_ref_rw_name(st->rw), st->iodepth,
				       s.slow_st, s.slow_hst, s.tv);
			else
				printf("%s\t%s\t%d\t-\t-\t%.4f\n", st->topology,
				       sp_ref_rw_name(st->rw), st->iodepth, s.tv);
		} else if (s.have_slow) {
			printf("| %s | %s | %d | %.1f%% | %.1f%% | %+.1f pp | %.3f |\n",
			       st->topology, sp_ref_rw_name(st->rw), st->iodepth,
			       100 * s.slow_st, 100 * s.slow_hst,
			       100 * (s.slow_hst - s.slow_st), s.tv);
		} else {
			printf("| %s | %s | %d | - | - | - | %.3f |\n", st->topology,
			       sp_ref_rw_name(st->rw), st->iodepth, s.tv);
		}
	}
	return 0;
}

/* Measured mean per multiplier next to the fitted line, so the doc can
 * show where the straight line is good and where it is not. */
static void print_calibration(const struct sp_reference *ref,
			      const struct sp_linfit *fit, int format)
{
	static const double mults[] = { 1, 4, 8, 16 };
	double serial = -1, serial_rmse = 0;
	size_t m, i, p;

	if (sp_ref_serial_fit(ref, fit, &serial, &serial_rmse))
		serial = -1;
	if (format == FORMAT_TSV) {
		printf("fit_base_ms\t%.4f\nfit_slope_ms\t%.4f\nfit_r2\t%.5f\n"
		       "fit_rmse_ms\t%.4f\nfit_n\t%zu\nbase_over_slope\t%.4f\n"
		       "serial_base_ms\t%.3f\nserial_rmse_pp\t%.2f\n",
		       fit->base, fit->slope, fit->r2, fit->rmse, fit->n,
		       fit->base / fit->slope, serial, 100 * serial_rmse);
		return;
	}
	printf("mean service time per I/O (ms) = %.3f + %.3f x multiplier\n"
	       "(least squares over %zu paths: skew4 and u10, iodepth 1, read and "
	       "randread, ST and HST; r^2 = %.4f, rmse = %.3f ms; base/slope = %.2f units)\n\n",
	       fit->base, fit->slope, fit->n, fit->r2, fit->rmse,
	       fit->base / fit->slope);
	if (serial >= 0)
		printf("served one command at a time per path: %.3f ms of the base "
		       "+ %.3f ms x multiplier\n(the serial base that gives the ST "
		       "runs' slow shares at iodepth 32 and 64 from the paths' "
		       "capacities; rmse %.2f pp)\n\n", serial, fit->slope,
		       100 * serial_rmse);
	printf("| multiplier | paths | measured mean (ms) | fitted (ms) |\n");
	printf("|---:|---:|---:|---:|\n");
	for (m = 0; m < sizeof(mults) / sizeof(mults[0]); m++) {
		double sum = 0, ms;
		size_t n = 0;

		for (i = 0; i < ref->n_cases; i++) {
			const struct sp_ref_case *c = &ref->cases[i];
			const struct sp_ref_topology *topo = c->topo;

			if (c->iodepth != 1 || !sp_ref_rw_is_read(c->rw) ||
			    !strcmp(c->topology, "equal3"))
				continue;
			for (p = 0; p < c->n_paths; p++) {
				if (topo->multiplier[p] != mults[m] ||
				    sp_ref_service_ms(c, p, &ms))
					continue;
				sum += ms;
				n++;
			}
		}
		if (n)
			printf("| %g | %zu | %.3f | %.3f |\n", mults[m], n, sum / (double)n,
			       fit->base + fit->slope * mults[m]);
	}
}

int cmd_reference(int argc, char **argv)
{
	static struct sp_ref_topologies topos;
	struct reference_opts opts = { 0 };
	struct sp_reference ref;
	struct sp_linfit fit;
	char err[SP_OPT_ERRLEN + 256], path[PATH_MAX + 64];
	int next, ret;

	sp_opt_set_defaults(reference_opttab, &opts);
	ret = sp_opt_parse_argv(reference_opttab, &opts, argc, argv, 1, &next,
				err, sizeof(err));
	if (ret) {
		sp_err("reference: %s", err);
		return SP_EXIT_USAGE;
	}
	if (next < argc) {
		sp_err("reference: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	if (opts.help) {
		char help[1024];

		sp_opt_help_argv(reference_opttab, help, sizeof(help));
		printf("usage: slowpath reference [--format md|tsv] [--data FILE]\n"
		       "Prints the published 2020 HST vs ST experiment: the slow "
		       "paths' share of the I/O under each selector, and the fit of "
		       "per-I/O service time against the delay multiplier.\n%s", help);
		return SP_EXIT_OK;
	}
	if (opts.data)
		snprintf(path, sizeof(path), "%s", opts.data);
	else
		default_data_path(path, sizeof(path));
	ret = sp_ref_topologies_load(NULL, &topos, err, sizeof(err));
	if (ret) {
		sp_err("reference: %s", err);
		return ret == -ENOENT ? SP_EXIT_ENV : SP_EXIT_USAGE;
	}
	ret = sp_ref_load(path, &topos, &ref);
	if (ret)
		return ret == -ENOENT ? SP_EXIT_ENV : SP_EXIT_USAGE;
	ret = sp_ref_calibrate(&ref, &fit);
	if (ret) {
		sp_err("reference: %s: too few iodepth-1 read paths to fit", path);
		sp_ref_free(&ref);
		return SP_EXIT_USAGE;
	}
	if (opts.format == FORMAT_MD)
		printf("## Slow paths' share of the I/O (%zu published cases)\n\n",
		       ref.n_cases);
	ret = print_shares(&ref, opts.format);
	if (!ret) {
		if (opts.format == FORMAT_MD)
			printf("\n## Unit calibration\n\n");
		print_calibration(&ref, &fit, opts.format);
	}
	sp_ref_free(&ref);
	return ret ? SP_EXIT_USAGE : SP_EXIT_OK;
}
