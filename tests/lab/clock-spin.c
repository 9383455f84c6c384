/*
 * clock-spin MS: read CLOCK_MONOTONIC, and nothing else, until MS ms
 * have passed; print how many reads that took, the largest step between
 * the first 64 reads of a run, and the microseconds that passed.
 * tests/lab/260 runs it in the exact-time lab, where only a clock read
 * moves time while a task runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FIRST_READS 64
#define FIRST_TRIES 5

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A syscall other than a clock read: the kernel's clock-spin patch
 * starts counting a task's reads in a row over after it. */
static void end_run(void)
{
	syscall(SYS_getppid);
}

/* The largest step between the first FIRST_READS reads of a run. A read
 * by another guest task between two of ours moves time too (a daemon, a
 * wakeup of the lab's relay), so the smallest of up to FIRST_TRIES runs:
 * one clean run is the answer; a patch that made the early reads dearer
 * makes every run so. *tries: how many it took. */
static long long first_step_max(int *tries)
{
	long long best = -1, max, prev, now;
	int i;

	for (*tries = 1;; ++*tries) {
		end_run();
		max = 0;
		prev = now_ns();
		for (i = 1; i < FIRST_READS; i++) {
			now = now_ns();
			if (now - prev > max)
				max = now - prev;
			prev = now;
		}
		if (best < 0 || max < best)
			best = max;
		if (best <= 256 || *tries == FIRST_TRIES)
			return best;
	}
}

int main(int argc, char **argv)
{
	long long start, now, until, step, reads = 1;
	char *end = NULL;
	long ms = argc == 2 ? strtol(argv[1], &end, 10) : 0;
	int tries;

	if (argc != 2 || !end || *end || ms < 1 || ms > 10000) {
		fprintf(stderr, "usage: clock-spin MS (1..10000)\n");
		return 1;
	}
	step = first_step_max(&tries);
	end_run();
	start = now_ns();
	until = start + ms * 1000000LL;
	do {
		now = now_ns();
		reads++;
	} while (now < until);
	printf("reads %lld first_step_max_ns %lld elapsed_us %lld first_tries %d\n",
	       reads, step, (now - start) / 1000, tries);
	return 0;
}
