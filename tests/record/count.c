/*
 * count.c - the tests' own minimal counting preload (libcount.so), written
 * independently of the recorder: it calls the C library's __libc_*
 * functions directly (no dlsym, no trace, no order), and adds one to a
 * counter per call, by kind, in a file mapped MAP_SHARED, so that every
 * call up to the process's last instruction is counted, exit or crash.
 *
 * Each process counts into ABCOUNT_FILE.PID, created with the counters at
 * zero by its first call (a fork child's first call after the fork; the
 * image an exec starts truncates it again). tests/cli/t1400-record.sh
 * compares the counts with `allocbench report`'s for the same program.
 * The file holds 10 unsigned 64-bit counters: malloc, calloc, realloc,
 * free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc, and
 * the total. reallocarray counts as realloc (the recorder records it so).
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

#define EXPORT __attribute__((visibility("default")))

enum { C_MALLOC, C_CALLOC, C_REALLOC, C_FREE, C_POSIX_MEMALIGN, C_ALIGNED_ALLOC, C_MEMALIGN,
       C_VALLOC, C_PVALLOC, C_TOTAL, C_N };

static uint64_t *counts;   /* the mapping, or NULL when this process does not count */
static int state;          /* 0 not set up, 1 setting up, 2 done */

static void setup(void)
{
	const char *path = getenv("ABCOUNT_FILE");
	char name[4096];
	int expected = 0, fd;
	void *map;

	if (!__atomic_compare_exchange_n(&state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* Another thread is setting up: wait for it, so that no call goes uncounted. */
		while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 1)
			sched_yield();
		return;
	}
	if (path && (size_t)snprintf(name, sizeof(name), "%s.%ld", path, (long)getpid()) < sizeof(name)) {
		fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0 && !ftruncate(fd, C_N * sizeof(uint64_t))) {
			map = mmap(NULL, C_N * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (map != MAP_FAILED)
				counts = map;
		}
		if (fd >= 0)
			close(fd);
	}
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}

/* The child of a fork counts into a file of its own, from zero. */
static void fork_child(void)
{
	if (counts)
		munmap(counts, C_N * sizeof(uint64_t));
	counts = NULL;
	__atomic_store_n(&state, 0, __ATOMIC_RELEASE);
}

/* Set up before main, where no signal handler can interrupt the set-up. */
__attribute__((constructor)) static void start(void)
{
	pthread_atfork(NULL, NULL, fork_child);
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
		setup();
}

static void count(int kind)
{
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
		setup();
	if (counts) {
		__atomic_fetch_add(&counts[kind], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&counts[C_TOTAL], 1, __ATOMIC_RELAXED);
	}
}

EXPORT void *malloc(size_t n) { count(C_MALLOC); return __libc_malloc(n); }
EXPORT void *calloc(size_t n, size_t m) { count(C_CALLOC); return __libc_calloc(n, m); }
EXPORT void *realloc(void *p, size_t n) { count(C_REALLOC); return __libc_realloc(p, n); }
EXPORT void free(void *p) { count(C_FREE); __libc_free(p); }
EXPORT void *memalign(size_t a, size_t n) { count(C_MEMALIGN); return __libc_memalign(a, n); }
EXPORT void *aligned_alloc(size_t a, size_t n) { count(C_ALIGNED_ALLOC); return __libc_memalign(a, n); }
EXPORT void *valloc(size_t n) { count(C_VALLOC); return __libc_valloc(n); }
EXPORT void *pvalloc(size_t n) { count(C_PVALLOC); return __libc_pvalloc(n); }

EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, m, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, bytes);
}

EXPORT int posix_memalign(void **out, size_t a, size_t n)
{
	void *p;

	count(C_POSIX_MEMALIGN);
	if (!a || (a & (a - 1)) || a % sizeof(void *))
		return EINVAL;
	p = __libc_memalign(a, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
