/* CHAP for the targets of `slowpath up`: the random credentials, the
 * root-only secret file, and the tgtadm/iscsiadm runs that hand them
 * out. See bringup_chap.h. */
#include "harness/bringup/bringup_chap.h"

#include "common/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int sp_bringup_chap_random(char *buf, size_t n)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char raw[64];
	size_t used = 0, i;
	ssize_t got;

	if (!n)
		return -EINVAL;
	while (used + 1 < n) {
		got = getrandom(raw, sizeof(raw), 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		/* 248 = 4 * 62: bytes above it would favour the first
		 * letters */
		for (i = 0; i < (size_t)got && used + 1 < n; i++)
			if (raw[i] < 248)
				buf[used++] = alnum[raw[i] % 62];
	}
	buf[used] = '\0';
	explicit_bzero(raw, sizeof(raw));
	return 0;
}

void sp_bringup_chap_file(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, SP_CHAP_SECRET_FILE);
}

/* A secret is only as private as the directory it is renamed into:
 * someone else's, or one others may write, could swap it. */
static int dir_is_private(const char *dir, char *err, size_t errlen)
{
	struct stat sb;

	if (lstat(dir, &sb)) {
		int e = -errno;

		snprintf(err, errlen, "state directory %s: %s", dir,
			 strerror(-e));
		return e;
	}
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen, "state directory %s is not a directory "
			 "of uid %d that only its owner may write: refusing "
			 "to keep the CHAP secret there", dir, (int)geteuid());
		return -EPERM;
	}
	return 0;
}

int sp_bringup_chap_setup(int fd, const char *dir, struct sp_state *st,
			  char *secret, size_t slen, char *err,
			  size_t errlen)
{
	char rnd[9], line[96], path[512], text[SP_CHAP_SECRET_MAX + 1];
	int ret;

	if (slen < SP_CHAP_SECRET_CHARS + 1)
		return -ENOSPC;
	ret = dir_is_private(dir, err, errlen);
	if (ret)
		return ret;
	ret = sp_bringup_chap_random(rnd, sizeof(rnd));
	if (!ret)
		ret = sp_bringup_chap_random(secret, SP_CHAP_SECRET_CHARS + 1);
	if (ret) {
		snprintf(err, errlen, "cannot make the CHAP secret: %s",
			 strerror(-ret));
		return ret;
	}
	/* the tag says which topology an account on a tgtd belongs to */
	snprintf(st->chap_user, sizeof(st->chap_user), "slowpath-%s-%s",
		 st->tag, rnd);
	/* named before it exists, so `down` knows to remove it */
	snprintf(line, sizeof(line), "chap %s\n", st->chap_user);
	ret = sp_state_append(fd, line);
	if (ret) {
		snprintf(err, errlen, "cannot write the state in %s: %s", dir,
			 strerror(-ret));
		return ret;
	}
	sp_bringup_chap_file(dir, path, sizeof(path));
	snprintf(text, sizeof(text), "%s\n", secret);
	ret = sp_file_write_atomic(path, text, strlen(text), 0600);
	explicit_bzero(text, sizeof(text));
	if (ret)
		snprintf(err, errlen, "cannot write the CHAP secret %s: %s",
			 path, strerror(-ret));
	return ret;
}

int sp_bringup_chap_target(const struct sp_sys_ops *ops,
			   const struct sp_state_path *p, const char *user,
			   const char *secret, char *err, size_t errlen)
{
	char port[16], what[96];
	int r;

	snprintf(port, sizeof(port), "%u", p->ctl_port);
	snprintf(what, sizeof(what), "path %s: tgtadm new account %s",
		 p->label, user);
	r = sp_sys_runv(ops, NULL, 0, "tgtadm", "-C", port, "--lld", "iscsi",
			"--op", "new", "--mode", "account", "--user", user,
			"--password", secret, NULL);
	if (r)
		return sp_sys_failed(ops, r, what, err, errlen);
	snprintf(what, sizeof(what), "path %s: tgtadm bind account %s",
		 p->label, user);
	r = sp_sys_runv(ops, NULL, 0, "tgtadm", "-C", port, "--lld", "iscsi",
			"--op", "bind", "--mode", "account", "--tid", "1",
			"--user", user, NULL);
	return r ? sp_sys_failed(ops, r, what, err, errlen) : 0;
}

int sp_bringup_chap_remove(const char *dir)
{
	char path[512];

	sp_bringup_chap_file(dir, path, sizeof(path));
	return unlink(path) && errno != ENOENT ? -errno : 0;
}
