/* The path's servers: see delay_servers.h. */
#include "tgt-backend/delay_servers.h"

#include <errno.h>
#include <string.h>

int delay_servers_init(struct delay_servers *s, int n)
{
	if (n < 1 || n > DELAY_SERVERS_MAX)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->n = n;
	return 0;
}

int64_t delay_servers_take(struct delay_servers *s, int64_t ready_ns,
			   int64_t service_ns)
{
	int i, first = 0;
	int64_t start;

	/* a handful of servers at most: a scan beats keeping a heap */
	for (i = 1; i < s->n; i++)
		if (s->free_at_ns[i] < s->free_at_ns[first])
			first = i;
	start = s->free_at_ns[first] > ready_ns ? s->free_at_ns[first] : ready_ns;
	s->waited_ns += start - ready_ns;
	s->served++;
	s->free_at_ns[first] = start + service_ns;
	return s->free_at_ns[first];
}
