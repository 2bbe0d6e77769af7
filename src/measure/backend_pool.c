/*
 * backend_pool.c - fixed-size chunks on free lists (pool.h), like CFixedAlloc:
 * `pool` gives each thread its own pools, with no lock on the fast path;
 * `pool-locked` is one shared pool behind one mutex, as CFixedAlloc is.
 */
#include "measure/backend.h"
#include "platform/counters.h"
#include "platform/parse.h"
#include "measure/pool.h"
#include "measure/replay.h"
#include "measure/workloads.h"

#include <pthread.h>
#include <stdlib.h>

/* One pool per size of a random mix, joined so a free finds its chunk's pool. */
struct pool_mix {
	struct pool_group group;
	struct pool pools[MEASURE_MAX_MIX];
	size_t sizes[MEASURE_MAX_MIX];
	size_t n;
};

static int pool_mix_init(struct pool_mix *mix, const struct measure_params *params)
{
	if (pool_group_init(&mix->group))
		return -1;
	for (mix->n = 0; mix->n < params->nmix; mix->n++) {
		size_t size = params->mix[mix->n];
		size_t align = params->align ? params->align : natural_alignment(size);

		mix->sizes[mix->n] = size;
		if (pool_init(&mix->pools[mix->n], size, align, params->pool_block_bytes) ||
		    pool_group_add(&mix->group, &mix->pools[mix->n]))
			return -1;
	}
	return 0;
}

static void pool_mix_release(struct pool_mix *mix, struct sample *sample)
{
	for (size_t i = 0; i < mix->n; i++) {
		sample->reserved_bytes += (uint64_t)mix->pools[i].blocks * mix->pools[i].block_bytes;
		pool_release(&mix->pools[i]);
	}
	pool_group_release(&mix->group);
}

/* A handful of sizes: a linear search is what a size-to-pool table costs here. */
static inline void *pool_mix_alloc(struct pool_mix *mix, size_t size)
{
	for (size_t i = 0; i < mix->n; i++)
		if (mix->sizes[i] == size)
			return pool_alloc(&mix->pools[i]);
	return NULL;
}

static inline void pool_mix_free(struct pool_mix *mix, void *chunk)
{
	struct pool *owner = pool_group_find(&mix->group, chunk);

	if (owner)
		pool_free(owner, chunk);
}

/* ------------------------------------------------------------- pool */

static inline void *pool_backend_alloc(void *ctx, size_t size)
{
	(void)size;
	return pool_alloc(ctx);
}

static inline void pool_backend_release(void *ctx, void *chunk)
{
	pool_free(ctx, chunk);
}

static inline void *pool_mix_backend_alloc(void *ctx, size_t size)
{
	return pool_mix_alloc(ctx, size);
}

static inline void pool_mix_backend_release(void *ctx, void *chunk)
{
	pool_mix_free(ctx, chunk);
}

/* The threads workload: each thread gets its own pool in one group. */
struct pool_threads {
	struct pool_group group;
	struct pool pools[MEASURE_MAX_THREADS];
	unsigned n;
	size_t size, align, block_bytes;
};

static int pool_threads_attach(void *shared, unsigned index, void **ctx)
{
	struct pool_threads *t = shared;

	while (t->n <= index) {
		if (pool_init(&t->pools[t->n], t->size, t->align, t->block_bytes) ||
		    pool_group_add(&t->group, &t->pools[t->n]))
			return -1;
		t->n++;
	}
	*ctx = &t->pools[index];
	return 0;
}

static void *pool_thread(void *job)
{
	return threads_body(job, pool_backend_alloc, pool_backend_release, NULL);
}

static int pool_run_threads(const struct measure_params *params, struct sample *sample)
{
	static struct pool_threads t;
	int ret;

	t.n = 0;
	t.size = params->size;
	t.align = params->align;
	t.block_bytes = params->pool_block_bytes;
	if (pool_group_init(&t.group))
		return sample_fail(sample, "cannot initialise the pools");
	ret = measure_threads(params, sample, &t, pool_threads_attach, pool_thread);
	for (unsigned i = 0; i < t.n; i++) {
		sample->reserved_bytes += (uint64_t)t.pools[i].blocks * t.pools[i].block_bytes;
		pool_release(&t.pools[i]);
	}
	pool_group_release(&t.group);
	return ret;
}

/* The pool's figures for the program's own events, from its own fields. */
static long long pool_read_blocks(const void *ctx)
{
	const struct pool *pool = ctx;

	return (long long)pool->blocks;
}

static long long pool_read_bytes_reserved(const void *ctx)
{
	const struct pool *pool = ctx;

	return (long long)(pool->blocks * pool->block_bytes);
}

/*
 * Gives pool_blocks and pool_bytes_reserved from POOL until called with NULL,
 * which cannot fail once attaching did. Returns 0, or -1 after an error.
 */
static int pool_attach_counters(const struct pool *pool)
{
	if (counters_attach_reader("pool_blocks", pool ? pool_read_blocks : NULL, pool) ||
	    counters_attach_reader("pool_bytes_reserved",
				   pool ? pool_read_bytes_reserved : NULL, pool))
		return -1;
	return 0;
}

