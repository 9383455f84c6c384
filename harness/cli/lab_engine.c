/* The lab's two engines as `slowpath lab` sees them: which one a command
 * takes (uml where make lab built it and its unprivileged guest can read
 * what it needs, else qemu), where each one's prepared tree is, how a
 * guest is started, and the uml engine's --keep, copied back after the
 * guest (lab_keep.h). lab_cmd.c runs a guest with these. */
#include "common/exitcodes.h"
#include "common/log.h"
#include "harness/cli/lab_cli.h"
#include "lab/lab_keep.h"
#include "lab/lab_layout.h"
#include "lab/lab_proc.h"
#include "lab/lab_sandbox.h"
#include "lab/lab_uml.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* current-uml or current-uml-<series> in the lab folder; -EINVAL for a
 * series that is none */
static int uml_link(const struct lab_paths *lp, const char *series,
		    char *cur, size_t len)
{
	char link[64];
	int ret = sp_lab_uml_link(series, link, sizeof(link));

	return ret ? ret : sp_lab_file(cur, len, lp->lab, link);
}

int lab_find_uml(struct lab_paths *lp, const char *series)
{
	char cur[PATH_MAX + 48] = "";
	const char *need[] = { lp->kernel, lp->uml_init, lp->guest_init, cur };
	size_t i;

	uml_link(lp, series, cur, sizeof(cur));
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

void lab_dir_path(char *lab, size_t len)
{
	(void)sp_lab_dir(lab, len);
}

/* The uml guest reads the host as nobody: its prepared tree and the
 * working directory must be readable so (a checkout under /root is
 * not). 1 or 0, said when say. */
int lab_uml_can_read(const char *lab_dir, int say)
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

int lab_pick_engine(const char *name, const char *series,
		    enum sp_lab_engine *out)
{
	struct lab_paths lp;
	char cur[PATH_MAX + 48];

	if (!name || !*name)
		name = getenv("SLOWPATH_LAB_ENGINE");
	if (name && *name) {
		if (!sp_lab_engine_parse(name, out))
			return 0;
		sp_err("lab: engine '%s' is neither uml nor qemu", name);
		return -EINVAL;
	}
	lab_dir_path(lp.lab, sizeof(lp.lab));
	*out = uml_link(&lp, series, cur, sizeof(cur)) || access(cur, F_OK) || !lab_uml_can_read(cur, 0) ? SP_LAB_ENGINE_QEMU
							  : SP_LAB_ENGINE_UML;
	return 0;
}

int lab_pick_time(const char *name, enum sp_lab_engine engine,
		  enum sp_lab_time *out)
{
	if (!name || !*name) {
		*out = engine == SP_LAB_ENGINE_UML ? SP_LAB_TIME_EXACT
						   : SP_LAB_TIME_REAL;
		return 0;
	}
	if (sp_lab_time_parse(name, out)) {
		sp_err("lab: --time '%s' is neither exact nor real", name);
		return -EINVAL;
	}
	if (*out == SP_LAB_TIME_EXACT && engine != SP_LAB_ENGINE_UML) {
		sp_err("lab: --time exact needs the uml engine (qemu runs on the host's clock)");
		return -EINVAL;
	}
	return 0;
}

/* The uml guest mounts its RAM folder on --keep's path, which it looks
 * up as the host's unprivileged user: the folder it is in must be
 * readable by others. 1 or 0, said. */
int lab_keep_reachable(const char *keep)
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

/* After a uml guest: what it left under XCHG/keep into --keep's folder.
 * A file not copied is a result lost: exit 3. */
int lab_copy_kept(const char *xchg, const char *keep, int code)
{
	struct sp_lab_keep_count n;
	char src[PATH_MAX + 48];
	int ret;

	snprintf(src, sizeof(src), "%s/keep", xchg);
	ret = sp_lab_keep_copy(src, keep, &n);
	if (ret) {
		sp_err("lab: cannot read what the guest kept (%s): %s", src,
		       strerror(-ret));
		return SP_EXIT_RUNTIME;
	}
	sp_debug("lab: %u files copied back into %s", n.copied, keep);
	if (n.failed || n.skipped) {
		sp_err("lab: %u of the guest's files could not be copied back into %s "
		       "and %u were not files; they are lost with the guest",
		       n.failed, keep, n.skipped);
		return SP_EXIT_RUNTIME;
	}
	return code;
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

int lab_spawn_guest(const struct sp_lab_vm *vm, int out_w, int err_w,
		       struct sp_lab_sandbox *sb, pid_t *pid)
{
	struct sp_strv argv = { 0 };
	int ret;

	if (vm->engine == SP_LAB_ENGINE_UML) {
		ret = sp_lab_sandbox_init(sb, vm->xchg_dir, "/dev/shm", vm->mem_bytes);
		if (ret) {
			sp_err("lab: this host has no user 'nobody' to run the uml guest as");
			return ret;
		}
		/* what the job writes under --keep lands here until the
		 * copy after the guest's end (lab_keep.h) */
		ret = keep_folder(vm->xchg_dir);
		ret = ret ? ret : give_xchg(vm->xchg_dir, sb);
		ret = ret ? ret : sp_lab_uml_argv(vm, &argv);
		ret = ret ? ret : sp_lab_start_uml(&argv, out_w, err_w, vm->mode,
						   vm->console_log, sb, pid);
	} else {
		ret = sp_lab_qemu_argv(vm, &argv);
		ret = ret ? ret : sp_lab_start_qemu(&argv, out_w, err_w, vm->mode, pid);
	}
	sp_strv_free(&argv);
	return ret;
}

/* lab engine [--kernel SERIES]: which engine lab run would use here, for
 * scripts (make demo): one decision, this one. */
int lab_print_engine(int argc, char **argv)
{
	const char *series = NULL;
	enum sp_lab_engine e;

	if (argc == 4 && !strcmp(argv[2], "--kernel") && sp_lab_series_ok(argv[3]))
		series = argv[3];
	else if (argc != 2) {
		sp_err("lab engine: usage: slowpath lab engine [--kernel SERIES]");
		return SP_EXIT_USAGE;
	}
	if (lab_pick_engine(NULL, series, &e))
		return SP_EXIT_USAGE;
	printf("%s\n", sp_lab_engine_name(e));
	return SP_EXIT_OK;
}

