#include "harness/probe/probe_data.h"

#include <string.h>

/* splitmix64: cheap, well mixed, and the same on every machine. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t pattern_word(uint64_t seed, uint64_t byte_addr)
{
	return mix64(mix64(seed) ^ byte_addr);
}

void probe_pattern_fill(unsigned char *buf, size_t len, uint64_t seed,
			uint64_t byte_addr)
{
	size_t i;
	uint64_t w;

	for (i = 0; i + 8 <= len; i += 8) {
		w = pattern_word(seed, byte_addr + i);
		memcpy(buf + i, &w, 8);
	}
}

int probe_pattern_check(const unsigned char *buf, size_t len, uint64_t seed,
			uint64_t byte_addr)
{
	size_t i;
	uint64_t w;

	if (len % 8)
		return 0;
	for (i = 0; i < len; i += 8) {
		memcpy(&w, buf + i, 8);
		if (w != pattern_word(seed, byte_addr + i))
			return 0;
	}
	return 1;
}

uint64_t probe_io_checksum(const unsigned char *buf, size_t len,
			   uint64_t byte_addr)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a 64 */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= buf[i];
		h *= 0x100000001b3ULL;
	}
	/* Mixing in the address makes swapped blocks change the sum. */
	return mix64(h ^ mix64(byte_addr));
}

void probe_plan_init(struct probe_plan *p, uint64_t offset, uint64_t size,
		     uint64_t bs, int random, uint64_t seed)
{
	memset(p, 0, sizeof(*p));
	p->offset = offset;
	p->size = size;
	p->bs = bs;
	p->random = random;
	p->rng = seed;
}

uint64_t probe_plan_next(struct probe_plan *p)
{
	uint64_t slots = p->size / p->bs, slot;

	if (p->random) {
		p->rng = mix64(p->rng);
		slot = p->rng % slots;
	} else {
		slot = p->next_seq;
		p->next_seq = (p->next_seq + 1) % slots;
	}
	return p->offset + slot * p->bs;
}
