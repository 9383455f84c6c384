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

#endif
