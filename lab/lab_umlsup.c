/* The uml lab's supervisor (lab_umlsup.h): the guest's processes, its
 * signals, and one poll loop over the relay (lab_umlrelay.h). The
 * guest's processes are stopped only between hosts, after the agent
 * said it is idle. */
#include "lab/lab_umlsup.h"

#include "common/file.h"
#include "common/log.h"
#include "common/proc.h"
#include "lab/lab_engine.h"
#include "lab/lab_frame.h"
#include "lab/lab_proc.h"
#include "lab/lab_sandbox.h"
#include "lab/lab_umlrelay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sup {
	const struct sp_lab_umlsup *cfg;
	int lfd;		/* the control socket, listening */
	pid_t uml;
	int frozen;		/* its processes stopped by us */
	struct sp_lab_relay relay;	/* owns the guest's line and the host */
};

static volatile sig_atomic_t sup_signal, sup_child;

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		sup_child = 1;
	else
		sup_signal = sig;
}

/* Every host process of the guest's group that UML does not trace: the
 * kernel and its helpers. Its traced children (the guest's processes)
 * are not signalled: UML takes a stop signal reported by one for a
 * fault and kills it; they wait in ptrace stops on the kernel anyway. */
static void signal_untraced(pid_t pgid, int sig)
{
	char path[64], buf[4096], *p;
	struct sp_lab_pstat ps;
	DIR *d = opendir("/proc");
	long pid, tracer;

	if (!d)
		return;
	while ((pid = sp_lab_next_pid(d))) {
		if (sp_lab_pstat(pid, &ps) || ps.pgrp != pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		if (sp_file_read_prefix(path, buf, sizeof(buf)) ||
		    !(p = strstr(buf, "\nTracerPid:")) ||
		    sscanf(p + 11, "%ld", &tracer) != 1 || tracer)
			continue;
		kill((pid_t)pid, sig);
	}
	closedir(d);
}

/* Processes of group pgid that are not zombies (those the guest's
 * kernel left are reaped by init, in its own time). */
static int group_live(pid_t pgid)
{
	struct sp_lab_pstat ps;
	DIR *d = opendir("/proc");
	long pid;
	int n = 0;

	if (!d)
		return kill(-pgid, 0) == 0;
	while ((pid = sp_lab_next_pid(d)))
		if (!sp_lab_pstat(pid, &ps) && ps.pgrp == pgid && ps.state != 'Z')
			n++;
	closedir(d);
	return n;
}

static void freeze(struct sup *s, int on)
{
	if (s->frozen == on || s->uml <= 0)
		return;
	signal_untraced(s->uml, on ? SIGSTOP : SIGCONT);
	s->frozen = on;
}

static void thaw(void *ctx)
{
	freeze(ctx, 0);
}

/* One poll round: 0, or an error that ends the lab. */
static int serve_once(struct sup *s, const sigset_t *unblocked)
{
	struct sp_lab_relay *r = &s->relay;
	struct pollfd pfd[3] = { { -1, POLLIN, 0 }, { r->gfd, 0, 0 },
				 { r->cfd, 0, 0 } };
	int ret, cfd;

	/* a new host only once the agent is done with the last */
	if (sp_lab_relay_quiet(r))
		pfd[0].fd = s->lfd;
	sp_lab_relay_events(r, &pfd[1].events, &pfd[2].events);
	if (ppoll(pfd, 3, NULL, unblocked) < 0)
		return errno == EINTR ? 0 : -errno;
	ret = sp_lab_relay_round(r, pfd[1].revents, pfd[2].revents);
	if (!ret && pfd[0].revents & POLLIN &&
	    (cfd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		sp_lab_relay_take_host(r, cfd);
	return ret;
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, 0600) ||
	    listen(fd, 16)) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* The guest booted, its line our socket pair's other end. */
static int boot_guest(struct sup *s, struct sp_lab_sandbox *sb)
{
	struct sp_lab_vm vm = *s->cfg->vm;
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	vm.ctl_fd = sv[1];
	sp_lab_relay_init(&s->relay, sv[0], thaw, s);
	/* its job's streams (the agent's own output) into our log */
	ret = sp_lab_uml_ops.spawn(&vm, STDOUT_FILENO, STDERR_FILENO, sb, &s->uml);
	close(sv[1]);
	if (ret) {
		close(sv[0]);
		return ret;
	}
	return fcntl(sv[0], F_SETFL, O_NONBLOCK) ? -errno : 0;
}

static int group_gone(pid_t pgid, int ms);

/* 1 when the guest ended (reaped, said), 0 while it runs. */
static int guest_ended(struct sup *s)
{
	int st;

	sup_child = 0;
	if (waitpid(s->uml, &st, WNOHANG) != s->uml)
		return 0;
	/* no host may connect to a lab that is gone; what is left of its
	 * group goes with it */
	close(s->lfd);
	s->lfd = -1;
	kill(-s->uml, SIGKILL);
	group_gone(s->uml, 2000);
	s->uml = -1;
	sp_err("lab uml: the guest ended (%s %d)",
	       WIFEXITED(st) ? "exit" : "signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return 1;
}

/* Waits up to ms for every process of group pgid to be gone: 1 when
 * they are. */
static int group_gone(pid_t pgid, int ms)
{
	struct timespec tick = { 0, 20 * 1000000L };

	for (; ms > 0; ms -= 20) {
		if (!group_live(pgid))
			return 1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* The guest is RAM and a private mount namespace: nothing of it
 * needs an orderly end (UML takes SIGTERM for a guest shutdown its
 * init does not do), so its whole group is killed outright. Returns
 * once none is left, 2 s at most (lab stop's grace is 5). */
static void kill_guest(struct sup *s)
{
	pid_t pgid = s->uml;
	int st;

	kill(-pgid, SIGKILL);
	waitpid(s->uml, &st, 0);
	s->uml = -1;
	s->frozen = 0;
	if (!group_gone(pgid, 2000))
		sp_err("lab uml: processes of group %d outlived SIGKILL", (int)pgid);
}

static void teardown(struct sup *s)
{
	/* first: a host connecting now would wait on a lab that is going */
	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
	if (s->uml > 0)
		kill_guest(s);
	if (s->relay.gfd >= 0)
		close(s->relay.gfd);
	sp_lab_relay_free(&s->relay);
}

static void handle_signals(sigset_t *unblocked)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* only ppoll takes them: no flag is missed between check and wait */
	sigprocmask(SIG_BLOCK, &block, unblocked);
	sigdelset(unblocked, SIGTERM);
	sigdelset(unblocked, SIGINT);
	sigdelset(unblocked, SIGHUP);
	sigdelset(unblocked, SIGCHLD);
}

/* Until a signal asks (the lab torn down, its files removed: exit 0)
 * or the guest ends (its files left for lab status to report: exit 3). */
static int serve(struct sup *s, const sigset_t *unblocked)
{
	int ret = 0;

	while (!sup_signal && !ret) {
		if (sup_child && guest_ended(s))
			return 3;
		if (sp_lab_relay_quiet(&s->relay))
			freeze(s, 1);
		ret = serve_once(s, unblocked);
	}
	if (ret)
		sp_err("lab uml: %s: %s", ret == -EPROTO ?
		       "the guest's control line carries no frames" :
		       "the control line failed", strerror(-ret));
	teardown(s);
	if (!ret)
		sp_lab_cleanup(s->cfg->run);
	return ret ? 3 : 0;
}

static int sup_main(void *arg)
{
	const struct sp_lab_umlsup *cfg = arg;
	struct sup s = { .cfg = cfg, .lfd = -1, .uml = -1 };
	struct sp_lab_sandbox sb;
	sigset_t unblocked;
	int ret;

	prctl(PR_SET_NAME, SP_LAB_UMLSUP_COMM, 0, 0, 0);
	if (chdir(cfg->run->dir))
		return 3;
	handle_signals(&unblocked);
	sp_lab_relay_init(&s.relay, -1, NULL, NULL);
	s.lfd = listen_on(cfg->run->sock);
	ret = s.lfd < 0 ? s.lfd : boot_guest(&s, &sb);
	if (ret) {
		sp_err("lab uml: cannot start the guest: %s", strerror(-ret));
		if (s.lfd >= 0)
			close(s.lfd);
		return 3;
	}
	sp_info("lab uml: guest pid %d, serving %s", (int)s.uml, cfg->run->sock);
	return serve(&s, &unblocked);
}

int sp_lab_umlsup_spawn(const struct sp_lab_umlsup *s, pid_t *pid)
{
	struct sp_proc p;
	/* its own session, no death signal: it outlives this command */
	struct sp_proc_opts o = {
		.flags = SP_PROC_SESSION | SP_PROC_STDIN_NULL | SP_PROC_CLOSE_FDS,
		.logfile = s->agent_log,
	};
	int ret;

	sp_proc_init(&p);
	ret = sp_proc_fork(&p, sup_main, (void *)s, &o);
	*pid = ret ? -1 : p.pid;
	return ret;
}

int sp_lab_umlsup_is(long pid, const char *sock)
{
	char path[64], comm[32], cwd[PATH_MAX], mine[PATH_MAX + 16];
	const char *name = strrchr(sock, '/');
	ssize_t n;

	if (pid <= 0 || !name)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (sp_file_read_prefix(path, comm, sizeof(comm)) ||
	    strcmp(comm, SP_LAB_UMLSUP_COMM "\n"))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/cwd", pid);
	n = readlink(path, cwd, sizeof(cwd) - 1);
	if (n <= 0)
		return 0;
	cwd[n] = '\0';
	snprintf(mine, sizeof(mine), "%s%s", cwd, name);
	return sp_lab_same_socket(mine, sock);
}

/* The one child of pid that leads its own group: the UML kernel. */
static long guest_of(long sup)
{
	struct sp_lab_pstat ps;
	DIR *d = opendir("/proc");
	long pid, found = -1;

	if (!d)
		return -1;
	while (found < 0 && (pid = sp_lab_next_pid(d)))
		if (!sp_lab_pstat(pid, &ps) && ps.ppid == sup && ps.pgrp == pid)
			found = pid;
	closedir(d);
	return found;
}

int sp_lab_umlsup_ticks(long pid, unsigned long long *ticks)
{
	struct sp_lab_pstat ps;
	long guest = guest_of(pid), one;
	DIR *d;

	*ticks = 0;
	if (guest <= 0 || !(d = opendir("/proc")))
		return -ESRCH;
	while ((one = sp_lab_next_pid(d)))
		if (!sp_lab_pstat(one, &ps) && ps.pgrp == guest)
			*ticks += ps.ticks;
	closedir(d);
	return 0;
}

/* 1 when pid's argv has the word uml_dir=XCHG. */
static int is_guest_of(long pid, const char *word)
{
	char path[64], *cmd, *arg;
	size_t n;
	int hit = 0;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if (sp_file_read(path, 1 << 16, &cmd, &n))
		return 0;
	for (arg = cmd; arg < cmd + n && !hit; arg += strlen(arg) + 1)
		hit = !strcmp(arg, word);
	free(cmd);
	return hit;
}

int sp_lab_umlsup_reap(const char *xchg)
{
	char word[PATH_MAX + 16];
	struct dirent *de;
	DIR *d = opendir("/proc");
	long pid;
	pid_t pgid;
	char *end;
	int n = 0;

	if (!d)
		return 0;
	snprintf(word, sizeof(word), "uml_dir=%s", xchg);
	while ((de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || !is_guest_of(pid, word))
			continue;
		pgid = getpgid((pid_t)pid);
		/* its group is the guest's, never ours */
		if (pgid > 1 && pgid != getpgrp())
			kill(-pgid, SIGKILL);
		kill((pid_t)pid, SIGKILL);
		n++;
	}
	closedir(d);
	return n;
}
