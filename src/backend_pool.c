/* backend_pool.c - fixed-size blocks on a free list (pool.h), like CFixedAlloc. */
#include "backend.h"
#include "pool.h"

static inline void *pool_backend_alloc(void *ctx, size_t size)
{
	(void)size;
	return pool_alloc(ctx);
}

static inline void pool_backend_release(void *ctx, void *chunk)
{
	pool_free(ctx, chunk);
}

static int pool_run(const struct measure_params *params, struct sample *sample)
{
	struct pool pool;
	int ret;

	if (pool_init(&pool, params->size, params->align, params->pool_block_bytes))
		return sample_fail(sample, "cannot initialise the pool");
	/*
	 * The pool's blocks are returned after the figures are taken: pool_release()
	 * unmaps the reservation, which measure_fill() would time as part of free.
	 * A pool keeps its blocks for reuse, so its free cost is the free loop alone.
	 */
	counters_attach_pool(&pool);
	ret = measure_fill(params, sample, &pool, pool_backend_alloc, pool_backend_release, NULL);
	counters_attach_pool(NULL);
	sample->reserved_bytes = (uint64_t)pool.blocks * pool.block_bytes;
	pool_release(&pool);
	return ret;
}

const struct backend backend_pool = {
	.name = "pool",
	.summary = "fixed-size chunks from blocks, recycled on a free list (like CFixedAlloc)",
	.uses_align = 1,
	.run = pool_run,
};
