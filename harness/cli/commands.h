/* Every `slowpath SUBCOMMAND` is one function of this shape. Its
 * argv[0] is the subcommand's name; it returns an sp_exit code. */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

struct sp_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

extern const struct sp_command sp_commands[];

int cmd_probe(int argc, char **argv);
int cmd_lab(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_reference(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_netem(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_selector(int argc, char **argv);
int cmd_delay(int argc, char **argv);
int cmd_fault(int argc, char **argv);

/* Set while a command runs only to check its arguments (no lab, no
 * kernel stack: bad input must still be exit 1, not "start a lab"):
 * the commands the lab's forwarding table marks args_checked
 * (lab/lab_forward.c) return SP_EXIT_OK right after parsing when it is
 * set. */
extern int sp_cli_args_only;

/* 1 when `slowpath doctor --native` would say yes. */
int sp_cli_native_ok(void);
/* --jobs when not given: 0 in the lab or on a host with the kernel
 * stack, else the number of cores (sp_boots_default_jobs), said for
 * who. */
int sp_cli_default_jobs(const char *who);
/* The lab forwarding's boots_own (lab/lab_life.h): run --topology
 * (not --kernels) and reproduce hst-vs-st-2020 / hst-cover-2020 (not
 * --report-only) boot their own guests when --jobs is not given. */
int sp_cli_boots_own(int argc, char **argv);

#endif
