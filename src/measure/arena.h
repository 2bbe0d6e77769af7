/*
 * arena.h - bump allocation into one preallocated region, in the spirit of
 * placement new into a buffer: each allocation moves a pointer forward, a
 * single chunk is never freed, and the whole region is released at once.
 *
 * The region is mapped up front but no page of it is touched, so it costs
 * resident memory only as chunks are written.
 */
#ifndef ALLOCBENCH_ARENA_H
#define ALLOCBENCH_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct arena {
	unsigned char *base;     /* start of the region */
	unsigned char *next;     /* first byte not yet handed out */
	unsigned char *end;      /* end of the region */
	size_t capacity_bytes;   /* length of the region */
};

/*
 * Maps a region of CAPACITY_BYTES (> 0) for ARENA. Returns 0, or -1 after
 * printing why.
 */
int arena_init(struct arena *arena, size_t capacity_bytes);

/* Unmaps the region: every chunk is released at once. */
void arena_release(struct arena *arena);

/*
 * Returns SIZE bytes aligned to ALIGN (a power of two), or NULL when the
 * region is used up.
 */
static inline void *arena_alloc(struct arena *arena, size_t size, size_t align)
{
	uintptr_t chunk = ((uintptr_t)arena->next + align - 1) & ~(uintptr_t)(align - 1);

	if (chunk > (uintptr_t)arena->end || size > (uintptr_t)arena->end - chunk)
		return NULL;
	arena->next = (unsigned char *)(chunk + size);
	return (void *)chunk;
}

#endif
