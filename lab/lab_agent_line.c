/* The agent on the uml lab's console line (lab_umlsup.h): what a
 * virtio port does by itself there (8-bit clean, hang-ups) is done
 * here and by the GONE frame. */
#include "lab/lab_agent.h"

#include "lab/lab_frame.h"

#include <errno.h>
#include <termios.h>

/* After a frame the agent could not read, on the console line: the
 * frames up to the supervisor's GONE are dropped, and that GONE is
 * answered (the supervisor relays whole frames only, so the stream
 * stays in step). 1 once it came, 0 while it has not. */
int sp_lab_agent_skip_to_gone(int port, struct sp_lab_dec *d)
{
	const unsigned char *pl;
	size_t n;
	int type, ret;

	while ((ret = sp_lab_dec_next(d, &type, &pl, &n)) == 1)
		if (sp_lab_frame_gone(type, n) == 1)
			return !sp_lab_agent_send(port, SP_LAB_F_GONE, NULL, 0);
	if (ret < 0)
		sp_lab_dec_free(d);
	return 0;
}

/* A console line carries frames as bytes: no echo, no line editing,
 * no flow control or signal characters, eight bits. */
int sp_lab_agent_line_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return -errno;
	cfmakeraw(&t);
	t.c_iflag &= ~(tcflag_t)(IXOFF | IXANY);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	return tcsetattr(fd, TCSANOW, &t) ? -errno : 0;
}
