#include "common/log.h"

#include <stdio.h>

static sp_log_fn log_hook = sp_log_stderr;
static void *log_hook_ctx;
static enum sp_log_level log_max_level = SP_LOG_INFO;

void sp_log_set_hook(sp_log_fn fn, void *ctx)
{
	log_hook = fn;
	log_hook_ctx = ctx;
}

void sp_log_set_level(enum sp_log_level max_level)
{
	log_max_level = max_level;
}

void sp_vlog(enum sp_log_level level, const char *fmt, va_list ap)
{
	char msg[1024];

	if (level > log_max_level || !log_hook)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_hook(level, msg, log_hook_ctx);
}

void sp_log(enum sp_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_vlog(level, fmt, ap);
	va_end(ap);
}

void sp_log_stderr(enum sp_log_level level, const char *msg, void *ctx)
{
	static const char *const prefix[] = {
		[SP_LOG_ERR] = "", [SP_LOG_WARN] = "warning: ",
		[SP_LOG_INFO] = "", [SP_LOG_DEBUG] = "debug: ",
	};

	(void)ctx;
	fprintf(stderr, "slowpath: %s%s\n", prefix[level], msg);
}
