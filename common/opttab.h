/* One table per option set drives parsing, defaults and help, in the
 * manner of fio's struct fio_option: a CLI's --flags and the tgt store's
 * bsopts share this parser so their grammar and messages agree. */
#ifndef SP_OPTTAB_H
#define SP_OPTTAB_H

#include <stddef.h>
#include <stdint.h>

enum sp_opt_type {
	SP_OPT_STR,		/* char * pointing into the parsed text */
	SP_OPT_INT,		/* int64_t within [min, max] */
	SP_OPT_DOUBLE,		/* double within [min, max] */
	SP_OPT_DURATION,	/* int64_t ns, see sp_parse_duration_ns */
	SP_OPT_DELAY,		/* a duration within [0, SP_DELAY_MAX_NS] */
	SP_OPT_SIZE,		/* uint64_t bytes */
	SP_OPT_BOOL,		/* int; a flag with no value sets it to 1 */
	SP_OPT_ENUM,		/* int index into choices */
};

struct sp_opt {
	const char *name;
	enum sp_opt_type type;
	size_t offset;
	const char *def;	/* text parsed as a default; NULL leaves zero */
	const char *help;
	const char *const *choices;	/* SP_OPT_ENUM, NULL-terminated */
	double min, max;		/* SP_OPT_INT, SP_OPT_DOUBLE; both 0: no bound */
	/* A second option writing the same field, e.g. delay= sets both
	 * read_delay and write_delay: offset of the extra field, or 0. */
	size_t also_offset;
};

#define SP_OPT_END { .name = NULL }

/* Message buffer size that fits every error this module composes. */
#define SP_OPT_ERRLEN 256

int sp_opt_set_defaults(const struct sp_opt *table, void *dst);

/* value may be NULL only for SP_OPT_BOOL. -ENOENT unknown name,
 * -EINVAL/-ERANGE bad value; err names the option and the value. */
int sp_opt_set(const struct sp_opt *table, void *dst, const char *name,
	       const char *value, char *err, size_t errlen);

/* "a=1;b=2" with the given separator, modifying text in place (string
 * options point into it). Stops at the first bad pair. */
int sp_opt_parse_kv(const struct sp_opt *table, void *dst, char *text,
		    char separator, char *err, size_t errlen);

/* --name value, --name=value and bare --flag, starting at argv[first];
 * stops at "--" or at the first positional argument and returns its
 * index through *next. */
int sp_opt_parse_argv(const struct sp_opt *table, void *dst, int argc,
		      char **argv, int first, int *next, char *err,
		      size_t errlen);

/* One line per option: name, default, help. Returns bytes written.
 * sp_opt_help writes names as a key=value list takes them ("delay=VALUE"),
 * sp_opt_help_argv as a command line does ("--delay VALUE"). */
size_t sp_opt_help(const struct sp_opt *table, char *buf, size_t len);
size_t sp_opt_help_argv(const struct sp_opt *table, char *buf, size_t len);

#endif
