/* Which engine a lab command takes and whether this host can run it,
 * decided over the engines' ops (lab_engine.h). */
#include "lab/lab_engine.h"

#include "common/exitcodes.h"
#include "common/log.h"
#include "lab/lab_layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct sp_lab_engines sp_lab_engines = {
	.qemu = &sp_lab_qemu_ops,
	.uml = &sp_lab_uml_ops,
};

const struct sp_lab_engine_ops *sp_lab_engine_ops(const struct sp_lab_engines *e,
						  enum sp_lab_engine which)
{
	return which == SP_LAB_ENGINE_UML ? e->uml : e->qemu;
}

int sp_lab_pick_engine(const struct sp_lab_engines *e, const char *name,
		       const char *series, enum sp_lab_engine *out)
{
	char lab[PATH_MAX + 8];

	if (!name || !*name)
		name = getenv("SLOWPATH_LAB_ENGINE");
	if (name && *name) {
		if (!sp_lab_engine_parse(name, out))
			return 0;
		sp_err("lab: engine '%s' is neither uml nor qemu", name);
		return -EINVAL;
	}
	(void)sp_lab_dir(lab, sizeof(lab));
	*out = e->uml->prepared(lab, series) ? SP_LAB_ENGINE_UML
					     : SP_LAB_ENGINE_QEMU;
	return 0;
}

int sp_lab_pick_time(const char *name, enum sp_lab_engine engine,
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

int sp_lab_find(const struct sp_lab_engines *e, struct sp_lab_paths *lp,
		const struct sp_lab_vm *vm)
{
	char link[32];

	(void)sp_lab_dir(lp->lab, sizeof(lp->lab));
	if (sp_lab_current_link(vm->kernel_series, link, sizeof(link))) {
		sp_err("lab: --kernel '%s' is not a kernel series such as 6.1 or 6.12",
		       vm->kernel_series);
		return -EINVAL;
	}
	lp->engine = vm->engine;
	return sp_lab_engine_ops(e, vm->engine)->find_tree(lp, vm->kernel_series);
}

int sp_lab_setup(const struct sp_lab_engines *e, const struct sp_lab_ask *ask,
		 struct sp_lab_vm *vm, struct sp_lab_paths *lp)
{
	const struct sp_lab_engine_ops *ops;
	int ret;

	vm->kernel_series = ask->kernel;
	if (sp_lab_pick_engine(e, ask->engine, ask->kernel, &vm->engine) ||
	    sp_lab_pick_time(ask->time, vm->engine, &vm->time))
		return SP_EXIT_USAGE;
	ops = sp_lab_engine_ops(e, vm->engine);
	vm->cpus = ask->cpus ? ask->cpus : ops->default_cpus;
	if (ops->max_cpus && vm->cpus > ops->max_cpus) {
		sp_err("lab: a uml guest has one CPU (--cpus 1); run several for more");
		return SP_EXIT_USAGE;
	}
	ret = sp_lab_find(e, lp, vm);
	if (ret)
		return ret == -EINVAL ? SP_EXIT_USAGE : SP_EXIT_ENV;
	ret = ops->host_check(lp);
	if (ret)
		return ret;
	vm->qemu = lp->qemu;
	vm->kernel = lp->kernel;
	vm->initrd = lp->initrd;
	vm->lab_dir = lp->dir;
	vm->uml_init = lp->uml_init;
	return 0;
}

int sp_lab_find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	const char *p, *end;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p)
			continue;
		snprintf(out, len, "%.*s/%s", (int)(end - p), p, name);
		if (!access(out, X_OK))
			return 0;
	}
	return -ENOENT;
}
