/*
 * mapspin - a program that allocates past malloc, as a runtime with an
 * allocator of its own does (Go's, the JVM's): maps MIB MiB itself, writes
 * every page, and spins for SECONDS of CPU time holding them, calling
 * malloc only as its C library does, and for CHUNKS chunks of 64 bytes,
 * written and kept to the end.
 *
 *   mapspin MIB SECONDS [CHUNKS]
 *
 * record's note on few calls for the CPU time (t1406) is for such a
 * program, not for one that simply allocates little. Its replay holds
 * the chunks alone, far below the program: advise then replays each
 * drop-in allocator --repeat times (t1412).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	size_t bytes;
	double seconds;
	char *p;
	volatile unsigned long spin = 0;
	unsigned long chunks;

	if ((argc != 3 && argc != 4) || (bytes = strtoul(argv[1], NULL, 10) << 20) == 0 ||
	    (seconds = strtod(argv[2], NULL)) <= 0) {
		fputs("mapspin: usage: mapspin MIB SECONDS [CHUNKS]\n", stderr);
		return 2;
	}
	chunks = argc == 4 ? strtoul(argv[3], NULL, 10) : 0;
	for (unsigned long i = 0; i < chunks; i++) {
		char *c = malloc(64);

		if (!c)
			return 1;
		memset(c, 1, 64);  /* kept to the end, as the mapping is */
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mapspin: mmap");
		return 1;
	}
	memset(p, 1, bytes);
	while ((double)clock() / CLOCKS_PER_SEC < seconds)
		spin++;
	return p[bytes - 1] == 1 ? 0 : 1;
}
