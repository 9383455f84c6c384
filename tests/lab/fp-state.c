/*
 * fp-state THREADS ROUNDS: THREADS threads of one process, and as many
 * in a forked child, each hold a pattern of their own in vector
 * registers across a system call that yields the CPU and a fault on a
 * page never touched before, ROUNDS times; print how many rounds found
 * their registers changed. tests/lab/262 runs it in a uml guest, whose
 * kernel skips writing a process's FP state back to the host when it is
 * the state the host process already holds (lab/uml-patches.sh,
 * fp-unchanged): threads of one process share one host process, and a
 * fault runs a handler there that clears FP state.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

struct worker {
	unsigned int id;
	long rounds;
	int wide;	/* ymm (AVX) rather than xmm */
	long changed;
	char *pages;	/* rounds fresh pages, one faulted in each round */
};

/* the pattern in xmm2/xmm3 (ymm2/ymm3 when wide) while the thread
 * yields and faults; 1 when it came back as it went in */
static int round_keeps(const struct worker *w, long round)
{
	uint64_t in[8], out[8];
	char *page = w->pages + round * PAGE;
	unsigned int i;

	for (i = 0; i < 8; i++)
		in[i] = ((uint64_t)w->id << 48) ^ ((uint64_t)round << 8) ^ (i * 0x9e3779b97f4a7c15ULL);
	memset(out, 0, sizeof(out));
	if (w->wide)
		__asm__ volatile(
			"vmovdqu (%[in]), %%ymm2\n\t"
			"vmovdqu 32(%[in]), %%ymm3\n\t"
			"movl %[nr], %%eax\n\t"
			"syscall\n\t"
			"movb $1, (%[page])\n\t"
			"vmovdqu %%ymm2, (%[out])\n\t"
			"vmovdqu %%ymm3, 32(%[out])\n\t"
			"vzeroupper"
			: : [in] "r"(in), [out] "r"(out), [page] "r"(page), [nr] "i"(SYS_sched_yield)
			: "rax", "rcx", "r11", "xmm2", "xmm3", "memory");
	else
		__asm__ volatile(
			"movdqu (%[in]), %%xmm2\n\t"
			"movdqu 16(%[in]), %%xmm3\n\t"
			"movl %[nr], %%eax\n\t"
			"syscall\n\t"
			"movb $1, (%[page])\n\t"
			"movdqu %%xmm2, (%[out])\n\t"
			"movdqu %%xmm3, 16(%[out])"
			: : [in] "r"(in), [out] "r"(out), [page] "r"(page), [nr] "i"(SYS_sched_yield)
			: "rax", "rcx", "r11", "xmm2", "xmm3", "memory");
	return memcmp(in, out, w->wide ? 64 : 32) == 0;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	long r;

	for (r = 0; r < w->rounds; r++)
		if (!round_keeps(w, r))
			w->changed++;
	return NULL;
}

/* THREADS threads of this process; the rounds that found their
 * registers changed, or -1 */
static long run_threads(unsigned int first_id, long threads, long rounds, int wide)
{
	struct worker *w = calloc((size_t)threads, sizeof(*w));
	pthread_t *tid = calloc((size_t)threads, sizeof(*tid));
	long i, changed = 0;

	if (!w || !tid)
		return -1;
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ .id = first_id + (unsigned int)i, .rounds = rounds, .wide = wide };
		w[i].pages = mmap(NULL, (size_t)rounds * PAGE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (w[i].pages == MAP_FAILED || pthread_create(&tid[i], NULL, work, &w[i]))
			return -1;
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		changed += w[i].changed;
	}
	return changed;
}

int main(int argc, char **argv)
{
	char *end1 = NULL, *end2 = NULL;
	long threads = argc == 3 ? strtol(argv[1], &end1, 10) : 0;
	long rounds = argc == 3 ? strtol(argv[2], &end2, 10) : 0;
	long mine, theirs;
	int wide, status, fds[2];
	pid_t child;

	if (argc != 3 || *end1 || *end2 || threads < 1 || threads > 64 ||
	    rounds < 1 || rounds > 100000) {
		fprintf(stderr, "usage: fp-state THREADS (1..64) ROUNDS (1..100000)\n");
		return 1;
	}
	__builtin_cpu_init();
	wide = __builtin_cpu_supports("avx");
	if (pipe(fds))
		return 3;
	child = fork();
	if (child < 0)
		return 3;
	if (child == 0) {
		theirs = run_threads(1000, threads, rounds, wide);
		return write(fds[1], &theirs, sizeof(theirs)) == sizeof(theirs) ? 0 : 3;
	}
	mine = run_threads(0, threads, rounds, wide);
	if (read(fds[0], &theirs, sizeof(theirs)) != sizeof(theirs) ||
	    waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || mine < 0 || theirs < 0)
		return 3;
	printf("rounds %ld changed %ld registers %s\n", 2 * threads * rounds,
	       mine + theirs, wide ? "ymm" : "xmm");
	return mine + theirs ? 2 : 0;
}
