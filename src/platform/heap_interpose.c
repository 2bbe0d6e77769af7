/*
 * heap_interpose.c - malloc and friends for the whole process (heap.h).
 *
 * Defined in the executable, these come before the C library's and any
 * LD_PRELOAD library's in the dynamic linker's search order, so every call
 * of malloc in the process lands here: the program's own, PAPI's, the C
 * library's internal ones (stdio, dlerror). In private mode (a measuring
 * process) they are served by the zone, and the measured allocator is left
 * exactly as the measured loops, which call it through heap_measured(),
 * find it. Out of private mode (the parent) they go to the measured
 * allocator, except for memory the zone gave out earlier.
 *
 * Linked into the allocbench binary only; never into sanitizer builds,
 * whose runtime must own malloc.
 */
#include "platform/heap.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

const int heap_interposed = 1;

/* The measured allocator; NULL only if the C library's cannot be found. */
static const struct heap_functions *next(void)
{
	return heap_measured();
}

void *malloc(size_t size);
void free(void *ptr);
void *calloc(size_t count, size_t size);
void *realloc(void *ptr, size_t size);
int posix_memalign(void **out, size_t align, size_t size);
void *aligned_alloc(size_t align, size_t size);
void *memalign(size_t align, size_t size);
void *valloc(size_t size);
void *pvalloc(size_t size);
size_t malloc_usable_size(void *ptr);

void *malloc(size_t size)
{
	if (heap_private_mode())
		return zone_malloc(size);
	return next()->malloc(size);
}

void free(void *ptr)
{
	if (!ptr)
		return;
	if (zone_owns(ptr))
		zone_free(ptr);
	else
		next()->free(ptr);
}

void *calloc(size_t count, size_t size)
{
	if (heap_private_mode())
		return zone_calloc(count, size);
	return next()->calloc(count, size);
}

void *realloc(void *ptr, size_t size)
{
	void *moved;

	if (!zone_owns(ptr)) {
		if (!ptr && heap_private_mode())
			return zone_malloc(size);
		/* The measured allocator's own block stays with it. */
		return next()->realloc(ptr, size);
	}
	if (heap_private_mode())
		return zone_realloc(ptr, size);
	/* Out of private mode, a block of the zone moves to the allocator. */
	moved = next()->malloc(size);
	if (moved) {
		size_t old = zone_usable_size(ptr);

		memcpy(moved, ptr, old < size ? old : size);
		zone_free(ptr);
	}
	return moved;
}

static int valid_alignment(size_t align)
{
	return align && !(align & (align - 1));
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *ptr;

	if (!valid_alignment(align) || align % sizeof(void *))
		return EINVAL;
	if (!heap_private_mode() && next()->posix_memalign)
		return next()->posix_memalign(out, align, size);
	ptr = memalign(align, size);
	if (!ptr)
		return ENOMEM;
	*out = ptr;
	return 0;
}

void *memalign(size_t align, size_t size)
{
	if (!valid_alignment(align)) {
		errno = EINVAL;
		return NULL;
	}
	if (heap_private_mode() || !next()->memalign)
		return zone_memalign(align, size);
	return next()->memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	if (!heap_private_mode() && next()->aligned_alloc)
		return next()->aligned_alloc(align, size);
	return memalign(align, size);
}

void *valloc(size_t size)
{
	return memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (size > SIZE_MAX - page) {
		errno = ENOMEM;
		return NULL;
	}
	return memalign(page, (size + page - 1) & ~(page - 1));
}

size_t malloc_usable_size(void *ptr)
{
	if (!ptr)
		return 0;
	if (zone_owns(ptr))
		return zone_usable_size(ptr);
	return next()->malloc_usable_size ? next()->malloc_usable_size(ptr) : 0;
}
