/*
 * sparse - a program that mallocs far more than it touches, as one that
 * sizes a buffer for the worst case does: MIB MiB in chunks of 1 MiB, of
 * each chunk only its first 1/RATIO written, all held at once, then freed.
 *
 *   sparse MIB RATIO
 *
 * Its peak anonymous memory is about MIB/RATIO MiB under any allocator;
 * a replay that writes every byte it allocates holds MIB MiB (t1412).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK (1u << 20)

int main(int argc, char **argv)
{
	unsigned long mib, ratio;
	char **p;

	if (argc != 3 || !(mib = strtoul(argv[1], NULL, 10)) || !(ratio = strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "usage: sparse MIB RATIO\n");
		return 2;
	}
	if (!(p = calloc(mib, sizeof(*p))))
		return 1;
	for (unsigned long i = 0; i < mib; i++) {
		if (!(p[i] = malloc(CHUNK)))
			return 1;
		memset(p[i], (int)i, CHUNK / ratio);
	}
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	for (unsigned long i = 0; i < mib; i++)
		free(p[i]);
	free(p);
	return 0;
}
