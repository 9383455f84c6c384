/*
 * bench-ptrace [STOPS]: what a stop of a uml guest's process costs the
 * host, the way UML 6.1/6.12 handles one (arch/um/os-Linux/skas/
 * process.c, userspace()): a child that makes system calls in a loop is
 * stopped at each by PTRACE_SYSEMU, and its tracer reads and writes its
 * registers. Three ways side by side, in rounds that take turns:
 *   gp        general registers read and written (PTRACE_GETREGS/SETREGS)
 *   gp+fp     and the FP state read (PTRACE_GETREGSET NT_X86_XSTATE)
 *   gp+fp+set and written back (PTRACE_SETREGSET), as UML does at every
 *             stop unless lab/uml-patches.sh's fp-unchanged skips it
 * Prints the host CPU (tracer and child) and wall time per stop of each,
 * and the ratio of each to gp+fp. `make bench-ptrace` runs it.
 */
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PTRACE_SYSEMU
#define PTRACE_SYSEMU 31
#endif

enum way { GP, GP_FP, GP_FP_SET, WAYS };
static const char *const way_name[WAYS] = { "gp", "gp+fp", "gp+fp+set" };

struct cost {
	double cpu_s, wall_s;
	long stops;
};

static double seconds_of(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

static double clock_s(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return seconds_of(&t);
}

/* the child's CPU so far, from its rusage once reaped: here, while it
 * lives, from /proc */
static double child_cpu_s(pid_t child)
{
	char path[64];
	unsigned long utime = 0, stime = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		   &utime, &stime) != 2)
		utime = stime = 0;
	fclose(f);
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static pid_t start_child(void)
{
	pid_t child = fork();

	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		for (;;)
			syscall(SYS_getppid);
	}
	if (child > 0 && waitpid(child, NULL, 0) != child)
		return -1;
	return child;
}

/* STOPS stops of CHILD handled WAY; -1 when ptrace fails */
static int run_stops(pid_t child, enum way way, long stops, struct cost *cost)
{
	static char xstate[65536];
	struct iovec iov = { xstate, sizeof(xstate) };
	struct user_regs_struct regs;
	double cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID) + child_cpu_s(child);
	double wall0 = clock_s(CLOCK_MONOTONIC);
	long i;

	for (i = 0; i < stops; i++) {
		if (ptrace(PTRACE_SYSEMU, child, 0, 0) || waitpid(child, NULL, __WALL) != child)
			return -1;
		if (ptrace(PTRACE_GETREGS, child, 0, &regs))
			return -1;
		iov.iov_len = sizeof(xstate);
		if (way >= GP_FP && ptrace(PTRACE_GETREGSET, child, NT_X86_XSTATE, &iov))
			return -1;
		regs.rax = 0;
		if (ptrace(PTRACE_SETREGS, child, 0, &regs))
			return -1;
		if (way == GP_FP_SET && ptrace(PTRACE_SETREGSET, child, NT_X86_XSTATE, &iov))
			return -1;
	}
	cost->cpu_s += clock_s(CLOCK_PROCESS_CPUTIME_ID) + child_cpu_s(child) - cpu0;
	cost->wall_s += clock_s(CLOCK_MONOTONIC) - wall0;
	cost->stops += stops;
	return 0;
}

int main(int argc, char **argv)
{
	long stops = argc > 1 ? atol(argv[1]) : 200000, rounds = 10, r;
	struct cost cost[WAYS] = { { 0, 0, 0 } };
	pid_t child;
	int way;

	if (argc > 2 || stops < 1000) {
		fprintf(stderr, "usage: bench-ptrace [STOPS (>= 1000, default 200000)]\n");
		return 1;
	}
	child = start_child();
	if (child < 0)
		return 3;
	for (r = 0; r < rounds; r++)
		for (way = 0; way < WAYS; way++)
			if (run_stops(child, (enum way)way, stops / rounds, &cost[way])) {
				perror("bench-ptrace: ptrace");
				kill(child, SIGKILL);
				return 3;
			}
	kill(child, SIGKILL);
	printf("%-10s %14s %14s %12s\n", "way", "host CPU us", "wall us", "CPU / gp+fp");
	for (way = 0; way < WAYS; way++)
		printf("%-10s %14.2f %14.2f %12.2f\n", way_name[way],
		       cost[way].cpu_s / (double)cost[way].stops * 1e6,
		       cost[way].wall_s / (double)cost[way].stops * 1e6,
		       cost[way].cpu_s / cost[GP_FP].cpu_s);
	return 0;
}
