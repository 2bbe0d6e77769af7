/*
 * alloc_heavy.c - an allocation-heavy single-threaded program for make
 * bench's recording overhead: N steps over a live set of 4096 chunks of
 * mixed sizes, each step freeing one chunk and allocating another (and a
 * realloc every 16th), with a little work on each chunk, as an
 * interpreter's heap sees it. Prints a checksum so nothing is optimised
 * away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 5000000;
	static unsigned char *live[4096];
	unsigned seed = 1, sum = 0;

	for (long i = 0; i < steps; i++) {
		unsigned k = (seed = seed * 1103515245u + 12345u) >> 20 & 4095;
		size_t size = 8 + (seed >> 8) % 200;

		free(live[k]);
		live[k] = malloc(size);
		if (!live[k])
			return 1;
		memset(live[k], (int)i, 8);
		if (i % 16 == 0) {
			unsigned char *p = realloc(live[k], size * 2);

			if (!p)
				return 1;
			live[k] = p;
		}
		sum += live[k][0];
	}
	for (int k = 0; k < 4096; k++)
		free(live[k]);
	printf("%u\n", sum);
	return 0;
}
