CLI_SRCS += lab/lab_cmd.c
