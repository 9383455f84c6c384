/* slowpath up|down|status|delay: the option tables and usage over
 * harness/bringup/bringup_do.h (and down: harness/fault/fault_do.h).
 * Errors are one line through the log hook. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "common/opttab.h"
#include "common/units.h"
#include "harness/bringup/bringup_do.h"
#include "harness/cli/commands.h"
#include "harness/cli/repro_cli.h"
#include "harness/fault/fault_do.h"

#include <stdio.h>
#include <string.h>

/* "topology" (keep the file's) and then dm/selector.c's short names,
 * filled in by fill_sel_choices() before the table is used. */
static const char *sel_choices[SP_SEL_TABLE_MAX + 2] = { "topology" };
static const char *const mech_choices[] = { "topology", "backend", "netem",
					    "both", NULL };
static const char *const transport_choices[] = { "topology", "iscsi",
						 "nvme-tcp", NULL };

/* up's options: the room's values, and the two choices by index */
struct up_cli {
	struct sp_up_args a;
	int selector, mechanism, transport;
};

#define U(f) offsetof(struct up_cli, a.f)
static const struct sp_opt up_table[] = {
	{ .name = "selector", .type = SP_OPT_ENUM, .offset = offsetof(struct up_cli, selector),
	  .choices = sel_choices, .def = "topology",
	  .help = "path selector of the map (st|hst|ql|rr|ioa or a built one; over nvme-tcp the iopolicy numa|rr|qd)" },
	{ .name = "mechanism", .type = SP_OPT_ENUM, .offset = offsetof(struct up_cli, mechanism),
	  .choices = mech_choices, .def = "topology",
	  .help = "how every path is delayed (backend|netem|both)" },
	{ .name = "transport", .type = SP_OPT_ENUM,
	  .offset = offsetof(struct up_cli, transport),
	  .choices = transport_choices, .def = "topology",
	  .help = "iscsi (tgtd, dm-multipath) or nvme-tcp (nvmet, native "
	  "multipath; docs/nvme.md)" },
	{ .name = "not-serial", .type = SP_OPT_BOOL, .offset = U(not_serial),
	  .help = "nvme-tcp on a topology with servers: its delays as netem "
	  "latency, the paths then not serial" },
	{ .name = "unit", .type = SP_OPT_DELAY, .offset = U(unit_ns),
	  .def = "0", .help = "delay unit (0: the topology's; its lab_unit "
	  "in the lab)" },
	{ .name = "scale", .type = SP_OPT_INT, .offset = U(scale),
	  .def = "1", .min = 1, .max = 1 << 30,
	  .help = "every delay times K, a power of two; HST is loaded with "
	  "bucket_shift 24 + log2 K" },
	{ .name = "calibrate", .type = SP_OPT_BOOL, .offset = U(calibrate),
	  .help = "then correct every path's delay until its p50 at "
	  "iodepth 1 is within 3% of scale x (calibrate-base + delay)" },
	{ .name = "calibrate-base", .type = SP_OPT_DELAY,
	  .offset = U(calib_base_ns), .def = "856us",
	  .help = "the per-I/O base every path's target includes (856us: "
	  "the 2020 fit)" },
	{ .name = "serial-base", .type = SP_OPT_DELAY,
	  .offset = U(serial_base_ns), .def = "0",
	  .help = "topologies with servers: the part of the base every path "
	  "serves in turn, added to each path's service (and taken from "
	  "calibrate-base)" },
	{ .name = "calibrate-rounds", .type = SP_OPT_INT,
	  .offset = U(calib_rounds), .def = "4", .min = 1, .max = 20,
	  .help = "measurements at most" },
	{ .name = "calibrate-runtime", .type = SP_OPT_INT,
	  .offset = U(calib_runtime_s), .def = "3", .min = 1, .max = 60,
	  .help = "least fio seconds per path per measurement (more for 150 I/Os)" },
	{ .name = "base_weight", .type = SP_OPT_INT, .offset = U(base_weight),
	  .def = "-1", .min = -1, .max = 1023,
	  .help = "HST: history weight, 0..1023 (-1: kernel default)" },
	{ .name = "threshold_multiplier", .type = SP_OPT_INT,
	  .offset = U(threshold_multiplier), .def = "-1", .min = -1,
	  .max = 4294967295.0, .help = "HST: threshold multiplier" },
	{ .name = "hst", .type = SP_OPT_STR, .offset = U(hst), .def = "stock",
	  .help = "HST's build: stock, or 5.8[:SKEW], HST as merged for 5.8 "
	  "(time_now from sched_clock() plus SKEW, e.g. 200ms), or prebio, "
	  "HST before its 2022 bio-based timer fix" },
	{ .name = "tgtd-wait", .type = SP_OPT_INT, .offset = U(tgtd_wait_s),
	  .def = "60", .min = 1, .max = 3600,
	  .help = "seconds to wait for each tgtd" },
	{ .name = "disk-wait", .type = SP_OPT_INT, .offset = U(disk_wait_s),
	  .def = "120", .min = 1, .max = 3600,
	  .help = "seconds to wait for the disks after login" },
	SP_OPT_END,
};

