/* The qemu engine (lab_engine.h): Debian's kernel under TCG, the
 * host's root over 9p, a preparation of lab/prepare.sh. */
#include "lab/lab_engine.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "lab/lab_layout.h"
#include "lab/lab_proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int qemu_prepared(const char *lab, const char *series)
{
	(void)lab;
	(void)series;
	return 1;
}

/* A lab prepared before there were several series has only `current`:
 * it serves --kernel SERIES when its kernel is of that series. */
static int current_of_series(const struct sp_lab_paths *lp, const char *series,
			     char *cur, size_t len)
{
	char ready[PATH_MAX + 48], kver[128] = "";
	FILE *f;

	snprintf(ready, sizeof(ready), "%s/" SP_LAB_LINK_QEMU "/" SP_LAB_READY, lp->lab);
	f = fopen(ready, "re");
	if (!f)
		return -ENOENT;
	if (fscanf(f, "%127s", kver) != 1)
		kver[0] = '\0';
	fclose(f);
	if (!sp_lab_release_in_series(kver, series))
		return -ENOENT;
	return sp_lab_file(cur, len, lp->lab, SP_LAB_LINK_QEMU);
}

static int qemu_find_tree(struct sp_lab_paths *lp, const char *series)
{
	char cur[PATH_MAX + 48], link[32];
	const char *need[] = { lp->kernel, lp->initrd, lp->guest_init, lp->root };
	size_t i;

	if (sp_lab_current_link(series, link, sizeof(link)))
		return -EINVAL;
	sp_lab_file(cur, sizeof(cur), lp->lab, link);
	if (access(cur, F_OK) && series)
		current_of_series(lp, series, cur, sizeof(cur));
	if (!realpath(cur, lp->dir)) {
		sp_err("lab: no prepared lab at %s; run make lab%s%s", cur,
		       series ? " KERNEL=" : "", series ? series : "");
		return -ENOENT;
	}
	sp_lab_file(lp->kernel, sizeof(lp->kernel), lp->dir, SP_LAB_QEMU_KERNEL);
	sp_lab_file(lp->initrd, sizeof(lp->initrd), lp->dir, SP_LAB_QEMU_INITRD);
	sp_lab_file(lp->guest_init, sizeof(lp->guest_init), lp->dir, SP_LAB_GUEST_INIT);
	sp_lab_file(lp->root, sizeof(lp->root), lp->dir, SP_LAB_QEMU_ROOT);
	sp_lab_file(cur, sizeof(cur), lp->dir, SP_LAB_READY);
	if (access(cur, R_OK)) {
		sp_err("lab: %s is not fully prepared; run make lab", lp->dir);
		return -ENOENT;
	}
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (access(need[i], R_OK)) {
			sp_err("lab: %s is missing; run make lab", need[i]);
			return -ENOENT;
		}
	}
	return 0;
}

static int qemu_host_check(struct sp_lab_paths *lp)
{
	if (sp_lab_find_program(SP_LAB_QEMU, lp->qemu, sizeof(lp->qemu))) {
		sp_err("lab: %s is not installed (make deps installs qemu-system-x86)",
		       SP_LAB_QEMU);
		return SP_EXIT_ENV;
	}
	if (geteuid() != 0) {
		sp_err("lab: needs root: qemu shares / into the guest and must "
		       "read root-only files such as /etc/iscsi/initiatorname.iscsi");
		return SP_EXIT_ENV;
	}
	return 0;
}

static int qemu_keep_ok(const char *keep)
{
	(void)keep;
	return 1;	/* qemu, as root, shares it over 9p */
}

static int qemu_spawn(const struct sp_lab_vm *vm, int out_w, int err_w,
		      struct sp_lab_sandbox *sb, pid_t *pid)
{
	struct sp_strv argv = { 0 };
	int ret;

	(void)sb;
	ret = sp_lab_qemu_ops.argv(vm, &argv);
	ret = ret ? ret : sp_lab_start_qemu(&argv, out_w, err_w, vm->mode, pid);
	sp_strv_free(&argv);
	return ret;
}

static int qemu_after(const struct sp_lab_vm *vm, int code)
{
	(void)vm;
	return code;	/* --keep was written through, nothing to copy */
}

const struct sp_lab_engine_ops sp_lab_qemu_ops = {
	.engine = SP_LAB_ENGINE_QEMU,
	.default_cpus = 2,
	.prepared = qemu_prepared,
	.find_tree = qemu_find_tree,
	.host_check = qemu_host_check,
	.argv = sp_lab_qemu_argv,
	.keep_ok = qemu_keep_ok,
	.spawn = qemu_spawn,
	.after = qemu_after,
};
