/* The uml engine (lab_engine.h): a User-Mode Linux of lab/uml-build.sh,
 * one host process as nobody in a mount namespace of its own
 * (lab_sandbox.h), on the simulated clock by default; what its job
 * writes under --keep is copied back after it (lab_keep.h). */
#include "lab/lab_engine.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "lab/lab_keep.h"
#include "lab/lab_layout.h"
#include "lab/lab_proc.h"
#include "lab/lab_sandbox.h"
#include "lab/lab_uml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* current-uml or current-uml-<series> in the lab folder lab */
static int uml_link(const char *lab, const char *series, char *cur, size_t len)
{
	char link[64];
	int ret = sp_lab_uml_link(series, link, sizeof(link));

	return ret ? ret : sp_lab_file(cur, len, lab, link);
}

/* The uml guest reads the host as nobody: its prepared tree and the
 * working directory must be readable so (a checkout under /root is
 * not). 1 or 0, said when say. */
static int uml_can_read(const char *lab_dir, int say)
{
	char real[PATH_MAX], cwd[PATH_MAX], bad[PATH_MAX];

	if (!realpath(lab_dir, real) || !getcwd(cwd, sizeof(cwd)))
		return 0;
	if (sp_lab_path_public(real, bad, sizeof(bad)) &&
	    sp_lab_path_public(cwd, bad, sizeof(bad)))
		return 1;
	if (say)
		sp_err("lab: the uml guest reads this host as an unprivileged "
		       "user, and %s is not readable by others (use --engine qemu, "
		       "or work from a folder others can read)", bad);
	return 0;
}

static int uml_prepared(const char *lab, const char *series)
{
	char cur[PATH_MAX + 48];

	return !uml_link(lab, series, cur, sizeof(cur)) && !access(cur, F_OK) &&
	       uml_can_read(cur, 0);
}

static int uml_find_tree(struct sp_lab_paths *lp, const char *series)
{
	char cur[PATH_MAX + 48] = "";
	const char *need[] = { lp->kernel, lp->uml_init, lp->guest_init, cur };
	size_t i;

	uml_link(lp->lab, series, cur, sizeof(cur));
	if (!realpath(cur, lp->dir)) {
		sp_err("lab: no uml kernel at %s; run make lab ENGINE=uml%s%s", cur,
		       series ? " KERNEL=" : "", series ? series : "");
		return -ENOENT;
	}
	sp_lab_file(lp->kernel, sizeof(lp->kernel), lp->dir, SP_LAB_UML_KERNEL);
	sp_lab_file(lp->uml_init, sizeof(lp->uml_init), lp->dir, SP_LAB_UML_INIT);
	sp_lab_file(lp->guest_init, sizeof(lp->guest_init), lp->dir, SP_LAB_GUEST_INIT);
	snprintf(lp->root, sizeof(lp->root), "%s", lp->dir);
	lp->initrd[0] = '\0';
	sp_lab_file(cur, sizeof(cur), lp->dir, SP_LAB_READY);
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (access(need[i], R_OK)) {
			sp_err("lab: %s is missing; run make lab ENGINE=uml", need[i]);
			return -ENOENT;
		}
	}
	return 0;
}

static int uml_host_check(struct sp_lab_paths *lp)
{
	if (!uml_can_read(lp->dir, 1))
		return SP_EXIT_ENV;
	if (geteuid() != 0) {
		sp_err("lab: needs root: the uml guest is confined in a mount "
		       "namespace of its own");
		return SP_EXIT_ENV;
	}
	return 0;
}

/* The uml guest mounts its RAM folder on --keep's path, which it looks
 * up as the host's unprivileged user: the folder it is in must be
 * readable by others. 1 or 0, said. */
static int uml_keep_ok(const char *keep)
{
	char parent[PATH_MAX], bad[PATH_MAX];

	snprintf(parent, sizeof(parent), "%s", keep);
	if (strrchr(parent, '/') && strrchr(parent, '/') != parent)
		*strrchr(parent, '/') = '\0';
	if (sp_lab_path_public(parent, bad, sizeof(bad)))
		return 1;
	sp_err("lab: --keep %s: the uml guest cannot reach it, %s is not "
	       "readable by others (or --engine qemu)", keep, bad);
	return 0;
}

static int keep_folder(const char *xchg)
{
	char path[PATH_MAX + 48];

	snprintf(path, sizeof(path), "%s/keep", xchg);
	return mkdir(path, 0700) ? -errno : 0;
}

/* The uml guest runs as nobody: its exchange folder and the files we
 * left in it become that user's, the only host files it may write. */
static int give_xchg(const char *xchg, const struct sp_lab_sandbox *sb)
{
	const char *const names[] = { "", "/job.sh", "/config", "/keep" };
	char path[PATH_MAX + 48];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", xchg, names[i]);
		if (lchown(path, sb->uid, sb->gid))
			return -errno;
	}
	return 0;
}

static int uml_spawn(const struct sp_lab_vm *vm, int out_w, int err_w,
		     struct sp_lab_sandbox *sb, pid_t *pid)
{
	struct sp_strv argv = { 0 };
	int ret;

	ret = sp_lab_sandbox_init(sb, vm->xchg_dir, "/dev/shm", vm->mem_bytes);
	if (ret) {
		sp_err("lab: this host has no user 'nobody' to run the uml guest as");
		return ret;
	}
	/* what the job writes under --keep lands here until the copy after
	 * the guest's end (lab_keep.h) */
	ret = keep_folder(vm->xchg_dir);
	ret = ret ? ret : give_xchg(vm->xchg_dir, sb);
	ret = ret ? ret : sp_lab_uml_ops.argv(vm, &argv);
	ret = ret ? ret : sp_lab_start_uml(&argv, out_w, err_w, vm->ctl_fd, vm->mode,
					   vm->console_log, sb, pid);
	sp_strv_free(&argv);
	return ret;
}

/* After a uml guest: what it left under XCHG/keep into --keep's folder.
 * A file not copied is a result lost: exit 3. */
static int uml_after(const struct sp_lab_vm *vm, int code)
{
	struct sp_lab_keep_count n;
	char src[PATH_MAX + 48];
	int ret;

	if (!vm->keep_dir)
		return code;
	snprintf(src, sizeof(src), "%s/keep", vm->xchg_dir);
	ret = sp_lab_keep_copy(src, vm->keep_dir, &n);
	if (ret) {
		sp_err("lab: cannot read what the guest kept (%s): %s", src,
		       strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	sp_debug("lab: %u files copied back into %s", n.copied, vm->keep_dir);
	if (n.failed || n.skipped) {
		sp_err("lab: %u of the guest's files could not be copied back into %s "
		       "and %u were not files; they are lost with the guest",
		       n.failed, vm->keep_dir, n.skipped);
		return SP_EXIT_RUNTIME;
	}
	return code;
}

const struct sp_lab_engine_ops sp_lab_uml_ops = {
	.engine = SP_LAB_ENGINE_UML,
	.default_cpus = 1,
	.max_cpus = 1,
	.prepared = uml_prepared,
	.find_tree = uml_find_tree,
	.host_check = uml_host_check,
	.argv = sp_lab_uml_argv,
	.keep_ok = uml_keep_ok,
	.spawn = uml_spawn,
	.after = uml_after,
};
