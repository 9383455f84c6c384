/* The host's side of the running lab (slowpath lab start/stop/status and
 * the commands forwarded into it): where its files live, whether it is
 * up, dead or absent, connecting to its control socket, one command's
 * session over it, and writing the files the guest sends back under the
 * output folders the host named. Frames: lab_frame.h. */
#ifndef SP_LAB_CTL_H
#define SP_LAB_CTL_H

#include "lab/lab_frame.h"

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* $SLOWPATH_LAB_RUN, else this: one running lab per host. */
#define SP_LAB_RUN_DIR "/run/slowpath/lab"

struct sp_lab_run {
	char dir[PATH_MAX];		/* canonical: links resolved */
	char spelled[PATH_MAX];		/* as given, slashes tidied */
	char pidfile[PATH_MAX + 16];	/* qemu's pid */
	char sock[PATH_MAX + 16];	/* qemu's chardev socket, the channel */
	char info[PATH_MAX + 16];	/* struct sp_lab_info as text */
	char xchg[PATH_MAX + 16];	/* the guest's exchange share */
	char lock[PATH_MAX + 16];	/* beside dir: start and stop hold it */
};

struct sp_lab_info {
	long pid;
	int64_t started;	/* epoch seconds */
	int64_t cpus;
	uint64_t mem;
	char kver[128];
	char console[PATH_MAX + 96];	/* the kernel console log */
	char engine[8];		/* "qemu", "uml"; "" (an older lab): qemu */
	char time[8];		/* "real", "exact", or "" */
};

/* Fills r from $SLOWPATH_LAB_RUN (absolute; doubled and trailing
 * slashes and "." dropped) or SP_LAB_RUN_DIR. 0 or -EINVAL (a relative,
 * "..", or too long $SLOWPATH_LAB_RUN). */
int sp_lab_run_paths(struct sp_lab_run *r);

/* Its folder by the output-folder rules (common/outdir.h): a lab's pid
 * file, socket and exchange share are trusted only in a folder nobody
 * else could have planted them in (a 0777 one let a user play the
 * guest). 0 (also when missing), or -errno with err one line. */
int sp_lab_run_check(const struct sp_lab_run *r, char *err, size_t errlen);

/* Pure: the info file's text and back ("key value" lines). */
int sp_lab_info_format(const struct sp_lab_info *in, char *buf, size_t len);
int sp_lab_info_parse(const char *text, struct sp_lab_info *out);

enum sp_lab_life {
	SP_LAB_NONE,	/* nothing there */
	SP_LAB_UP,	/* our qemu runs and its socket answers (or the socket
			 * keeps answering: then info may not name its qemu) */
	SP_LAB_DEAD,	/* files left by a lab whose qemu is gone or deaf */
};

/* Which of the three; info filled when a pid file was there. */
enum sp_lab_life sp_lab_probe(const struct sp_lab_run *r,
			      struct sp_lab_info *info);
/* 1 when the socket paths a and b name the same socket: equal, or
 * equal with their folders resolved. */
int sp_lab_same_socket(const char *a, const char *b);
/* 1 when pid is a live qemu whose -chardev labctl is the socket sock,
 * or the uml supervisor serving it (lab_umlsup.h). */
int sp_lab_pid_is_ours(long pid, const char *sock);
/* SIGTERM to our qemu, SIGKILL after grace_ms; waits for it to be gone.
 * 0, or -ESRCH when pid is not (or no longer) ours. */
int sp_lab_stop_qemu(long pid, const char *sock, unsigned int grace_ms);
/* Takes r->lock (beside the run folder; its parent must exist): with
 * wait, waiting while another start or stop holds it (*busy set, said
 * once), else -EWOULDBLOCK then. The fd to close to let go, or -errno
 * (-EPERM: not a regular file of ours). */
int sp_lab_lock(const struct sp_lab_run *r, int wait, int *busy);
/* Removes the pid, info and socket files, the exchange share, and the
 * run folder when that leaves it empty. */
void sp_lab_cleanup(const struct sp_lab_run *r);

/* A connected stream socket to path: fd or -errno. */
int sp_lab_connect(const char *path);
/* One frame to fd: 0 or -errno. */
int sp_lab_send(int fd, int type, const void *payload, size_t len);

/* What one session does with what the guest sends. */
struct sp_lab_sink_ops {
	/* bytes of the command's stdout (1) or stderr (2) */
	int (*stream)(void *ctx, int which, const void *p, size_t n);
	int (*file_open)(void *ctx, unsigned int root, uint32_t mode,
			 const char *relpath);
	int (*file_data)(void *ctx, const void *p, size_t n);
	/* a signal to forward to the command now, 0, or -1 to give up
	 * waiting (the session returns -ECANCELED) */
	int (*take_signal)(void *ctx);
	void *ctx;
};

/* Sends req over fd and serves the answer until EXIT: 0 with *code,
 * -EPIPE when the lab went away first, -EBADMSG for a malformed
 * answer, -ECANCELED when take_signal gave up, -errno. The sink's errors are its own business (it warns and
 * goes on): a command's exit code outranks a file not copied. */
int sp_lab_session(int fd, const struct sp_lab_req *req,
		   const struct sp_lab_sink_ops *ops, int *code);

/* The host's sink: streams to our fds 1 and 2, files under roots[i]
 * (each checked by sp_outdir_check, made if missing; its subfolders
 * ours, opened from it without following a link; files created fresh,
 * O_EXCL: nothing the guest names can lead a write outside them or
 * through a link, and a file already there is refused (-EEXIST), never
 * replaced: an earlier result is never written over). */
#define SP_LAB_MAX_ROOTS 4
enum sp_lab_root_state {
	SP_LAB_ROOT_UNSEEN,
	SP_LAB_ROOT_ALL,	/* made by this session or empty: all ours */
	SP_LAB_ROOT_ONE_NEW,	/* earlier results: only the new folder */
};
struct sp_lab_files {
	char *const *roots;
	size_t n_roots;
	int fd;			/* the file being written, or -1 */
	/* a root with earlier results in it (results/ when run has no
	 * --out) takes files only in the one folder this session made
	 * there; set for commands that make one */
	int one_new_folder;
	enum sp_lab_root_state state[SP_LAB_MAX_ROOTS];
	char claimed[SP_LAB_MAX_ROOTS][NAME_MAX + 1];
	unsigned int written, failed;
	/* the caller's signal flag: forwarded once per change, then 0;
	 * the third gives up on the command (it may still run there) */
	volatile sig_atomic_t *signal;
	unsigned int signals;
};
void sp_lab_files_init(struct sp_lab_files *f, char *const *roots,
		       volatile sig_atomic_t *signal);
void sp_lab_files_close(struct sp_lab_files *f);
void sp_lab_host_sink(struct sp_lab_sink_ops *ops, struct sp_lab_files *f);
/* The forwarded command's exit code, or 3 (one line says so) when a
 * file it wrote could not be copied back: it dies with the guest. */
int sp_lab_files_verdict(const struct sp_lab_files *f, int code);

#endif
