/* What `slowpath doctor` checks and how it decides between running the
 * kernel stack natively and running it in the lab VM. Every effect
 * (reading a file, access(), who we are, which kernel) goes through
 * sp_doctor_ops so the decisions can be tested on fixture text. */
#ifndef SP_DOCTOR_CHECK_H
#define SP_DOCTOR_CHECK_H

#include <stddef.h>

struct sp_doctor_ops {
	/* Whole file as a malloc'd NUL-terminated string; 0 or -errno. */
	int (*read_file)(void *ctx, const char *path, char **text);
	/* access(2): 0 or -errno. */
	int (*access)(void *ctx, const char *path, int mode);
	int (*is_root)(void *ctx);
	/* uname -r into buf; 0 or -errno. */
	int (*kernel_release)(void *ctx, char *buf, size_t len);
	void *ctx;
};

enum sp_doc_kind {
	SP_DOC_ROOT,
	SP_DOC_KMOD,		/* a kernel module (or built-in driver) */
	SP_DOC_FILE,		/* a path that must exist: /dev/mapper/control */
	SP_DOC_PROGRAM,		/* looked up along PATH and the sbin dirs */
	SP_DOC_BACKEND,		/* our tgt backing store, installed or built */
	SP_DOC_BUILT,		/* a path under build_dir */
	SP_DOC_DM,		/* dm_mod, and its control node once loaded */
};

enum sp_doc_state {
	SP_DOC_MISSING,
	SP_DOC_LOADED,
	SP_DOC_BUILTIN,
	SP_DOC_LOADABLE,
	SP_DOC_PRESENT,
};

/* Which verdict an item takes part in. KERNEL items decide whether the
 * stack can run here at all; the others must be there in the mode that
 * is chosen. */
#define SP_NEED_KERNEL	0x1	/* native needs it (root, kernel pieces) */
#define SP_NEED_BOTH	0x2	/* native and lab need it (programs, tgt module) */
#define SP_NEED_LAB	0x4	/* only the lab needs it (qemu) */
/* need 0: listed for the reader, never decides anything (the prepared
 * lab VM: `make lab` builds it on demand). */

struct sp_doc_item {
	const char *label;
	enum sp_doc_kind kind;
	const char *what;	/* module name, path or program name */
	unsigned need;
	enum sp_doc_state state;
	char where[256];	/* the path found, for files/programs/backend */
};

#define SP_DOCTOR_MAX_ITEMS 32

enum sp_doc_mode { SP_MODE_NATIVE, SP_MODE_LAB };

struct sp_doctor_report {
	struct sp_doc_item items[SP_DOCTOR_MAX_ITEMS];
	size_t n_items;
	char release[128];
	enum sp_doc_mode mode;
	int ready;		/* everything the chosen mode needs is there */
};

struct sp_doctor_env {
	const char *path_env;	/* $PATH, may be NULL */
	const char *build_dir;	/* our build/ (for the built tgt module), may be NULL */
};

/* Fills the report with every item and the verdict. 0 or -errno (only
 * for an impossible table; missing things are not errors). */
int sp_doctor_run(const struct sp_doctor_ops *ops,
		  const struct sp_doctor_env *env,
		  struct sp_doctor_report *report);

/* The pieces, exposed for tests. Module names compare with '-' and '_'
 * as equal, as modprobe does. */
int sp_kmod_in_proc_modules(const char *proc_modules, const char *mod);
/* modules.builtin ("kernel/drivers/scsi/sd_mod.ko") and modules.dep
 * ("kernel/drivers/md/dm-multipath.ko.xz: ..."): both name one module
 * path at the start of each line. */
int sp_kmod_in_path_list(const char *list, const char *mod);
/* Name of the module a path names: ".../dm-round-robin.ko.zst" ->
 * "dm_round_robin". */
void sp_kmod_name_from_path(const char *path, size_t path_len, char *name,
			    size_t len);
/* 0 and the full path in out, or -ENOENT. */
int sp_doctor_which(const struct sp_doctor_ops *ops, const char *path_env,
		    const char *prog, char *out, size_t len);

const char *sp_doc_state_name(enum sp_doc_state state);
/* One line of the listing (no newline): label, state, detail. */
size_t sp_doctor_format_item(const struct sp_doc_item *item, char *buf,
			     size_t len);
/* The verdict line (no newline), naming what is missing. */
size_t sp_doctor_format_verdict(const struct sp_doctor_report *report,
				char *buf, size_t len);

#endif
