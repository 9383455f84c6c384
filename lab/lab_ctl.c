/* The host's side of the running lab: its run folder, the qemu it
 * runs, the lock and the session with the guest (see lab_ctl.h); what
 * the session copies back goes through lab_files.c. */
#include "lab/lab_ctl.h"
#include "lab/lab_umlsup.h"

#include "common/file.h"
#include "common/log.h"
#include "common/outdir.h"
#include "lab/lab_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int canonical_socket(const char *path, char *out, size_t len);
static void sleep_ms(int ms);

/* dir without doubled or trailing slashes and "." components: one
 * spelling of the run folder for its files and qemu's command line.
 * -EINVAL for "..", which would name another folder than it seems. */
static int tidy_run_dir(const char *in, char *out, size_t len)
{
	const char *p = in, *end;
	size_t n = 0, k;

	while (*p) {
		p += strspn(p, "/");
		end = strchrnul(p, '/');
		k = (size_t)(end - p);
		if (k == 2 && !strncmp(p, "..", 2))
			return -EINVAL;
		if (k && !(k == 1 && *p == '.')) {
			if (n + 1 + k >= len)
				return -ENAMETOOLONG;
			out[n++] = '/';
			memcpy(out + n, p, k);
			n += k;
		}
		p = end;
	}
	if (!n)
		return -EINVAL;	/* "/" itself */
	out[n] = '\0';
	return 0;
}

int sp_lab_run_paths(struct sp_lab_run *r)
{
	const char *env = getenv("SLOWPATH_LAB_RUN");

	char tidy[PATH_MAX], real[PATH_MAX * 2];

	if (env && *env) {
		if (env[0] != '/' || tidy_run_dir(env, tidy, sizeof(tidy)))
			return -EINVAL;
		snprintf(r->spelled, sizeof(r->spelled), "%s", tidy);
		/* one name whatever the links on the way, so that every
		 * spelling finds the same lock, files and qemu */
		if (canonical_socket(tidy, real, sizeof(real)) ||
		    strlen(real) >= sizeof(r->dir))
			snprintf(real, sizeof(real), "%s", tidy);
		else if (realpath(tidy, r->dir))
			snprintf(real, sizeof(real), "%s", r->dir);
		/* the socket path must fit sun_path */
		if (strlen(real) > 80)
			return -EINVAL;
		memcpy(r->dir, real, strlen(real) + 1);
	} else {
		snprintf(r->dir, sizeof(r->dir), "%s", SP_LAB_RUN_DIR);
		snprintf(r->spelled, sizeof(r->spelled), "%s", SP_LAB_RUN_DIR);
	}
	snprintf(r->pidfile, sizeof(r->pidfile), "%s/qemu.pid", r->dir);
	snprintf(r->sock, sizeof(r->sock), "%s/ctl.sock", r->dir);
	snprintf(r->info, sizeof(r->info), "%s/lab.info", r->dir);
	snprintf(r->xchg, sizeof(r->xchg), "%s/xchg", r->dir);
	snprintf(r->lock, sizeof(r->lock), "%s.lock", r->dir);
	return 0;
}

/* A link in the spelling (the folder itself included) is another
 * user's way to point root at a folder of their choosing: followed only
 * when root or we own it. */
static int spelled_links_trusted(const char *spelled, char *err, size_t errlen)
{
	char part[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 1; spelled[i - 1]; i++) {
		if (spelled[i] != '/' && spelled[i])
			continue;
		snprintf(part, sizeof(part), "%.*s", (int)i, spelled);
		if (lstat(part, &st))
			return 0;	/* what does not exist yet links nowhere */
		if (S_ISLNK(st.st_mode) && st.st_uid != 0 && st.st_uid != geteuid()) {
			snprintf(err, errlen, "%s: a link of uid %u's: someone else "
				 "chooses where it points", part, (unsigned)st.st_uid);
			return -EPERM;
		}
	}
	return 0;
}

int sp_lab_run_check(const struct sp_lab_run *r, char *err, size_t errlen)
{
	/* the folders above it are checked first; a folder still missing
	 * holds nothing to trust yet (lab start makes it, then checks) */
	int ret = spelled_links_trusted(r->spelled, err, errlen);

	if (!ret)
		ret = sp_outdir_check(r->dir, 0, err, errlen);
	return ret == -ENOENT ? 0 : ret;
}

