/*
 * spawn_ms.c - the wall time of starting a program afresh, as allocbench
 * starts each measuring process (fork, execve, wait), for make bench
 * (tests/bench.sh): spawn_ms N PROGRAM [ARG...] runs PROGRAM N times, one
 * after the other, with descriptor 3 open on an unnamed temporary file (the
 * measuring process writes its result there) and stdout and stderr as
 * given, and prints the median wall time of one run and the median CPU time
 * (user and system, from wait4) in milliseconds: on a shared machine the
 * wall time includes waiting for a CPU, the CPU time what the run cost.
 * Exits 1 when a run fails, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[1], NULL, 10) : 0;
	double *ms, *cpu;

	if (n < 1 || n > 100000) {
		fprintf(stderr, "usage: spawn_ms N PROGRAM [ARG...]\n");
		return 2;
	}
	ms = calloc((size_t)n, sizeof(*ms));
	cpu = calloc((size_t)n, sizeof(*cpu));
	if (!ms || !cpu)
		return 2;
	for (long i = 0; i < n; i++) {
		int fd = open("/tmp", O_TMPFILE | O_RDWR, 0600), status;
		struct rusage ru;
		double start = now_ms();
		pid_t pid = fork();

		if (pid == 0) {
			if (fd >= 0 && fd != 3 && dup2(fd, 3) < 0)
				_exit(127);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "spawn_ms: %s failed\n", argv[2]);
			return 1;
		}
		ms[i] = now_ms() - start;
		cpu[i] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		if (fd >= 0)
			close(fd);
	}
	printf("%.2f %.2f\n", median(ms, n), median(cpu, n));
	free(ms);
	free(cpu);
	return 0;
}