static void up_usage(FILE *out)
{
	char help[2048];

	sp_opt_help_argv(up_table, help, sizeof(help));
	fprintf(out, "usage: slowpath up TOPOLOGY [--selector st|hst|ql|rr|ioa] "
		"[--mechanism backend|netem|both] [--transport iscsi|nvme-tcp] [--unit T]\n"
		"Sets the topology up: a namespace, veth pair and tgtd per "
		"path, iSCSI sessions,\nand one dm-multipath map. State goes "
		"to %s; 'slowpath down' undoes it.\noptions:\n%s",
		sp_state_dir(), help);
}

static void fill_sel_choices(void)
{
	size_t k;

	for (k = 0; sp_selector_short_names[k]; k++)
		sel_choices[k + 1] = sp_selector_short_names[k];
}

/* The parsed choices as the room's values. */
static void up_args(struct up_cli *cli)
{
	cli->a.selector = cli->selector > 0 ? sel_choices[cli->selector] : NULL;
	cli->a.mechanism = cli->mechanism - 1;	/* 0, "topology": -1 */
	cli->a.transport = cli->transport - 1;
}

static void up_defaults(struct up_cli *cli)
{
	fill_sel_choices();
	memset(cli, 0, sizeof(*cli));	/* a bool without a default stays */
	sp_opt_set_defaults(up_table, cli);
	up_args(cli);
}

void sp_cli_up_defaults(struct sp_up_args *a)
{
	struct up_cli cli;

	up_defaults(&cli);
	*a = cli.a;
}

int cmd_up(int argc, char **argv)
{
	struct up_cli cli;
	char err[SP_BRINGUP_ERRLEN];
	int next, ret;

	up_defaults(&cli);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		up_usage(stdout);
		return SP_EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		up_usage(stderr);
		return SP_EXIT_USAGE;
	}
	ret = sp_opt_parse_argv(up_table, &cli, argc, argv, 2, &next, err,
				sizeof(err));
	if (ret || next != argc) {
		if (ret)
			sp_err("up: %s", err);
		else
			sp_err("up: unexpected argument '%s'", argv[next]);
		return SP_EXIT_USAGE;
	}
	up_args(&cli);
	return sp_do_up(argv[1], &cli.a, sp_cli_args_only);
}

int cmd_down(int argc, char **argv)
{
	if (argc > 1) {
		if (strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
			sp_err("down: takes no arguments ('%s')", argv[1]);
			return SP_EXIT_USAGE;
		}
		printf("usage: slowpath down\nRemoves everything 'slowpath up' "
		       "made, also after a crash; safe to repeat.\n");
		return SP_EXIT_OK;
	}
	return sp_do_down();
}

int cmd_status(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: slowpath status\nThe topology that is up, in "
		       "the shape of multipath -ll.\n");
		return strcmp(argv[1], "--help") ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	return sp_do_status();
}

int cmd_delay(int argc, char **argv)
{
	int64_t rd, wr = -1;

	if (argc < 4 || argc > 5 || strcmp(argv[1], "set")) {
		int help = argc >= 2 && !strcmp(argv[1], "--help");

		fprintf(help ? stdout : stderr,
			"usage: slowpath delay set PATH DELAY [WRITE_DELAY]\n"
			"PATH is a path's number, label or disk (sdb); DELAY "
			"is the path's whole delay\n(e.g. 5ms), split between "
			"store and wire as its mechanism says.\n");
		return help ? SP_EXIT_OK : SP_EXIT_USAGE;
	}
	if (sp_parse_duration_ns(argv[3], &rd) ||
	    (argc == 5 && sp_parse_duration_ns(argv[4], &wr))) {
		sp_err("delay: '%s' is not a duration (e.g. 500us, 5ms)",
		       argc == 5 && sp_parse_duration_ns(argv[4], &wr) ? argv[4]
								     : argv[3]);
		return SP_EXIT_USAGE;
	}
	if (rd > SP_DELAY_MAX_NS || wr > SP_DELAY_MAX_NS) {
		sp_err("delay: '%s' must be at most 60s, the most one command "
		       "may be held", rd > SP_DELAY_MAX_NS ? argv[3] : argv[4]);
		return SP_EXIT_USAGE;
	}
	return sp_do_delay_set(argv[2], rd, wr);
}