int sp_lab_info_format(const struct sp_lab_info *in, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "pid %ld\nstarted %" PRId64 "\ncpus %" PRId64
			 "\nmem %" PRIu64 "\nkver %s\nconsole %s\n"
			 "engine %s\ntime %s\n",
			 in->pid, in->started, in->cpus, in->mem, in->kver,
			 in->console, in->engine, in->time);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sp_lab_info_parse(const char *text, struct sp_lab_info *out)
{
	const char *line = text, *nl, *val;
	char key[16];
	size_t klen, vlen;

	memset(out, 0, sizeof(*out));
	for (; *line; line = *nl ? nl + 1 : nl) {
		nl = strchrnul(line, '\n');
		val = memchr(line, ' ', (size_t)(nl - line));
		if (!val)
			continue;
		klen = (size_t)(val - line);
		vlen = (size_t)(nl - val - 1);
		if (klen >= sizeof(key))
			continue;
		memcpy(key, line, klen);
		key[klen] = '\0';
		val++;
		if (!strcmp(key, "pid"))
			out->pid = strtol(val, NULL, 10);
		else if (!strcmp(key, "started"))
			out->started = strtoll(val, NULL, 10);
		else if (!strcmp(key, "cpus"))
			out->cpus = strtoll(val, NULL, 10);
		else if (!strcmp(key, "mem"))
			out->mem = strtoull(val, NULL, 10);
		else if (!strcmp(key, "kver") && vlen < sizeof(out->kver))
			snprintf(out->kver, sizeof(out->kver), "%.*s", (int)vlen, val);
		else if (!strcmp(key, "console") && vlen < sizeof(out->console))
			snprintf(out->console, sizeof(out->console), "%.*s",
				 (int)vlen, val);
		else if (!strcmp(key, "engine") && vlen < sizeof(out->engine))
			snprintf(out->engine, sizeof(out->engine), "%.*s",
				 (int)vlen, val);
		else if (!strcmp(key, "time") && vlen < sizeof(out->time))
			snprintf(out->time, sizeof(out->time), "%.*s", (int)vlen, val);
	}
	return out->pid > 0 ? 0 : -EINVAL;
}

/* The path of qemu's -chardev socket,id=labctl,path=P,... (P with
 * qemu's ",," for a comma), malloc'd, or NULL. */
static char *ctl_socket_of(const char *chardev)
{
	static const char head[] = "socket,id=labctl,path=";
	const char *p;
	char *out, *o;

	if (strncmp(chardev, head, sizeof(head) - 1))
		return NULL;
	p = chardev + sizeof(head) - 1;
	out = o = malloc(strlen(p) + 1);
	if (!out)
		return NULL;
	for (; *p && !(p[0] == ',' && p[1] != ','); p++) {
		*o++ = *p;
		if (p[0] == ',')
			p++;
	}
	*o = '\0';
	return out;
}

/* path with its folder resolved (the socket itself may be gone), into
 * out; -errno when the folder is not there. */
static int canonical_socket(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (!realpath(*dir ? dir : "/", real))
		return -errno;
	return (size_t)snprintf(out, len, "%s/%s", real, slash + 1) >= len ?
	       -ENAMETOOLONG : 0;
}

int sp_lab_same_socket(const char *a, const char *b)
{
	char ca[PATH_MAX * 2], cb[PATH_MAX * 2];

	if (!strcmp(a, b))
		return 1;
	return !canonical_socket(a, ca, sizeof(ca)) &&
	       !canonical_socket(b, cb, sizeof(cb)) && !strcmp(ca, cb);
}

int sp_lab_pid_is_ours(long pid, const char *sock)
{
	char path[64], *cmd, *arg, *end, *ctl;
	const char *name;
	size_t n;
	int ours = 0;

	if (pid <= 0)
		return 0;
	if (sp_lab_umlsup_is(pid, sock))
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if (sp_file_read(path, 1 << 20, &cmd, &n) || !n)
		return 0;
	/* a pid reused by another program does not name our socket; the
	 * argv elements are compared whole, the paths canonically */
	end = cmd + n;
	name = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	if (!strncmp(name, "qemu", 4))
		for (arg = cmd + strlen(cmd) + 1; arg < end && !ours;
		     arg += strlen(arg) + 1) {
			ctl = ctl_socket_of(arg);
			ours = ctl && sp_lab_same_socket(ctl, sock);
			free(ctl);
		}
	free(cmd);
	return ours;
}

int sp_lab_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

enum sp_lab_life sp_lab_probe(const struct sp_lab_run *r,
			      struct sp_lab_info *info)
{
	char *text = NULL;
	int have_pid, fd, i;

