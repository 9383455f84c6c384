/* The probe's one option table: `slowpath probe --qd 16 ...` and the
 * harness's "qd=16;rw=randread" strings both go through it. */
#include "harness/probe/probe.h"

#include "common/file.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const probe_rw_names[] = {
	"randread", "randwrite", "read", "write", NULL,
};

#define OFF(field) offsetof(struct probe_opts, field)

const struct sp_opt probe_opt_table[] = {
	{ "qd", SP_OPT_INT, OFF(qd), "1", "commands kept outstanding",
	  NULL, 1, 4096, 0 },
	{ "ios", SP_OPT_INT, OFF(ios), NULL,
	  "stop after this many I/Os (default 1000 unless --time)",
	  NULL, 1, 1e12, 0 },
	{ "time", SP_OPT_DURATION, OFF(time_ns), NULL,
	  "stop submitting after this long, e.g. 2s", NULL, 0, 0, 0 },
	{ "rw", SP_OPT_ENUM, OFF(rw), "randread", "I/O pattern",
	  probe_rw_names, 0, 0, 0 },
	{ "bs", SP_OPT_SIZE, OFF(bs), "4k", "bytes per I/O", NULL, 0, 0, 0 },
	{ "size", SP_OPT_SIZE, OFF(size), NULL,
	  "bytes of the region used (default: to the end of the LUN)",
	  NULL, 0, 0, 0 },
	{ "offset", SP_OPT_SIZE, OFF(offset), "0",
	  "first byte of the region", NULL, 0, 0, 0 },
	{ "pattern", SP_OPT_INT, OFF(pattern), "1",
	  "seed of the data written, the data verified and the random offsets",
	  NULL, 0, 9.2e18, 0 },
	{ "verify", SP_OPT_BOOL, OFF(verify), NULL,
	  "reads: count I/Os whose data is not the pattern of --pattern",
	  NULL, 0, 0, 0 },
	{ "timeout", SP_OPT_INT, OFF(timeout_s), "10",
	  "seconds allowed for login and for each command", NULL, 1, 3600, 0 },
	{ "json", SP_OPT_BOOL, OFF(json), NULL, "print the result as JSON",
	  NULL, 0, 0, 0 },
	{ "initiator", SP_OPT_STR, OFF(initiator),
	  "iqn.2020-01.io.slowpath:probe", "initiator name to log in as",
	  NULL, 0, 0, 0 },
	{ "chap-user", SP_OPT_STR, OFF(chap_user), NULL,
	  "CHAP user to log in as (with --chap-secret-file)", NULL, 0, 0, 0 },
	{ "chap-secret-file", SP_OPT_STR, OFF(chap_secret_file), NULL,
	  "file whose first line is the CHAP secret (slowpath up: "
	  "/run/slowpath/chap-secret, root only)", NULL, 0, 0, 0 },
	SP_OPT_END,
};

int probe_opts_init(struct probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	return sp_opt_set_defaults(probe_opt_table, o);
}

/* Larger commands only measure the network copy, not the path. */
#define PROBE_MAX_BS (8u << 20)

int probe_opts_validate(const struct probe_opts *o, char *err, size_t errlen)
{
	if (o->bs < 512 || o->bs > PROBE_MAX_BS || o->bs % 512) {
		snprintf(err, errlen, "bad value '%llu' for option 'bs': want a "
			 "multiple of 512 from 512 to 8M",
			 (unsigned long long)o->bs);
		return -EINVAL;
	}
	if (o->offset % 512) {
		snprintf(err, errlen, "bad value '%llu' for option 'offset': "
			 "want a multiple of 512", (unsigned long long)o->offset);
		return -EINVAL;
	}
	if (o->size && o->size < o->bs) {
		snprintf(err, errlen, "bad value '%llu' for option 'size': "
			 "smaller than bs %llu", (unsigned long long)o->size,
			 (unsigned long long)o->bs);
		return -EINVAL;
	}
	if (o->verify && (o->rw == PROBE_WRITE || o->rw == PROBE_RANDWRITE)) {
		snprintf(err, errlen, "option 'verify' checks reads: write with "
			 "--rw write, then verify with --rw read --verify");
		return -EINVAL;
	}
	if (!o->chap_user != !o->chap_secret_file) {
		snprintf(err, errlen, "options 'chap-user' and "
			 "'chap-secret-file' go together");
		return -EINVAL;
	}
	if (o->chap_user && (!*o->chap_user || strpbrk(o->chap_user, " \t"))) {
		snprintf(err, errlen, "bad value '%s' for option 'chap-user': "
			 "want a name without blanks", o->chap_user);
		return -EINVAL;
	}
	if (o->time_ns < 0) {
		snprintf(err, errlen, "bad value for option 'time': negative");
		return -EINVAL;
	}
	return 0;
}

/* A secret is short; a bigger file is not one. */
#define SECRET_FILE_MAX 4096

int probe_chap_secret_read(const char *path, char *secret, size_t len,
			   char *err, size_t errlen)
{
	char *text = NULL;
	size_t n, i;
	int ret;

	ret = sp_file_read(path, SECRET_FILE_MAX, &text, NULL);
	if (ret) {
		snprintf(err, errlen, "cannot read the CHAP secret from %s: %s",
			 path, ret == -EFBIG ? "not a secret file (too big)"
					     : strerror(-ret));
		return ret;
	}
	n = strcspn(text, "\r\n");
	for (i = 0; i < n; i++)
		if ((unsigned char)text[i] <= ' ' || text[i] == 0x7f)
			break;
	if (!n || i < n || n >= len) {
		snprintf(err, errlen, "the CHAP secret in %s is %s", path,
			 !n ? "empty" : i < n ? "not one word of printable "
			 "characters" : "too long");
		ret = -EINVAL;
	} else {
		memcpy(secret, text, n);
		secret[n] = '\0';
	}
	explicit_bzero(text, strlen(text));
	free(text);
	return ret;
}
