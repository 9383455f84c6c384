/* IPv4 prefixes for the address plan, in host byte order. */
#include "topologies/topo.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sp_topo_parse_cidr(const char *text, uint32_t *addr, int *len)
{
	char buf[32], *slash, *end;
	struct in_addr in;
	long l;

	if (!text || strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	slash = strchr(buf, '/');
	if (!slash)
		return -EINVAL;
	*slash++ = '\0';
	if (inet_pton(AF_INET, buf, &in) != 1 || !isdigit((unsigned char)*slash))
		return -EINVAL;
	l = strtol(slash, &end, 10);
	if (*end || l < 0 || l > 32)
		return -EINVAL;
	*addr = ntohl(in.s_addr);
	*len = (int)l;
	return 0;
}

static uint32_t mask_of(int len)
{
	return len ? 0xFFFFFFFFu << (32 - len) : 0;
}

int sp_topo_cidr_overlap(uint32_t a, int alen, uint32_t b, int blen)
{
	int len = alen < blen ? alen : blen;

	return (a & mask_of(len)) == (b & mask_of(len));
}

const char *sp_topo_fmt_addr(uint32_t addr, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 255,
		 (addr >> 8) & 255, addr & 255);
	return buf;
}
