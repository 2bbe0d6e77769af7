/*
 * busy - the load of tests/hoststate.sh's busy state, one process a job:
 *
 *   busy cpu        spins on one CPU until killed
 *   busy mem MIB    maps MIB MiB, writes every page, unmaps, again, until
 *                   killed: the kernel keeps zeroing, faulting and freeing
 *                   pages beside the measurement
 *
 * Plain C, no allocbench code: built by hoststate.sh itself with cc.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "cpu")) {
		for (volatile unsigned long n = 0;; n++)
			;
	}
	if (argc == 3 && !strcmp(argv[1], "mem")) {
		size_t bytes = strtoull(argv[2], NULL, 10) << 20;

		for (;;) {
			volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return 1;
			for (size_t i = 0; i < bytes; i += 4096)
				p[i] = 1;
			munmap((void *)p, bytes);
		}
	}
	return 2;
}
