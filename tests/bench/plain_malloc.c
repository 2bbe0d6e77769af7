/*
 * plain_malloc - the reference for `make bench`: the loop a careful person
 * would write by hand to time malloc, with nothing of allocbench in it.
 *
 *   plain_malloc SIZE TOTAL_BYTES
 *
 * Maps and touches the pointer array first, then times COUNT calls of malloc,
 * each followed by a write of the chunk's first and last byte, and prints
 * the nanoseconds per allocation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	size_t size, count, i;
	struct timespec t0, t1;
	unsigned char **ptrs;

	if (argc != 3)
		return 2;
	size = strtoull(argv[1], NULL, 10);
	count = strtoull(argv[2], NULL, 10) / size;
	ptrs = mmap(NULL, count * sizeof(*ptrs), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptrs == MAP_FAILED)
		return 1;
	memset(ptrs, 0, count * sizeof(*ptrs));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < count; i++) {
		unsigned char *p = malloc(size);

		if (!p)
			return 1;
		((volatile unsigned char *)p)[0] = 1;
		((volatile unsigned char *)p)[size - 1] = 1;
		ptrs[i] = p;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
			  (double)(t1.tv_nsec - t0.tv_nsec)) / (double)count);
	for (i = 0; i < count; i++)
		free(ptrs[i]);
	return 0;
}
