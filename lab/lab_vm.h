/* The pure half of `slowpath lab`: what to tell qemu, and the two small
 * files the guest reads from the exchange share (config, job.sh). No
 * process is started and nothing is written here, so all of it is unit
 * tested; lab_cmd.c does the effects. */
#ifndef SP_LAB_VM_H
#define SP_LAB_VM_H

#include <stddef.h>
#include <stdint.h>

/* Mount tags the initrd (lab/initrd-init.sh) looks for. */
#define SP_LAB_TAG_ROOT "hostroot"
#define SP_LAB_TAG_XCHG "labxchg"
/* A host folder the guest writes through to (lab run --keep). */
#define SP_LAB_TAG_KEEP "labkeep"
/* virtio-serial port names the guest (lab/guest-init.sh) writes the
 * command's stdout and stderr to. */
#define SP_LAB_PORT_OUT "sp.out"
#define SP_LAB_PORT_ERR "sp.err"

/* The qemu guest's CPU: all TCG has, less what it emulates slowly
 * (lab_vm.c, push_machine). */
#define SP_LAB_QEMU_CPU "max,erms=off,fsrm=off,la57=off"

#define SP_LAB_GUEST_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* SP_LAB_AGENT: `lab start`, a VM that stays up serving the control
 * socket (lab_ctl.h): a run whose one job is `slowpath lab agent`, its
 * own stdout and stderr going to out_fd and err_fd. */
enum sp_lab_mode { SP_LAB_RUN, SP_LAB_SHELL, SP_LAB_AGENT };

/* What runs the guest: qemu under TCG booting Debian's kernel, or a
 * User-Mode Linux built from Debian's source (lab/uml-build.sh), one
 * host process that can run on simulated time. */
enum sp_lab_engine { SP_LAB_ENGINE_QEMU, SP_LAB_ENGINE_UML };
/* Whose clock the guest reads: the host's (real), or UML's simulated
 * one, in which a delay is exact and the guest's own CPU work takes no
 * time at all (time-travel=inf-cpu). */
enum sp_lab_time { SP_LAB_TIME_REAL, SP_LAB_TIME_EXACT };

struct sp_lab_vm {
	enum sp_lab_mode mode;
	/* Which prepared lab boots: a kernel series such as "6.12" (make lab
	 * KERNEL=6.12 prepared $BUILD/lab/current-6.12), or NULL for the
	 * default one ($BUILD/lab/current). See lab_layout.h. */
	const char *kernel_series;
	const char *qemu;		/* program to exec */
	const char *kernel;
	const char *initrd;
	const char *xchg_dir;		/* host side of the writable share */
	/* NULL, or a host folder the guest sees writable at the same path:
	 * what a guest job writes elsewhere dies with its tmpfs. */
	const char *keep_dir;
	const char *console_log;	/* SP_LAB_RUN: kernel console file */
	int64_t cpus;
	uint64_t mem_bytes;
	/* SP_LAB_RUN: host fds (as the qemu child sees them) that receive
	 * the guest command's stdout and stderr. */
	int out_fd, err_fd;
	/* SP_LAB_AGENT: the host's end of the control port, a socket qemu
	 * listens on. */
	const char *ctl_socket;
	enum sp_lab_engine engine;
	enum sp_lab_time time;
	/* uml: the prepared tree (its linux is vm->kernel) and the init it
	 * boots, lab/uml-init.sh as prepared */
	const char *lab_dir;
	const char *uml_init;
	/* uml SP_LAB_AGENT: the host fd of the control line, the
	 * supervisor's end of it (lab_umlsup.c) */
	int ctl_fd;
};

/* A NULL-terminated, growable argv. */
struct sp_strv {
	char **v;
	size_t n, cap;
};

int sp_strv_push(struct sp_strv *sv, const char *s);
int sp_strv_pushf(struct sp_strv *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sp_strv_free(struct sp_strv *sv);

/* qemu's option syntax splits on ','; a literal comma is written ",,".
 * Returns a malloc'd string or NULL. */
char *sp_lab_qemu_escape(const char *value);

/* A kernel series: digits '.' digits, as make lab KERNEL= takes it. */
int sp_lab_series_ok(const char *series);

/* "6.12.95+deb12-amd64" -> is it of series "6.12"? (1 or 0) */
int sp_lab_release_in_series(const char *release, const char *series);

/* Always TCG, no NIC, no display. 0 or -EINVAL (bad vm), -ENOMEM. */
int sp_lab_qemu_argv(const struct sp_lab_vm *vm, struct sp_strv *out);

/* Appends s to buf as one POSIX shell word in single quotes. */
int sp_lab_shell_quote(const char *s, char **buf, size_t *len);

/* Does environment entry "NAME=VALUE" go to the guest? SLOWPATH_*,
 * a fixed set (see lab_vm.c), and the names listed in extra (separated
 * by spaces or commas, e.g. $SLOWPATH_LAB_ENV); names that are not
 * shell identifiers never do. */
int sp_lab_env_passes(const char *entry, const char *extra);
/* SLOWPATH_LAB_ENV's list: 0, or -EINVAL with the first name that is
 * not a variable's (an identifier of at most 128 bytes) or is one the
 * guest sets or every program obeys (PATH, HOME, LD_*, BASH_ENV...),
 * copied into bad. */
int sp_lab_env_list_check(const char *list, char *bad, size_t len);

/* job.sh: exports the passed environment plus PATH, HOME and
 * SLOWPATH_IN_LAB=1, changes to cwd, and (SP_LAB_RUN, SP_LAB_AGENT)
 * execs argv.
 * For SP_LAB_SHELL it is the shell's rcfile and argv is ignored.
 * *out is malloc'd. 0, -EINVAL (no command to run), -ENOMEM. */
int sp_lab_job_script(enum sp_lab_mode mode, const char *cwd,
		      char *const argv[], char *const envp[],
		      const char *extra, char **out);

/* config: shell assignments the initrd and guest init source; engine
 * and time tell the guest which machine it is (SLOWPATH_LAB_ENGINE and
 * SLOWPATH_LAB_TIME in the job's environment). */
int sp_lab_config(enum sp_lab_mode mode, const char *lab_root,
		  const char *guest_init, const char *cwd, const char *term,
		  const char *keep_dir, enum sp_lab_engine engine,
		  enum sp_lab_time time, char **out);

/* "qemu"/"uml", "real"/"exact", and back: 0 or -EINVAL. */
const char *sp_lab_engine_name(enum sp_lab_engine e);
const char *sp_lab_time_name(enum sp_lab_time t);
int sp_lab_engine_parse(const char *s, enum sp_lab_engine *out);
int sp_lab_time_parse(const char *s, enum sp_lab_time *out);

/* The guest's status file: one integer 0..255 and optional whitespace. */
int sp_lab_parse_status(const char *text, int *code);

#endif
