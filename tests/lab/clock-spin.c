/*
 * clock-spin MS: read CLOCK_MONOTONIC, and nothing else, until MS ms
 * have passed; print how many reads that took, the largest step between
 * the first 64 reads, and the microseconds that passed. tests/lab/260
 * runs it in the exact-time lab, where only a clock read moves time
 * while a task runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long ns_of(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

int main(int argc, char **argv)
{
	long long start, prev, now, until, first_step_max = 0, reads = 1;
	struct timespec t;
	char *end = NULL;
	long ms = argc == 2 ? strtol(argv[1], &end, 10) : 0;

	if (argc != 2 || !end || *end || ms < 1 || ms > 10000) {
		fprintf(stderr, "usage: clock-spin MS (1..10000)\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	start = prev = ns_of(&t);
	until = start + ms * 1000000LL;
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
		now = ns_of(&t);
		if (++reads <= 64 && now - prev > first_step_max)
			first_step_max = now - prev;
		prev = now;
	} while (now < until);
	printf("reads %lld first_step_max_ns %lld elapsed_us %lld\n", reads,
	       first_step_max, (now - start) / 1000);
	return 0;
}
