#include "lab/lab_uml.h"

#include <errno.h>
#include <stddef.h>

int sp_lab_uml_word_ok(const char *s)
{
	const char *p;

	if (!s || !*s)
		return 0;
	for (p = s; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '"' || *p == '\'' || *p == '\\')
			return 0;
	return 1;
}

static int vm_ok(const struct sp_lab_vm *vm)
{
	const char *const paths[] = { vm->kernel, vm->lab_dir, vm->uml_init,
				      vm->xchg_dir };
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!sp_lab_uml_word_ok(paths[i]) || paths[i][0] != '/')
			return 0;
	if (vm->cpus != 1 || vm->mem_bytes < (64ULL << 20))
		return 0;
	return vm->mode == SP_LAB_SHELL || vm->console_log;
}

int sp_lab_uml_argv(const struct sp_lab_vm *vm, struct sp_strv *out)
{
	int ret = 0;

	if (!vm_ok(vm))
		return -EINVAL;
	ret |= sp_strv_push(out, vm->kernel);
	ret |= sp_strv_pushf(out, "mem=%lluM",
			     (unsigned long long)(vm->mem_bytes >> 20));
	if (vm->time == SP_LAB_TIME_EXACT)
		ret |= sp_strv_push(out, "time-travel=inf-cpu");
	/* The host's root through hostfs; uml-init.sh puts the overlay on
	 * it. The host keeps it read-only (lab_sandbox.c), not this "ro". */
	ret |= sp_strv_push(out, "root=/dev/root");
	ret |= sp_strv_push(out, "rootfstype=hostfs");
	ret |= sp_strv_push(out, "rootflags=/");
	ret |= sp_strv_push(out, "ro");
	ret |= sp_strv_pushf(out, "init=%s", vm->uml_init);
	/* UML keeps its pid file and control socket here, not in ~/.uml */
	ret |= sp_strv_pushf(out, "uml_dir=%s", vm->xchg_dir);
	ret |= sp_strv_push(out, "panic=-1");
	ret |= sp_strv_push(out, vm->mode == SP_LAB_SHELL ? "loglevel=1" : "loglevel=4");
	/* No other console or serial line than these: nothing of the
	 * guest's reaches a host terminal but what we hand over. */
	ret |= sp_strv_push(out, "con=null");
	ret |= sp_strv_push(out, "ssl=null");
	ret |= sp_strv_push(out, vm->mode == SP_LAB_SHELL ? "con0=fd:0,fd:1"
							  : "con0=null,fd:1");
	if (vm->mode != SP_LAB_SHELL) {
		ret |= sp_strv_pushf(out, "con1=null,fd:%d", SP_LAB_UML_OUT_FD);
		ret |= sp_strv_pushf(out, "con2=null,fd:%d", SP_LAB_UML_ERR_FD);
	}
	if (vm->mode == SP_LAB_AGENT)
		ret |= sp_strv_pushf(out, "con3=fd:%d,fd:%d", SP_LAB_UML_CTL_IN_FD,
				     SP_LAB_UML_CTL_OUT_FD);
	ret |= sp_strv_pushf(out, "LAB_XCHG=%s", vm->xchg_dir);
	ret |= sp_strv_pushf(out, "LAB_DIR=%s", vm->lab_dir);
	if (ret) {
		sp_strv_free(out);
		return -ENOMEM;
	}
	return 0;
}
