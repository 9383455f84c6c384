/* The guest's side of the running lab: `slowpath lab agent`, started by
 * lab/guest-init.sh in a lab that `slowpath lab start` booted. It serves
 * the control port one command at a time (lab_frame.h): runs it in its
 * own process group, streams its output, forwards the host's signals to
 * that group, sends back the files it wrote under the request's sync
 * folders, then its exit code. */
#ifndef SP_LAB_AGENT_H
#define SP_LAB_AGENT_H

#include <stddef.h>
#include <time.h>

/* /dev/vportNpM of the virtio-serial port called name: 0 or -ENOENT. */
int sp_lab_find_port(const char *name, char *out, size_t len);

struct sp_lab_req;
struct sp_strv;
/* A request's command environment: PATH, HOME, SLOWPATH_IN_LAB=1, what
 * the guest set of own (SLOWPATH_LAB_ENGINE, _TIME, _PATCHES), the
 * request's entries that pass (SLOWPATH_*, the fixed set, the names in
 * the request's own SLOWPATH_LAB_ENV when its list is good, TERM), the
 * terminal size. The agent's own environment is shed before it serves:
 * nothing of the caller of lab start reaches a command. 0 or -ENOMEM. */
int sp_lab_agent_env(char *const *own, const struct sp_lab_req *req,
		     struct sp_strv *env);

/* What the agent and its store of kept results (lab_kept.c) share. */
/* Which files a walk takes: written from since on, and, for a result
 * kept after its command ended, not after until (a later command's
 * files in the same folder are its own); until.tv_sec 0: no end. With
 * count set, the files are counted, not sent. */
struct sp_lab_walk {
	struct timespec since, until;
	unsigned long *count;
};
/* FILE/DATA frames for what under base is in the window, root its
 * number in FILE: 0, or -EPIPE when the host is gone. */
int sp_lab_agent_walk(int port, unsigned int root, const char *base,
		      const struct sp_lab_walk *w);
/* One frame on the (non-blocking) port: 0, -EPIPE when no host is
 * connected (a write would wait and go to the next one), -errno. */
int sp_lab_agent_send(int port, int type, const void *payload, size_t len);
/* fmt with a and b as one ERR frame (what the user reads on stderr). */
void sp_lab_agent_say(int fd, const char *fmt, const char *a, const char *b);

/* The results of commands whose host went away (lab_kept.c), until the
 * host fetches them: what sync folders the command had and its
 * window. Keeps nothing when the window holds no file. */
void sp_lab_kept_keep(char *const *roots, const struct timespec *since,
		      const struct timespec *until);
/* Files held, and of how many commands. */
unsigned long sp_lab_kept_files(unsigned int *commands);
/* Answers a KEPT_ASK frame's payload: 0, -EBADMSG (malformed), or the
 * port's error. */
int sp_lab_kept_serve(int port, const unsigned char *payload, size_t len);

/* The console line (lab_agent_line.c): made raw, 8 bits, no echo,
 * line editing, flow control or signal characters: 0 or -errno. */
int sp_lab_agent_line_raw(int fd);
/* After a frame the agent could not read: frames dropped up to the
 * supervisor's GONE, which is answered; 1 once it came, 0 not yet. */
struct sp_lab_dec;
int sp_lab_agent_skip_to_gone(int port, struct sp_lab_dec *d);

/* Serves port_path until the port cannot be used: -errno. console:
 * it is the uml lab's console line (SP_LAB_UML_CTL_TTY), made raw,
 * where GONE frames stand for hang-ups (lab_frame.h). */
int sp_lab_agent_serve(const char *port_path, int console);

#endif
