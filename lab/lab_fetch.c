/* lab fetch, and lab stop before it stops the VM (lab_life.h): the
 * results the agent kept of commands whose host went away (lab_kept.c)
 * brought to this host, into a NEW folder only (results/lab-kept-<UTC
 * time>/ or --out), each kept folder under its own name there, by the
 * copy-back rules (lab_files.c: nothing the guest names leads a write
 * outside it or over a file). The agent forgets a result only once
 * every file of it was written here. */
#include "lab/lab_life.h"

#include "common/exitcodes.h"
#include "common/file.h"
#include "common/log.h"
#include "common/outdir.h"
#include "lab/lab_ctl.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A guest that says nothing this long is busy with another command
 * (qemu serves one client at a time) or stuck; a command whose host
 * went away may still be cleaning up, which this covers. */
#define FETCH_QUIET_MS 60000

struct fetch {
	int fd;
	struct sp_lab_dec dec;
	const char *out;	/* the folder asked for, or NULL */
	char dir[PATH_MAX];	/* the new folder, once made */
	struct sp_lab_kept kept;	/* the result being written */
	char *roots[SP_LAB_KEPT_MAX_ROOTS + 1];	/* its host folders */
	char names[SP_LAB_KEPT_MAX_ROOTS * 8][NAME_MAX + 1];
	size_t n_names;
	struct sp_lab_files files;
	struct sp_lab_sink_ops ops;
	uint32_t whole[64];	/* results written whole: to drop */
	size_t n_whole;
	/* refused here (the folder): the rest of the answer is read and
	 * dropped, so the agent ends its answer before we hang up */
	int refused;
	unsigned int written, failed, results;
};

/* The next frame, waiting up to FETCH_QUIET_MS for bytes: 1, or
 * -ETIMEDOUT, -EPIPE, -EBADMSG. */
static int next_frame(struct fetch *f, int *type, const unsigned char **p,
		      size_t *n)
{
	unsigned char buf[65536];
	struct pollfd pfd = { f->fd, POLLIN, 0 };
	ssize_t r;
	int ret;

	while ((ret = sp_lab_dec_next(&f->dec, type, p, n)) == 0) {
		ret = poll(&pfd, 1, FETCH_QUIET_MS);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0)
			return ret ? -errno : -ETIMEDOUT;
		r = read(f->fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EPIPE;
		if (sp_lab_dec_feed(&f->dec, buf, (size_t)r))
			return -ENOMEM;
	}
	return ret < 0 ? -EBADMSG : 1;
}

static void sanitize(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = in[i] >= ' ' && in[i] < 0x7f ? in[i] : '?';
	out[i] = '\0';
}

/* The result written so far: counted, and dropped in the guest when
 * every one of its files is here. */
static void finish_kept(struct fetch *f)
{
	size_t j;

	if (!f->kept.id)
		return;
	sp_lab_files_close(&f->files);
	f->written += f->files.written;
	f->failed += f->files.failed;
	if (!f->files.failed && f->n_whole < sizeof(f->whole) / sizeof(f->whole[0]))
		f->whole[f->n_whole++] = f->kept.id;
	for (j = 0; f->roots[j]; j++) {
		free(f->roots[j]);
		f->roots[j] = NULL;
	}
	sp_lab_kept_free(&f->kept);
}

/* The new folder, at the first kept result: --out if missing or empty,
 * else results/lab-kept-<UTC time>/, which must not exist. */
static int make_dir(struct fetch *f)
{
	char err[SP_OUTDIR_ERRLEN], stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	int ret, n;

	if (f->dir[0])
		return 0;
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&t, &tm));
	if (f->out)
		snprintf(f->dir, sizeof(f->dir), "%s", f->out);
	else
		snprintf(f->dir, sizeof(f->dir), "results/lab-kept-%s", stamp);
	/* two fetches in one second: the second takes the next free name */
	for (n = 2; !f->out && !access(f->dir, F_OK) && n < 100; n++)
		snprintf(f->dir, sizeof(f->dir), "results/lab-kept-%s-%d", stamp, n);
	ret = sp_outdir_check(f->dir, SP_OUTDIR_CREATE | SP_OUTDIR_EMPTY, err,
			      sizeof(err));
	if (ret)
		sp_err("lab: kept results not fetched: %s", err);
	return ret;
}

/* A unique name in the new folder for each of the result's folders. */
static int name_roots(struct fetch *f)
{
	char name[NAME_MAX + 1], shown[PATH_MAX], when[32];
	time_t started = (time_t)f->kept.started;
	unsigned int n;
	size_t i, j;
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&started, &tm));
	for (j = 0; f->kept.roots[j]; j++) {
		for (n = 1;; n++) {
			sp_lab_kept_name(f->kept.roots[j], n, name, sizeof(name));
			for (i = 0; i < f->n_names && strcmp(f->names[i], name); i++)
				;
			if (i == f->n_names)
				break;
		}
		if (f->n_names == sizeof(f->names) / sizeof(f->names[0]) ||
		    asprintf(&f->roots[j], "%s/%s", f->dir, name) < 0) {
			f->roots[j] = NULL;
			return -ENOMEM;
		}
		snprintf(f->names[f->n_names++], sizeof(f->names[0]), "%s", name);
		sanitize(f->kept.roots[j], shown, sizeof(shown));
		sp_info("lab: %s of a command started %s, kept in the lab: into %s",
			shown, when, f->roots[j]);
	}
	return 0;
}

