/* `slowpath lab agent`, the guest's end of the control port: see
 * lab_agent.h. It trusts the host (the host owns this VM) but not the
 * bytes on the port: a frame it cannot read drops the session. */
#include "lab/lab_agent.h"

#include "common/file.h"
#include "common/log.h"
#include "common/proc.h"
#include "lab/lab_ctl.h"
#include "lab/lab_vm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What a file's mtime may lag the command's start by and still count
 * as written by it: the guest's clock steps at 1 s granularity in
 * places (9p's lower layer keeps the host's times). */
/* A file's time comes from the kernel's coarse clock, a tick or so
 * behind clock_gettime: this much earlier still counts as "since". Not
 * whole seconds: the host refuses an earlier run's files, and a run
 * started right after another would send those back (and fail). */
#define SYNC_SLACK_NS 50000000L

int sp_lab_find_port(const char *name, char *out, size_t len)
{
	char path[PATH_MAX], line[128];
	struct dirent *de;
	DIR *d = opendir("/sys/class/virtio-ports");

	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name",
			 de->d_name);
		if (sp_file_read_prefix(path, line, sizeof(line)))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, name)) {
			snprintf(out, len, "/dev/%s", de->d_name);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -ENOENT;
}

/* The port is non-blocking: a write while no host is connected would
 * otherwise wait for the next one and hand it this session's bytes.
 * -EPIPE when the host is gone. */
static int port_write_all(int fd, const unsigned char *p, size_t n)
{
	struct pollfd pfd = { fd, POLLOUT, 0 };
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			return -errno;
		if ((pfd.revents & POLLHUP) && !(pfd.revents & POLLOUT))
			return -EPIPE;
	}
	return 0;
}

int sp_lab_agent_send(int fd, int type, const void *payload, size_t len)
{
	unsigned char hdr[SP_LAB_FRAME_HDR];
	int ret = sp_lab_frame_header(type, len, hdr);

	if (!ret)
		ret = port_write_all(fd, hdr, sizeof(hdr));
	if (!ret && len)
		ret = port_write_all(fd, payload, len);
	return ret;
}

static int send_chunks(int fd, int type, const char *p, size_t n)
{
	size_t k;
	int ret = 0;

	while (n && !ret) {
		k = n > 65536 ? 65536 : n;
		ret = sp_lab_agent_send(fd, type, p, k);
		p += k;
		n -= k;
	}
	return ret;
}