	memset(info, 0, sizeof(*info));
	have_pid = !sp_file_read(r->info, 1 << 16, &text, NULL) &&
		   !sp_lab_info_parse(text, info);
	free(text);
	if (!have_pid && access(r->pidfile, F_OK) && access(r->sock, F_OK) &&
	    access(r->xchg, F_OK))
		return SP_LAB_NONE;
	if (!have_pid && !sp_file_read(r->pidfile, 64, &text, NULL)) {
		info->pid = strtol(text, NULL, 10);
		free(text);
	}
	/* qemu alive is not enough: a qemu that stopped serving its
	 * socket is as dead to us */
	fd = sp_lab_connect(r->sock);
	if (fd < 0)
		return SP_LAB_DEAD;
	close(fd);
	if (sp_lab_pid_is_ours(info->pid, r->sock))
		return SP_LAB_UP;
	/* A qemu being killed loses its command line before its sockets:
	 * give it time to go. A socket that keeps answering is never
	 * called dead, though the pid file does not name its server:
	 * removing its files would orphan that qemu. */
	for (i = 0; i < 20; i++) {
		sleep_ms(100);
		fd = sp_lab_connect(r->sock);
		if (fd < 0)
			return SP_LAB_DEAD;
		close(fd);
	}
	return SP_LAB_UP;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int sp_lab_stop_qemu(long pid, const char *sock, unsigned int grace_ms)
{
	unsigned int waited = 0;

	if (!sp_lab_pid_is_ours(pid, sock))
		return -ESRCH;
	/* not our child once `lab start` has exited: poll, not waitpid */
	kill((pid_t)pid, SIGTERM);
	while (sp_lab_pid_is_ours(pid, sock) && waited < grace_ms) {
		sleep_ms(50);
		waited += 50;
	}
	if (sp_lab_pid_is_ours(pid, sock)) {
		kill((pid_t)pid, SIGKILL);
		for (waited = 0; sp_lab_pid_is_ours(pid, sock) && waited < 10000;
		     waited += 50)
			sleep_ms(50);
	}
	return 0;
}

int sp_lab_lock(const struct sp_lab_run *r, int wait, int *busy)
{
	struct stat st;
	int fd, ret;

	*busy = 0;
	fd = open(r->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* another user's file would let that user hold every start */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	if (errno != EWOULDBLOCK) {
		ret = -errno;
		close(fd);
		return ret;
	}
	*busy = 1;
	if (!wait) {
		close(fd);
		return -EWOULDBLOCK;
	}
	sp_info("lab: another lab start or stop is under way on %s; waiting for it",
		r->dir);
	while (flock(fd, LOCK_EX)) {
		ret = -errno;
		if (ret != -EINTR) {
			close(fd);
			return ret;
		}
	}
	return fd;
}

void sp_lab_cleanup(const struct sp_lab_run *r)
{
	unlink(r->sock);
	unlink(r->pidfile);
	unlink(r->info);
	sp_lab_remove_tree(r->xchg);
	rmdir(r->dir);		/* only when nothing else is in it */
}

int sp_lab_send(int fd, int type, const void *payload, size_t len)
{
	unsigned char hdr[SP_LAB_FRAME_HDR];
	int ret = sp_lab_frame_header(type, len, hdr);

	if (ret)
		return ret;
	ret = sp_write_all(fd, hdr, sizeof(hdr));
	if (!ret && len)
		ret = sp_write_all(fd, payload, len);
	return ret;
}

/* One frame from the guest; 1 when it was EXIT. */
static int on_frame(const struct sp_lab_sink_ops *ops, int type,
		    const unsigned char *p, size_t n, int *code)
{
	unsigned int root;
	uint32_t mode;
	char *rel;

	switch (type) {
	case SP_LAB_F_OUT:
	case SP_LAB_F_ERR:
		ops->stream(ops->ctx, type == SP_LAB_F_OUT ? 1 : 2, p, n);
		return 0;
	case SP_LAB_F_FILE:
		if (sp_lab_file_decode(p, n, &root, &mode, &rel))
			return -EBADMSG;
		ops->file_open(ops->ctx, root, mode, rel);
		free(rel);
		return 0;
	case SP_LAB_F_DATA:
		ops->file_data(ops->ctx, p, n);
		return 0;
	case SP_LAB_F_EXIT:
		return sp_lab_exit_decode(p, n, code) ? -EBADMSG : 1;
	}
	return -EBADMSG;	/* REQ and SIG go the other way */
}

int sp_lab_session(int fd, const struct sp_lab_req *req,
		   const struct sp_lab_sink_ops *ops, int *code)
{
	struct sp_lab_dec d;
	const unsigned char *p;
	unsigned char *enc, buf[65536], sig;
	size_t enc_len, n;
	ssize_t r;
	int ret, type, s;

	ret = sp_lab_req_encode(req, &enc, &enc_len);
	if (ret)
		return ret;
	ret = sp_lab_send(fd, SP_LAB_F_REQ, enc, enc_len);
	free(enc);
	if (ret)
		return ret == -EPIPE || ret == -ECONNRESET ? -EPIPE : ret;
	sp_lab_dec_init(&d);
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };

		s = ops->take_signal(ops->ctx);
		if (s < 0) {
			ret = -ECANCELED;
			break;
		}
		if (s) {
			sig = (unsigned char)s;
			sp_lab_send(fd, SP_LAB_F_SIG, &sig, 1);
		}
		if (poll(&pfd, 1, 200) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (!pfd.revents)
			continue;
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = -EPIPE;
			break;
		}
		ret = sp_lab_dec_feed(&d, buf, (size_t)r);
		while (!ret && (ret = sp_lab_dec_next(&d, &type, &p, &n)) == 1)
			ret = on_frame(ops, type, p, n, code);
		if (ret == 1) {
			ret = 0;
			break;
		}
		if (ret < 0)
			break;
	}
	sp_lab_dec_free(&d);
	return ret;
}
