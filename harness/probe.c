/* Placeholder until the libiscsi probe lands. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "harness/commands.h"
int cmd_probe(int argc, char **argv) { (void)argc; (void)argv; sp_err("probe: not built yet"); return SP_EXIT_ENV; }
