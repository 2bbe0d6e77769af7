/*
 * slow_malloc - a preload for tests/gate-rates.sh: every malloc spins
 * ALLOCBENCH_SLOW_SPIN iterations of an empty loop (default 0), then calls
 * the C library's. The rates script calibrates the spin to add about 20% to
 * each malloc's time (tests/bench/malloc_cost.c measures it) and checks that
 * the CI recipe catches it on the malloc rows. glibc only (__libc_malloc).
 *
 *   cc -O2 -shared -fPIC -o libslow_malloc.so tests/bench/slow_malloc.c
 *   LD_PRELOAD=./libslow_malloc.so ALLOCBENCH_SLOW_SPIN=20 PROGRAM
 */
#include <stddef.h>
#include <stdlib.h>

void *__libc_malloc(size_t size);

static unsigned spin;

__attribute__((constructor)) static void slow_malloc_init(void)
{
	const char *s = getenv("ALLOCBENCH_SLOW_SPIN");

	spin = s ? (unsigned)strtoul(s, NULL, 10) : 0;
}

void *malloc(size_t size)
{
	for (unsigned i = spin; i; i--)
		__asm__ volatile("");
	return __libc_malloc(size);
}