void sp_lab_agent_say(int fd, const char *fmt, const char *a, const char *b)
{
	char msg[PATH_MAX + 256];
	int n = snprintf(msg, sizeof(msg), fmt, a, b);

	if (n > 0)
		send_chunks(fd, SP_LAB_F_ERR, msg,
			    (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

/* What the guest set for every command (guest-init.sh, uml-init.sh),
 * kept when the agent sheds the rest of its environment. */
static const char *const guest_set[] = {
	"SLOWPATH_LAB_ENGINE=", "SLOWPATH_LAB_TIME=", "SLOWPATH_LAB_PATCHES=",
	NULL,
};

static int guest_sets(const char *entry)
{
	int i;

	for (i = 0; guest_set[i]; i++)
		if (!strncmp(entry, guest_set[i], strlen(guest_set[i])))
			return 1;
	return 0;
}

/* The request's SLOWPATH_LAB_ENV, when its list is a good one. */
static const char *request_extra(char *const *env)
{
	static const char key[] = "SLOWPATH_LAB_ENV=";
	char bad[160];

	for (; *env; env++)
		if (!strncmp(*env, key, sizeof(key) - 1))
			return sp_lab_env_list_check(*env + sizeof(key) - 1, bad,
						     sizeof(bad)) ? NULL :
			       *env + sizeof(key) - 1;
	return NULL;
}

int sp_lab_agent_env(char *const *own, const struct sp_lab_req *req,
		     struct sp_strv *env)
{
	const char *extra = request_extra(req->env);
	char *const *e;
	int ret = sp_strv_push(env, "PATH=" SP_LAB_GUEST_PATH);

	ret |= sp_strv_push(env, "HOME=/root");
	ret |= sp_strv_push(env, "SLOWPATH_IN_LAB=1");
	for (e = own; e && *e && !ret; e++)
		if (guest_sets(*e))
			ret = sp_strv_push(env, *e);
	for (e = req->env; *e && !ret; e++)
		if (sp_lab_env_passes(*e, extra) || !strncmp(*e, "TERM=", 5) ||
		    !strncmp(*e, "SLOWPATH_LAB_TTY=", 17))
			ret = sp_strv_push(env, *e);
	if (req->rows && req->cols && !ret) {
		ret = sp_strv_pushf(env, "LINES=%u", (unsigned)req->rows);
		ret |= sp_strv_pushf(env, "COLUMNS=%u", (unsigned)req->cols);
	}
	return ret ? -ENOMEM : 0;
}

/* The guest's own settings, from the agent's environment, which is then
 * shed: a command's environment is exactly sp_lab_agent_env's. */
static struct sp_strv guest_env;

static int shed_environment(void)
{
	extern char **environ;
	char **e;
	int ret = 0;

	for (e = environ; e && *e && !ret; e++)
		if (guest_sets(*e))
			ret = sp_strv_push(&guest_env, *e);
	return ret ? ret : clearenv() ? -ENOMEM : 0;
}

static void forward(struct sp_proc *p, int sig)
{
	if (p->pid > 0 && (sig == SIGINT || sig == SIGTERM || sig == SIGHUP))
		kill(-p->pid, sig);
}

static void send_output(int port, struct sp_proc *p)
{
	char *s;

	if (p->out.len && (s = sp_proc_take(&p->out))) {
		send_chunks(port, SP_LAB_F_OUT, s, strlen(s));
		free(s);
	}
	if (p->err.len && (s = sp_proc_take(&p->err))) {
		send_chunks(port, SP_LAB_F_ERR, s, strlen(s));
		free(s);
	}
}

/* A read_port or session result: the host went away (its port hung
 * up, or a new host spoke) with no EXIT sent. */
#define SESSION_HOST_GONE 1

/* The port is the uml lab's console line (lab_umlsup.c): raw, never
 * hangs up, and answers each GONE with one when it has no session. */
static int agent_console;

/* Reads the port while a command runs: 0; SESSION_HOST_GONE when the
 * port hung up, or a new host's first frame came (put back for the
 * serve loop: the old host is gone); -EPIPE for nonsense. */
static int read_port(int port, struct sp_lab_dec *d, struct sp_proc *p)
{
	unsigned char buf[4096];
	const unsigned char *pl;
	size_t n;
	ssize_t r = read(port, buf, sizeof(buf));
	int type, ret;

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r < 0)
		return -EPIPE;
	if (r == 0) {
		/* a frame half sent by the host that left is no one's */
		sp_lab_dec_free(d);
		return SESSION_HOST_GONE;
	}
	ret = sp_lab_dec_feed(d, buf, (size_t)r);
	while (!ret && (ret = sp_lab_dec_next(d, &type, &pl, &n)) == 1) {
		/* GONE: the uml supervisor's word for a hang-up; the serve
		 * loop answers it */
		if (type == SP_LAB_F_REQ || type == SP_LAB_F_KEPT_ASK ||
		    type == SP_LAB_F_GONE) {
			sp_lab_dec_unget(d);
			return SESSION_HOST_GONE;
		}
		if (type != SP_LAB_F_SIG || n != 1)
			return -EPIPE;
		forward(p, pl[0]);
		ret = 0;
	}
	return ret < 0 ? -EPIPE : 0;
}

/* What a command's end needs to send back or keep its files. */
struct agent_session {
	const struct sp_lab_req *req;
	struct sp_proc *p;
	struct timespec since;
};

/* How long a command whose host hung up has to finish cleaning up
 * (run saves its reports and plots, under TCG slowly) before its group
 * is killed. */
#define HUNG_UP_WAIT_MS 300000

static void pause_ms(int ms);

/* Waits for the command after its SIGHUP; its output has no reader and
 * is dropped (a full pipe would stop it). */
static void wait_hung_up(struct sp_proc *p)
{
	int waited = 0, r;

	while (p->pid > 0 && waited < HUNG_UP_WAIT_MS) {
		r = p->out_fd >= 0 || p->err_fd >= 0 ? sp_proc_pump(p, 200) : 1;
		free(sp_proc_take(&p->out));
		free(sp_proc_take(&p->err));
		if (sp_proc_try_wait(p, NULL) == 1)
			return;
		if (r == 1)
			pause_ms(200);
		waited += 200;
	}
	if (p->pid > 0)
		sp_proc_kill_group(p, 2000);
}

/* The one entry point for "the host is gone" before an EXIT was
 * exchanged (the port hung up; a uml lab's relay says so with a frame
 * of its own): the command is treated as a native process whose
 * terminal hung up, SIGHUP to its group (run stops as for Ctrl-C and
 * keeps the cases it finished), and once it has ended what it wrote in
 * its sync folders is kept in the guest for lab fetch or lab stop. */
static void agent_host_gone(struct agent_session *s)
{
	struct timespec until;

	if (s->p->pid > 0) {
		forward(s->p, SIGHUP);
		wait_hung_up(s->p);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	/* the coarse clock's lag, as for since */
	until.tv_nsec += SYNC_SLACK_NS;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_nsec -= 1000000000L;
		until.tv_sec++;
	}
	sp_lab_kept_keep(s->req->sync, &s->since, &until);
}

/* The command's streams relayed until it ends: 0, or SESSION_HOST_GONE
 * / -EPIPE from read_port. */
static int relay_command(int port, struct sp_lab_dec *d, struct sp_proc *p)
{
	int ret, reaped = 0;

	while (!reaped || p->out_fd >= 0 || p->err_fd >= 0) {
		struct pollfd pfd[3] = { { port, POLLIN, 0 },
					 { p->out_fd, POLLIN, 0 },
					 { p->err_fd, POLLIN, 0 } };

		if (poll(pfd, 3, 200) < 0 && errno != EINTR)
			break;
		if ((pfd[0].revents & (POLLIN | POLLHUP)) &&
		    (ret = read_port(port, d, p)))
			return ret;
		if (pfd[1].revents || pfd[2].revents) {
			sp_proc_pump(p, 1);
			send_output(port, p);
		}
		if (!reaped && sp_proc_try_wait(p, NULL) == 1) {
			reaped = 1;
			/* a daemon it started may hold its streams: take
			 * what is there and stop listening */
			sp_proc_pump(p, 300);
			send_output(port, p);
			break;
		}
	}
	if (p->pid > 0)
		sp_proc_wait(p, NULL);
	return 0;
}

/* Says, before a command, what earlier commands left unfetched. */
static void say_kept(int port)
{
	char n[64];
	unsigned int commands;
	unsigned long files = sp_lab_kept_files(&commands);

	if (!files)
		return;
	snprintf(n, sizeof(n), "%lu file%s", files, files == 1 ? "" : "s");
	sp_lab_agent_say(port, "lab: the lab holds %s of %s; slowpath lab fetch brings "
	    "them back\n", n, commands == 1 ? "an interrupted command" :
	    "interrupted commands");
}

static void session_start(struct agent_session *s)
{
	clock_gettime(CLOCK_REALTIME, &s->since);
	s->since.tv_nsec -= SYNC_SLACK_NS;
	if (s->since.tv_nsec < 0) {
		s->since.tv_nsec += 1000000000L;
		s->since.tv_sec--;
	}
}

/* One command: 0 once EXIT is sent, SESSION_HOST_GONE (its results
 * kept), or -EPIPE (a frame we cannot read: the command is stopped). */
static int run_request(int port, const struct sp_lab_req *req,
		       struct sp_lab_dec *d)
{
	struct sp_strv env = { 0 };
	struct sp_proc_opts o = {
		.flags = SP_PROC_PGROUP | SP_PROC_STDIN_NULL |
			 SP_PROC_CAPTURE_OUT | SP_PROC_CAPTURE_ERR |
			 SP_PROC_DEFAULT_SIGNALS | SP_PROC_CLOSE_FDS,
		.dir = req->cwd,
	};
	struct sp_lab_walk w = { .count = NULL };
	unsigned char code_be[4];
	struct sp_proc p;
	struct agent_session s = { req, &p, { 0, 0 } };
	int ret, code;
	size_t i;

	session_start(&s);
	w.since = s.since;
	sp_proc_init(&p);
	say_kept(port);
	ret = sp_lab_agent_env(guest_env.v, req, &env);
	o.env = (const char *const *)env.v;
	if (!ret)
		ret = sp_proc_spawn(&p, (const char *const *)req->argv, &o);
	if (ret) {
		sp_lab_agent_say(port, "lab: cannot run %s in the guest: %s\n", req->argv[0],
		    strerror(-ret));
		code = ret == -ENOENT ? 127 : 126;
		goto done;
	}
	ret = relay_command(port, d, &p);
	if (ret == -EPIPE)
		sp_proc_kill_group(&p, 2000);
	code = p.status;
	for (i = 0; !ret && req->sync[i]; i++)
		ret = sp_lab_agent_walk(port, (unsigned int)i, req->sync[i], &w) ==
		      -EPIPE ? SESSION_HOST_GONE : 0;
	/* a console line takes every write: a host that went during the
	 * walk is known only by the GONE waiting on the port */
	if (!ret && agent_console)
		ret = read_port(port, d, &p);
done:
	if (!ret) {
		sp_lab_exit_encode(code, code_be);
		ret = sp_lab_agent_send(port, SP_LAB_F_EXIT, code_be, 4) == -EPIPE ?
		      SESSION_HOST_GONE : 0;
	}
	if (ret == SESSION_HOST_GONE)
		agent_host_gone(&s);
	sp_proc_release(&p);
	sp_strv_free(&env);
	return ret;
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* The frames of one read: 0, or -1 when the stream is lost until the
 * host hangs up. */
static int serve_frames(int port, struct sp_lab_dec *d)
{
	struct sp_lab_req req;
	const unsigned char *pl;
	size_t n;
	int type, ret;

	while ((ret = sp_lab_dec_next(d, &type, &pl, &n)) == 1) {
		if (type == SP_LAB_F_KEPT_ASK) {
			if (sp_lab_kept_serve(port, pl, n))
				return -1;
			continue;
		}
		if (sp_lab_frame_gone(type, n) < 0)
			return -1;
		if (type == SP_LAB_F_GONE) {
			if (agent_console &&
			    sp_lab_agent_send(port, SP_LAB_F_GONE, NULL, 0))
				return -1;
			continue;
		}
		if (type != SP_LAB_F_REQ)
			continue;	/* a late SIG after its command */
		if (sp_lab_req_decode(pl, n, &req))
			return -1;
		ret = run_request(port, &req, d);
		sp_lab_req_free(&req);
		/* the host gone, the next bytes are a new host's */
		if (ret < 0)
			return -1;
	}
	return ret < 0 ? -1 : 0;
}

int sp_lab_agent_serve(const char *port_path, int console)
{
	struct sp_lab_dec d;
	unsigned char buf[65536];
	ssize_t r;
	int port, ret, broken = 0;

	ret = shed_environment();
	if (ret)
		return ret;
	port = open(port_path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (port < 0)
		return -errno;
	agent_console = console;
	/* the supervisor relays no host until this first GONE: nothing
	 * reaches the line before it is raw */
	ret = console ? sp_lab_agent_line_raw(port) : 0;
	ret = ret ? ret : console ? sp_lab_agent_send(port, SP_LAB_F_GONE, NULL, 0) : 0;
	if (ret) {
		close(port);
		return ret;
	}
	signal(SIGPIPE, SIG_IGN);
	sp_lab_dec_init(&d);
	for (;;) {
		struct pollfd pfd = { port, POLLIN, 0 };

		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			break;
		r = pfd.revents & POLLIN ? read(port, buf, sizeof(buf)) : 0;
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0) {
			/* no host on the other end: start afresh when one
			 * connects (the port says POLLHUP until then) */
			if (pfd.revents & (POLLHUP | POLLIN)) {
				sp_lab_dec_free(&d);
				broken = 0;
				pause_ms(100);
			}
			continue;
		}
		if ((broken && !agent_console) || sp_lab_dec_feed(&d, buf, (size_t)r))
			continue;
		if (!broken && serve_frames(port, &d))
			broken = 1;	/* until the host hangs up */
		/* a line's hang-up is the supervisor's GONE */
		if (broken && agent_console)
			broken = !sp_lab_agent_skip_to_gone(port, &d);
	}
	sp_lab_dec_free(&d);
	close(port);
	return -EIO;
}
