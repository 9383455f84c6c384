/* What library code logged, kept for the test to read instead of
 * reaching the terminal: the last message and how many came. */
#ifndef SP_TEST_LOG_CAPTURE_H
#define SP_TEST_LOG_CAPTURE_H

#include <stdio.h>

#include "common/log.h"

static char last_err[512];
static int n_err;
static enum sp_log_level capture_max_level = SP_LOG_WARN;

static void capture(enum sp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level > capture_max_level)
		return;
	n_err++;
	snprintf(last_err, sizeof(last_err), "%s", msg);
}

/* Messages up to max_level (SP_LOG_ERR: errors only) are counted. */
static inline void capture_start(enum sp_log_level max_level)
{
	capture_max_level = max_level;
	n_err = 0;
	last_err[0] = '\0';
	sp_log_set_hook(capture, NULL);
}

#endif
