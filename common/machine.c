#include "common/machine.h"

#include <stdlib.h>
#include <string.h>

int sp_machine_in_lab(void)
{
	const char *v = getenv("SLOWPATH_IN_LAB");

	return v && *v;
}

const char *sp_machine_engine(void)
{
	const char *v = getenv("SLOWPATH_LAB_ENGINE");

	if (!sp_machine_in_lab())
		return "native";
	return v && !strcmp(v, "uml") ? "uml" : "qemu";
}

int sp_machine_exact_time(void)
{
	const char *v = getenv("SLOWPATH_LAB_TIME");

	return !strcmp(sp_machine_engine(), "uml") && v && !strcmp(v, "exact");
}

const char *sp_machine_time(void)
{
	return sp_machine_exact_time() ? "exact" : "real";
}

int sp_machine_emulated_cost(void)
{
	return sp_machine_in_lab() && !sp_machine_exact_time();
}
