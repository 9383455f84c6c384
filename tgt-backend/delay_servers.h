/* A path that serves its commands a few at a time: `servers` servers,
 * each holding a command for `service` time, commands beyond them
 * waiting their turn in arrival order. That is how a slow link or a
 * single-threaded target behaves under load: its latency grows with the
 * commands queued on it, and its throughput is capped at
 * servers / service. A plain delay (read_delay=...) is the other kind:
 * every command waits it out on its own, so a path's throughput grows
 * without bound with the iodepth. The 2020 reference measured the first
 * kind (docs/reference-2020.md, "Serial paths"). Pure C. */
#ifndef SP_DELAY_SERVERS_H
#define SP_DELAY_SERVERS_H

#include <stdint.h>

#define DELAY_SERVERS_MAX 64

struct delay_servers {
	int n;
	int64_t free_at_ns[DELAY_SERVERS_MAX];	/* when each is next idle */
	int64_t waited_ns;			/* sum of the waits for a server */
	uint64_t served;
};

/* n servers (1..DELAY_SERVERS_MAX), all idle. -EINVAL otherwise. */
int delay_servers_init(struct delay_servers *s, int n);

/* A command ready at ready_ns takes the server that is free first, at
 * ready_ns or when that server is done, and holds it for service_ns.
 * Returns when its service ends. */
int64_t delay_servers_take(struct delay_servers *s, int64_t ready_ns,
			   int64_t service_ns);

#endif
