/* The prepared lab's folder names (lab_layout.h). */
#include "lab/lab_layout.h"

#include "common/strbuf.h"
#include "lab/lab_vm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sp_lab_dir(char *buf, size_t len)
{
	const char *env = getenv("SLOWPATH_LAB_DIR");
	char exe[4096];
	ssize_t n;
	int ret = 0;

	if (env && *env)
		return sp_snprintf(buf, len, "%s", env) ? -ENAMETOOLONG : 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		ret = -errno;
	exe[n < 0 ? 0 : n] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	else if (!ret)
		ret = -EINVAL;
	if (sp_snprintf(buf, len, "%s/lab", exe))
		return -ENAMETOOLONG;
	return ret;
}

static int series_link(const char *base, const char *with_series,
		       const char *series, char *buf, size_t len)
{
	int n;

	if (series && !sp_lab_series_ok(series))
		return -EINVAL;
	n = series ? snprintf(buf, len, "%s%s", with_series, series)
		   : snprintf(buf, len, "%s", base);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sp_lab_current_link(const char *series, char *buf, size_t len)
{
	return series_link(SP_LAB_LINK_QEMU, SP_LAB_LINK_QEMU_SERIES, series,
			   buf, len);
}

int sp_lab_uml_link(const char *series, char *buf, size_t len)
{
	return series_link(SP_LAB_LINK_UML, SP_LAB_LINK_UML_SERIES, series,
			   buf, len);
}

int sp_lab_file(char *buf, size_t len, const char *dir, const char *name)
{
	return sp_snprintf(buf, len, "%s/%s", dir, name);
}