static int pool_run(const struct measure_params *params, struct sample *sample)
{
	struct pool pool;
	int ret;

	if (params->workload == WORKLOAD_THREADS)
		return pool_run_threads(params, sample);
	if (params->workload == WORKLOAD_REPLAY)
		return replay_run_pool(params, sample);
	if (params->workload == WORKLOAD_RANDOM) {
		static struct pool_mix mix;

		if (pool_mix_init(&mix, params)) {
			pool_mix_release(&mix, sample);
			return sample_fail(sample, "cannot initialise the pools");
		}
		ret = measure_random(params, sample, params->plan, &mix, pool_mix_backend_alloc,
				     pool_mix_backend_release);
		pool_mix_release(&mix, sample);
		return ret;
	}
	if (pool_init(&pool, params->size, params->align, params->pool_block_bytes))
		return sample_fail(sample, "cannot initialise the pool");
	if (pool_attach_counters(&pool)) {
		pool_release(&pool);
		return sample_fail(sample, "cannot attach the pool's counters");
	}
	/* A pool keeps its blocks for reuse: its free cost is the free loop alone. */
	if (params->workload == WORKLOAD_CHURN)
		ret = measure_churn(params, sample, &pool, pool_backend_alloc, pool_backend_release, NULL);
	else
		ret = measure_fill(params, sample, &pool, pool_backend_alloc, pool_backend_release, NULL);
	pool_attach_counters(NULL);
	sample->reserved_bytes = (uint64_t)pool.blocks * pool.block_bytes;
	pool_release(&pool);
	return ret;
}

const struct backend backend_pool = {
	.name = "pool",
	.summary = "fixed-size chunks on per-thread free lists, no lock",
	.uses_align = 1,
	.run = pool_run,
};

/* ------------------------------------------------------ pool-locked */

/* One pool (or one mix of pools) shared by every thread behind one mutex. */
struct locked_pool {
	pthread_mutex_t lock;
	struct pool pool;
	struct pool_mix *mix;   /* random: the pools of the mix, else NULL */
};

static inline void *locked_alloc(void *ctx, size_t size)
{
	struct locked_pool *l = ctx;
	void *chunk;

	pthread_mutex_lock(&l->lock);
	chunk = l->mix ? pool_mix_alloc(l->mix, size) : pool_alloc(&l->pool);
	pthread_mutex_unlock(&l->lock);
	return chunk;
}

static inline void locked_release(void *ctx, void *chunk)
{
	struct locked_pool *l = ctx;

	pthread_mutex_lock(&l->lock);
	if (l->mix)
		pool_mix_free(l->mix, chunk);
	else
		pool_free(&l->pool, chunk);
	pthread_mutex_unlock(&l->lock);
}

static int locked_attach(void *shared, unsigned index, void **ctx)
{
	(void)index;
	*ctx = shared;
	return 0;
}

static void *locked_thread(void *job)
{
	return threads_body(job, locked_alloc, locked_release, NULL);
}

static int pool_locked_run(const struct measure_params *params, struct sample *sample)
{
	static struct pool_mix mix;
	struct locked_pool l = { .lock = PTHREAD_MUTEX_INITIALIZER };
	int ret;

	if (params->workload == WORKLOAD_REPLAY)
		return sample_fail(sample, "pool-locked does not replay a trace: its size classes are "
				   "the pool backend's (replay on pool)");
	if (params->workload == WORKLOAD_RANDOM) {
		l.mix = &mix;
		if (pool_mix_init(&mix, params)) {
			pool_mix_release(&mix, sample);
			return sample_fail(sample, "cannot initialise the pools");
		}
		ret = measure_random(params, sample, params->plan, &l, locked_alloc, locked_release);
		pool_mix_release(&mix, sample);
		return ret;
	}
	if (pool_init(&l.pool, params->size, params->align, params->pool_block_bytes))
		return sample_fail(sample, "cannot initialise the pool");
	if (pool_attach_counters(&l.pool)) {
		pool_release(&l.pool);
		return sample_fail(sample, "cannot attach the pool's counters");
	}
	switch (params->workload) {
	case WORKLOAD_FILL:
		ret = measure_fill(params, sample, &l, locked_alloc, locked_release, NULL);
		break;
	case WORKLOAD_CHURN:
		ret = measure_churn(params, sample, &l, locked_alloc, locked_release, NULL);
		break;
	default:
		ret = measure_threads(params, sample, &l, locked_attach, locked_thread);
		break;
	}
	pool_attach_counters(NULL);
	sample->reserved_bytes = (uint64_t)l.pool.blocks * l.pool.block_bytes;
	pool_release(&l.pool);
	return ret;
}

const struct backend backend_pool_locked = {
	.name = "pool-locked",
	.summary = "one pool behind one mutex, like CFixedAlloc",
	.uses_align = 1,
	.run = pool_locked_run,
};
