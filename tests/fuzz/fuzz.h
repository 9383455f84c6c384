/* What every fuzz target shares: the input as a NUL-terminated string
 * (the parsers take C strings), split into a first line and the rest
 * where a target needs two strings, and a log hook that formats every
 * message (so format bugs show) but prints nothing. */
#ifndef SP_FUZZ_H
#define SP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

static void fuzz_log_discard(enum sp_log_level level, const char *msg,
			     void *ctx)
{
	(void)level;
	(void)msg;
	(void)ctx;
}

/* Called once by libFuzzer before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sp_log_set_hook(fuzz_log_discard, NULL);
	sp_log_set_level(SP_LOG_DEBUG);
	return 0;
}

/* A malloc'd copy with a NUL after it; NUL bytes inside end the string
 * early, as they would for text read from a file. NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* Cuts text at its first newline: returns the rest (after the newline,
 * or "" when there is none); text keeps the first line. */
static inline char *fuzz_first_line(char *text)
{
	char *nl = strchr(text, '\n');

	if (!nl)
		return text + strlen(text);
	*nl = '\0';
	return nl + 1;
}

#endif
