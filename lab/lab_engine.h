/* The lab's two engines behind one interface: qemu under TCG booting
 * Debian's kernel (lab_engine_qemu.c), and User-Mode Linux, one host
 * process on simulated time (lab_engine_uml.c). What differs between
 * them is an op here; which engine a command takes, and whether this
 * host can run it, is decided once over these ops (lab_engine.c), so
 * that tests can hand in mock engines. */
#ifndef SP_LAB_ENGINE_H
#define SP_LAB_ENGINE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lab/lab_vm.h"

#define SP_LAB_QEMU "qemu-system-x86_64"

/* Paths of one prepared lab, all absolute. */
struct sp_lab_paths {
	char lab[PATH_MAX + 8];	/* $BUILD/lab */
	char dir[PATH_MAX];	/* the preparation that boots */
	char kernel[PATH_MAX + 16];
	char initrd[PATH_MAX + 16];
	char root[PATH_MAX + 16];
	char guest_init[PATH_MAX + 16];
	char uml_init[PATH_MAX + 16];	/* uml: its init; kernel is its linux */
	char qemu[PATH_MAX];
	enum sp_lab_engine engine;
};

struct sp_lab_sandbox;

struct sp_lab_engine_ops {
	enum sp_lab_engine engine;
	int64_t default_cpus;	/* for --cpus 0 */
	int64_t max_cpus;	/* 0: no bound of the engine's own */
	/* 1 when make lab prepared it for series (NULL: the default) in
	 * the lab folder lab and this host may use it unasked: then a
	 * command that names no engine takes it */
	int (*prepared)(const char *lab, const char *series);
	/* lp->lab set: the preparation of series into lp. 0, or -ENOENT
	 * after a line saying what is missing */
	int (*find_tree)(struct sp_lab_paths *lp, const char *series);
	/* After find_tree: can this host run it (program, root, a tree
	 * its guest can read)? 0, or an sp_exit code after a line */
	int (*host_check)(struct sp_lab_paths *lp);
	/* The guest's command line (pure): 0, -EINVAL (a bad vm), -ENOMEM */
	int (*argv)(const struct sp_lab_vm *vm, struct sp_strv *out);
	/* 1 when the guest can reach --keep's folder keep; 0, said */
	int (*keep_ok)(const char *keep);
	/* The guest of vm, out_w and err_w its job's streams; sb is
	 * filled where the engine confines it. 0 or -errno */
	int (*spawn)(const struct sp_lab_vm *vm, int out_w, int err_w,
		     struct sp_lab_sandbox *sb, pid_t *pid);
	/* After the guest ended with code: what it left (--keep) brought
	 * back. code, or SP_EXIT_RUNTIME when a file was lost */
	int (*after)(const struct sp_lab_vm *vm, int code);
};

extern const struct sp_lab_engine_ops sp_lab_qemu_ops;
extern const struct sp_lab_engine_ops sp_lab_uml_ops;

/* The engines a lab command chooses from. */
struct sp_lab_engines {
	const struct sp_lab_engine_ops *qemu;
	const struct sp_lab_engine_ops *uml;
};
extern const struct sp_lab_engines sp_lab_engines;

const struct sp_lab_engine_ops *sp_lab_engine_ops(const struct sp_lab_engines *e,
						  enum sp_lab_engine which);

/* The engine a lab command uses: name (--engine), else
 * $SLOWPATH_LAB_ENGINE, else uml where it is prepared for series, else
 * qemu. 0, or -EINVAL for a name that is neither, said. */
int sp_lab_pick_engine(const struct sp_lab_engines *e, const char *name,
		       const char *series, enum sp_lab_engine *out);
/* Its clock: name (--time), else exact on uml, real on qemu. 0, or
 * -EINVAL (a bad name, or exact time on qemu), said. */
int sp_lab_pick_time(const char *name, enum sp_lab_engine engine,
		     enum sp_lab_time *out);

/* The lab folder (lab_layout.h) and in it vm->engine's preparation of
 * vm->kernel_series. 0, -ENOENT, or -EINVAL for a series that is none;
 * said. */
int sp_lab_find(const struct sp_lab_engines *e, struct sp_lab_paths *lp,
		const struct sp_lab_vm *vm);

/* What a lab run or shell was asked for. */
struct sp_lab_ask {
	const char *kernel;	/* series, or NULL */
	const char *engine;	/* --engine, or NULL */
	const char *time;	/* --time, or NULL */
	int64_t cpus;		/* 0: the engine's default */
};

/* Which engine, clock and prepared lab; whether this host can run it:
 * vm and lp filled. 0, or an sp_exit code, said. */
int sp_lab_setup(const struct sp_lab_engines *e, const struct sp_lab_ask *ask,
		 struct sp_lab_vm *vm, struct sp_lab_paths *lp);

/* name searched in $PATH into out: 0 or -ENOENT. */
int sp_lab_find_program(const char *name, char *out, size_t len);

#endif
