/*
 * peakhold.c - a program of known peak for the program-figures test
 * (tests/cli/t1411): `peakhold KIB [exec|kill]` allocates KIB KiB in chunks of
 * 56 bytes (64 with glibc's header), writes each, holds them all for 100
 * ms (so that a reader polling every millisecond or so sees the peak),
 * frees every second one, prints "hwm N" (its own VmHWM, KiB, read from
 * /proc/self/status) and exits 0; with "exec" it becomes /bin/true, with
 * "kill" it is killed by SIGKILL (no exit hook runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t n, i;
	char **p, line[256];
	struct timespec hold = { 0, 100000000 };
	FILE *f;

	if (argc < 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: peakhold KIB [exec|kill]\n");
		return 2;
	}
	n = (size_t)atol(argv[1]) * 1024 / 64;
	if (!(p = malloc(n * sizeof(*p))))
		return 1;
	for (i = 0; i < n; i++) {
		if (!(p[i] = malloc(56)))
			return 1;
		memset(p[i], 1, 56);
	}
	nanosleep(&hold, NULL);
	for (i = 0; i < n; i += 2)
		free(p[i]);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			printf("hwm %ld\n", atol(line + 6));
	if (f)
		fclose(f);
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "exec"))
		execl("/bin/true", "true", (char *)NULL);
	if (argc > 2 && !strcmp(argv[2], "kill"))
		kill(getpid(), SIGKILL);
	return 0;
}
