/* backend_malloc.c - the C library's malloc and free, or whatever is preloaded. */
#include "allocator.h"
#include "backend.h"

#include <stdlib.h>

static inline void *libc_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return malloc(size);
}

static inline void libc_release(void *ctx, void *chunk)
{
	(void)ctx;
	free(chunk);
}

/*
 * After the fill, allocator_inspect() records which allocator served malloc
 * (glibc, or whatever is preloaded), the usable size of its chunks and its
 * own statistics: the split of the overhead into slack and metadata.
 */
static int malloc_run(const struct measure_params *params, struct sample *sample)
{
	return measure_fill_inspect(params, sample, NULL, libc_alloc, libc_release, NULL,
				    allocator_inspect);
}

const struct backend backend_malloc = {
	.name = "malloc",
	.summary = "the C library's malloc/free (or a preloaded allocator)",
	.uses_align = 0,
	.run = malloc_run,
};
