/* What the probe writes, where, and how it checks what it reads: all a
 * function of (seed, byte address), so data written by one probe through
 * one path can be verified by another probe through another path with
 * nothing shared but the seed. */
#ifndef SP_PROBE_DATA_H
#define SP_PROBE_DATA_H

#include <stddef.h>
#include <stdint.h>

/* Fills buf (len a multiple of 8) with the pattern of the bytes at
 * [byte_addr, byte_addr + len) of the LUN. */
void probe_pattern_fill(unsigned char *buf, size_t len, uint64_t seed,
			uint64_t byte_addr);

/* 1 when buf holds exactly the pattern for that address, else 0. */
int probe_pattern_check(const unsigned char *buf, size_t len, uint64_t seed,
			uint64_t byte_addr);

/* Contribution of one I/O to the run's checksum. Runs add these up, so
 * the sum does not depend on completion order. */
uint64_t probe_io_checksum(const unsigned char *buf, size_t len,
			   uint64_t byte_addr);

/* Where the i-th I/O goes: sequential wraps around the region; random
 * picks bs-aligned slots with a generator seeded by seed. */
struct probe_plan {
	uint64_t offset, size, bs;	/* size a multiple of bs, >= bs */
	int random;
	uint64_t rng;
	uint64_t next_seq;
};

void probe_plan_init(struct probe_plan *p, uint64_t offset, uint64_t size,
		     uint64_t bs, int random, uint64_t seed);
/* Byte address of the next I/O. */
uint64_t probe_plan_next(struct probe_plan *p);

#endif
