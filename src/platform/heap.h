/*
 * heap.h - the measured allocator, and a private one for everything else.
 *
 * A measuring process must leave the allocator as a fresh program finds it:
 * any malloc and free before the measured loop changes its state (glibc's
 * dynamic mmap threshold rises when PAPI's set-up frees a large block, and
 * 128 KiB chunks then come from the heap instead of mmap; a third-party
 * allocator's thread cache and size-class runs fill up). So the program has
 * two heaps:
 *
 *   - the measured one, the C library's malloc or the preloaded allocator,
 *     which only the measured loops call, through heap_measured();
 *   - the private one (this file's zone: its own mappings, power-of-two
 *     size classes, one lock), which serves every other call of malloc,
 *     calloc, realloc, free and the aligned variants in a measuring process:
 *     PAPI and libpfm, stdio, reading /proc, the C library's own needs.
 *
 * heap_interpose.c defines malloc and friends in the executable, which the
 * dynamic linker finds before the C library and any LD_PRELOAD library, and
 * routes each call by heap_private_mode(). It is left out of sanitizer
 * builds (the sanitizers must own malloc) and out of the unit tests; there
 * the private mode has no effect and everything is the measured heap.
 */
#ifndef ALLOCBENCH_HEAP_H
#define ALLOCBENCH_HEAP_H

#include <stddef.h>

/* The functions of the measured allocator (the next definition after ours). */
struct heap_functions {
	void *(*malloc)(size_t size);
	void (*free)(void *ptr);
	void *(*calloc)(size_t count, size_t size);
	void *(*realloc)(void *ptr, size_t size);
	int (*posix_memalign)(void **out, size_t align, size_t size);
	void *(*aligned_alloc)(size_t align, size_t size);
	void *(*memalign)(size_t align, size_t size);
	size_t (*malloc_usable_size)(void *ptr);
};

/*
 * The measured allocator's functions, found with dlsym(RTLD_NEXT) on the
 * first call (which may allocate: call it once before anything is measured).
 * NULL when malloc, free, calloc or realloc cannot be found.
 */
const struct heap_functions *heap_measured(void);

/*
 * Private mode, on from the start of every process: calls of malloc & co.
 * that do not go through heap_measured() are served by the private zone.
 * heap_private_end() turns it off for good (the parent, which measures
 * nothing, uses the C library's allocator for its own work); memory the zone
 * gave out before is still freed and reallocated correctly afterwards.
 */
int heap_private_mode(void);
void heap_private_end(void);

/* Whether the interposer is in this binary (0 in sanitizer builds and unit tests). */
extern const int heap_interposed;

/* The private zone. Thread-safe; never calls malloc. */
void *zone_malloc(size_t size);
void *zone_calloc(size_t count, size_t size);
void *zone_realloc(void *ptr, size_t size);
void *zone_memalign(size_t align, size_t size);  /* ALIGN a power of two */
void zone_free(void *ptr);
size_t zone_usable_size(const void *ptr);
/* Whether PTR was given out by the zone (NULL is not). */
int zone_owns(const void *ptr);
/* Bytes the zone has mapped so far (its resident share is at most this). */
size_t zone_mapped_bytes(void);

#endif
