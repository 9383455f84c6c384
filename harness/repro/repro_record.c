/* A reproduction's record: OUT/reproduce.info (the unit, how long it
 * took, on what) beside its runs, read back by --report-only; and the
 * report written after the runs (repro_run.h). */
#include "harness/repro/repro_run.h"

#include "common/log.h"
#include "harness/measure/result_file.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether OUT/runs holds anything: a run that measured nothing (its
 * first `up` failed) has nothing for reproduce.info to describe. */
static int runs_recorded(const char *out)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int any = 0;

	if (sp_repro_path_printf(path, sizeof(path), "%s/runs", out))
		return 0;
	d = opendir(path);
	while (d && !any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return any;
}

/* OUT/reproduce.info, new: never over an earlier reproduction's. */
static int save_info(const char *out, const char *unit_text, int64_t seconds,
		     const char *mode, const char *host)
{
	char path[PATH_MAX];
	FILE *f;

	if (sp_repro_path_printf(path, sizeof(path), "%s/reproduce.info", out))
		return -ENAMETOOLONG;
	f = sp_repro_fopen_new(path);
	if (!f) {
		int err = errno;

		sp_err("reproduce: %s: %s", path, strerror(err));
		return -err;
	}
	fprintf(f, "unit %s\nseconds %" PRId64 "\nmode %s\nhost %s\n", unit_text,
		seconds, mode, host);
	if (fclose(f)) {
		sp_err("reproduce: %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

int sp_repro_finish(const struct sp_repro_opts *o, const struct sp_repro_plan *plan,
		    const struct sp_reference *ref, const char *out,
		    const char *unit_text, int64_t elapsed_s, const char *mode,
		    const char *host, char *said, size_t said_len)
{
	int ret;

	said[0] = '\0';
	if (!runs_recorded(out)) {
		sp_err("reproduce: nothing was measured; %s has no runs, no "
		       "report", out);
		return -ENODATA;
	}
	ret = save_info(out, unit_text, elapsed_s, mode, host);
	if (sp_repro_write_report(o, plan, ref, out, unit_text, elapsed_s, mode,
				  host, said, said_len) && !ret)
		ret = -EIO;
	return ret;
}

/* One "key value" line of reproduce.info into dst; 1 when it was key. */
static int info_field(const char *line, const char *key, char *dst, size_t len)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != ' ')
		return 0;
	snprintf(dst, len, "%s", line + n + 1);
	return 1;
}

int sp_repro_report_again(const struct sp_repro_opts *o,
			  const struct sp_repro_plan *plan,
			  const struct sp_reference *ref, const char *out,
			  const char *unit, char *said, size_t said_len)
{
	char path[PATH_MAX], unit_text[SP_REPRO_UNIT_TEXT] = "?", mode[160] = "";
	char host[160] = "?", seconds_text[32] = "0", *text = NULL, *line, *next;
	int ret;

	said[0] = '\0';
	if (sp_repro_path_printf(path, sizeof(path), "%s/reproduce.info", out))
		return -EINVAL;
	/* a result folder's file: never a symlink, FIFO or another's link */
	ret = sp_result_file_read(path, 64 * 1024, &text, NULL);
	if (ret && ret != -ENOENT) {
		sp_err("reproduce: %s: %s", path, sp_result_file_why(ret));
		return -EINVAL;
	}
	for (line = text; line && *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!info_field(line, "unit", unit_text, sizeof(unit_text)) &&
		    !info_field(line, "seconds", seconds_text, sizeof(seconds_text)) &&
		    !info_field(line, "mode", mode, sizeof(mode)))
			info_field(line, "host", host, sizeof(host));
	}
	free(text);
	if (unit)
		snprintf(unit_text, sizeof(unit_text), "%s", unit);
	/* no mode recorded: the report takes the cases' own */
	ret = sp_repro_write_report(o, plan, ref, out, unit_text,
				    atoll(seconds_text), mode[0] ? mode : NULL,
				    host, said, said_len);
	/* -EINVAL is the record's: a row the report cannot judge is not */
	return ret == -EINVAL ? -EIO : ret;
}
