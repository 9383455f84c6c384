/* A native multipath path's state for the timeline (timeline.h): pure,
 * the texts read from sysfs by the run (harness/run/run_exec.c). */
#include "harness/measure/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* text up to its newline is word */
static int is(const char *text, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(text, word, n) && (!text[n] || text[n] == '\n');
}

char sp_tl_nvme_state(const char *ctrl_state, const char *ana_state)
{
	int have_ctrl = ctrl_state && ctrl_state[0];
	int have_ana = ana_state && ana_state[0];

	if (!have_ctrl && !have_ana)
		return SP_TL_UNKNOWN;
	if (have_ctrl && !is(ctrl_state, "live"))
		return SP_TL_FAILED;
	/* a live controller whose ANA state was not read: its I/O flows */
	if (!have_ana || is(ana_state, "optimized") ||
	    is(ana_state, "non-optimized"))
		return have_ctrl ? SP_TL_ACTIVE : SP_TL_UNKNOWN;
	return SP_TL_FAILED;
}

/* 1 to 6 digits at *s, *s moved past them */
static int digits(const char **s)
{
	size_t d = strspn(*s, "0123456789");

	*s += d;
	return d >= 1 && d <= 6;
}

int sp_tl_nvme_ctrl_of(const char *disk, char *ctrl, size_t len)
{
	const char *s, *k;

	if (strncmp(disk, "nvme", 4))
		return -EINVAL;
	s = disk + 4;
	if (!digits(&s) || *s++ != 'c')
		return -EINVAL;
	k = s;
	if (!digits(&s) || *s++ != 'n' || !digits(&s) || *s)
		return -EINVAL;
	if ((size_t)snprintf(ctrl, len, "nvme%.*s", (int)strcspn(k, "n"), k) >=
	    len)
		return -ENOSPC;
	return 0;
}
