/* The guest's side of the running lab: `slowpath lab agent`, started by
 * lab/guest-init.sh in a lab that `slowpath lab start` booted. It serves
 * the control port one command at a time (lab_frame.h): runs it in its
 * own process group, streams its output, forwards the host's signals to
 * that group, sends back the files it wrote under the request's sync
 * folders, then its exit code. */
#ifndef SP_LAB_AGENT_H
#define SP_LAB_AGENT_H

#include <stddef.h>

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

/* Serves port_path until the port cannot be used: -errno. */
int sp_lab_agent_serve(const char *port_path);

#endif