static int on_kept(struct fetch *f, const unsigned char *p, size_t n)
{
	int ret;

	finish_kept(f);
	if (sp_lab_kept_decode(p, n, &f->kept))
		return -EBADMSG;
	ret = make_dir(f);
	if (!ret)
		ret = name_roots(f);
	if (ret)
		return ret;
	f->results++;
	sp_lab_files_init(&f->files, f->roots, NULL);
	sp_lab_host_sink(&f->ops, &f->files);
	return 0;
}

/* The agent's answer to LIST, written: 0 at its EXIT, or -errno. */
static int receive(struct fetch *f)
{
	const unsigned char *p;
	unsigned int root;
	uint32_t mode;
	size_t n;
	char *rel;
	int type, ret;

	while ((ret = next_frame(f, &type, &p, &n)) == 1) {
		ret = 0;
		if (type == SP_LAB_F_EXIT)
			return f->refused;
		/* qemu's channel tells the guest of no hang-up: an agent left
		 * mid-answer sends the rest to the next command, which then
		 * waits (the CI's host/220: 60 s, "did not answer") */
		if (f->refused && type != SP_LAB_F_ERR)
			continue;
		if (type == SP_LAB_F_KEPT) {
			ret = on_kept(f, p, n);
			if (ret && ret != -EBADMSG) {
				f->refused = ret;
				ret = 0;
			}
		} else if (type == SP_LAB_F_FILE && f->kept.id &&
			 !sp_lab_file_decode(p, n, &root, &mode, &rel)) {
			f->ops.file_open(f->ops.ctx, root, mode, rel);
			free(rel);
		} else if (type == SP_LAB_F_DATA && f->kept.id)
			f->ops.file_data(f->ops.ctx, p, n);
		else if (type == SP_LAB_F_ERR)
			sp_write_all(STDERR_FILENO, p, n);	/* the agent's lines */
		else if (type != SP_LAB_F_OUT)
			ret = -EBADMSG;
		if (ret)
			return ret;
	}
	return ret;
}

static int ask(struct fetch *f, int op, uint32_t id)
{
	unsigned char pl[5];
	int len = sp_lab_kept_ask_encode(op, id, pl);

	return len < 0 ? len : sp_lab_send(f->fd, SP_LAB_F_KEPT_ASK, pl, (size_t)len);
}

/* Tells the agent which results are here whole: it forgets them. */
static int drop_whole(struct fetch *f)
{
	const unsigned char *p;
	size_t i, n;
	int type, ret = 0, code;

	for (i = 0; i < f->n_whole && !ret; i++) {
		ret = ask(f, SP_LAB_KEPT_DROP, f->whole[i]);
		/* the agent's lines before its answer are skipped */
		do
			ret = next_frame(f, &type, &p, &n);
		while (ret == 1 && (type == SP_LAB_F_ERR || type == SP_LAB_F_OUT));
		if (ret == 1)
			ret = type == SP_LAB_F_EXIT ? sp_lab_exit_decode(p, n, &code) :
			      -EBADMSG;
	}
	return ret;
}

int sp_lab_fetch_kept(const struct sp_lab_run *r, const char *out,
		      const char *who, int say_none)
{
	struct fetch *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return SP_EXIT_RUNTIME;
	f->out = out;
	sp_lab_dec_init(&f->dec);
	f->fd = sp_lab_connect(r->sock);
	ret = f->fd < 0 ? f->fd : ask(f, SP_LAB_KEPT_LIST, 0);
	if (!ret)
		ret = receive(f);
	finish_kept(f);
	if (!ret)
		ret = drop_whole(f);
	if (f->fd >= 0)
		close(f->fd);
	sp_lab_dec_free(&f->dec);
	if (ret)
		sp_err("%s: could not fetch what an interrupted command left in "
		       "the lab: %s%s", who, ret == -ETIMEDOUT ? "the lab did not "
		       "answer (busy with another command?)" : strerror(-ret),
		       f->written ? "; what came is in the folder named above" : "");
	else if (f->failed)
		sp_err("%s: %u file%s kept in the lab could not be written here "
		       "(said above why)", who, f->failed, f->failed == 1 ? "" : "s");
	else if (f->results)
		sp_info("%s: %u file%s of %u interrupted command%s fetched into %s",
			who, f->written, f->written == 1 ? "" : "s", f->results,
			f->results == 1 ? "" : "s", f->dir);
	else if (say_none)
		sp_info("%s: the lab holds no results of an interrupted command", who);
	ret = ret || f->failed ? SP_EXIT_RUNTIME : SP_EXIT_OK;
	free(f);
	return ret;
}

int sp_lab_fetch(const char *out)
{
	struct sp_lab_run r;
	struct sp_lab_info info;

	if (sp_lab_run_paths(&r)) {
		sp_err("lab fetch: SLOWPATH_LAB_RUN must be an absolute path");
		return SP_EXIT_USAGE;
	}
	if (sp_lab_run_trusted(&r, "lab fetch"))
		return SP_EXIT_ENV;
	switch (sp_lab_probe(&r, &info)) {
	case SP_LAB_NONE:
		sp_err("lab fetch: no lab is running");
		return SP_EXIT_ENV;
	case SP_LAB_DEAD:
		sp_lab_report_dead(&r, &info);
		return SP_EXIT_ENV;
	case SP_LAB_UP:
		break;
	}
	return sp_lab_fetch_kept(&r, out, "lab fetch", 1);
}
