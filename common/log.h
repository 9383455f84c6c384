/* The one way library code reports anything: CLIs route it to stderr,
 * the tgt module routes it to tgtd's syslog, tests capture it. */
#ifndef SP_LOG_H
#define SP_LOG_H

#include <stdarg.h>

enum sp_log_level { SP_LOG_ERR, SP_LOG_WARN, SP_LOG_INFO, SP_LOG_DEBUG };

typedef void (*sp_log_fn)(enum sp_log_level level, const char *msg, void *ctx);

void sp_log_set_hook(sp_log_fn fn, void *ctx);
void sp_log_set_level(enum sp_log_level max_level);
void sp_log(enum sp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sp_vlog(enum sp_log_level level, const char *fmt, va_list ap);

/* Hook for CLIs: "slowpath: msg" on stderr. */
void sp_log_stderr(enum sp_log_level level, const char *msg, void *ctx);

#define sp_err(...)   sp_log(SP_LOG_ERR, __VA_ARGS__)
#define sp_warn(...)  sp_log(SP_LOG_WARN, __VA_ARGS__)
#define sp_info(...)  sp_log(SP_LOG_INFO, __VA_ARGS__)
#define sp_debug(...) sp_log(SP_LOG_DEBUG, __VA_ARGS__)

#endif
