/*
 * mapspin - a program that allocates past malloc, as a runtime with an
 * allocator of its own does (Go's, the JVM's): maps MIB MiB itself, writes
 * every page, and spins for SECONDS of CPU time holding them, calling
 * malloc only as its C library does.
 *
 *   mapspin MIB SECONDS
 *
 * record's note on few calls for the CPU time (t1406) is for such a
 * program, not for one that simply allocates little.
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

	if (argc != 3 || (bytes = strtoul(argv[1], NULL, 10) << 20) == 0 ||
	    (seconds = strtod(argv[2], NULL)) <= 0) {
		fputs("mapspin: usage: mapspin MIB SECONDS\n", stderr);
		return 2;
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
