/* Placeholder until the lab lands. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "harness/commands.h"
int cmd_lab(int argc, char **argv) { (void)argc; (void)argv; sp_err("lab: not built yet"); return SP_EXIT_ENV; }
int cmd_doctor(int argc, char **argv) { (void)argc; (void)argv; sp_err("doctor: not built yet"); return SP_EXIT_ENV; }
