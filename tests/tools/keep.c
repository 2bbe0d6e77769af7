/*
 * keep - a program whose memory falls after its peak, as a server's after
 * a burst: MIB MiB in chunks of 1000 bytes, each written, then all but
 * the oldest eighth freed, newest first; it holds what is left for 100 ms
 * and prints its own RssAnon then, in KiB, read from /proc/self/status;
 * with FILE, appends it there after its LD_PRELOAD ("-" for none), one
 * line per run, where a caller that discards its output can read it.
 *
 *   keep MIB [FILE]
 *
 * What the allocator gives back of the freed seven eighths is its own
 * choice: glibc cannot trim its heap below the chunks its thread cache
 * keeps at the top, tbbmalloc gives most back (t1412 checks advise's real
 * runs against the figure written). It ends with _exit, so that no
 * allocator gives back more in a destructor after its reading (tbbmalloc
 * does: 6.5 instead of 8 MiB, in a reading between the two).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 1000u

int main(int argc, char **argv)
{
	unsigned long mib, n, kept, rss = 0;
	const char *preload = getenv("LD_PRELOAD"), *at;
	char **p, status[4096];
	FILE *out = stdout;
	ssize_t len;
	int fd;

	if (argc < 2 || argc > 3 || !(mib = strtoul(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: keep MIB [FILE]\n");
		return 2;
	}
	n = mib * (1u << 20) / CHUNK;
	kept = n / 8;
	if (!(p = calloc(n, sizeof(*p))))
		return 1;
	for (unsigned long i = 0; i < n; i++) {
		if (!(p[i] = malloc(CHUNK)))
			return 1;
		memset(p[i], (int)i, CHUNK);
	}
	for (unsigned long i = n; i-- > kept;)
		free(p[i]);
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	/* Read before anything allocates again: stdio would. */
	if ((fd = open("/proc/self/status", O_RDONLY)) < 0 ||
	    (len = read(fd, status, sizeof(status) - 1)) <= 0)
		return 1;
	close(fd);
	status[len] = '\0';
	if ((at = strstr(status, "\nRssAnon:")))
		rss = strtoul(at + 9, NULL, 10);
	if (argc == 3) {
		if (!(out = fopen(argv[2], "a")))
			return 1;
		fprintf(out, "%s ", preload && *preload ? preload : "-");
	}
	fprintf(out, "%lu\n", rss);
	/* No exit handlers: an allocator's destructor would give back more after the reading. */
	_exit(fclose(out) ? 1 : 0);
}
