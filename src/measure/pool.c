#include "measure/pool.h"
#include "platform/probe.h"
#include "platform/util.h"

#include <errno.h>
#include <sys/mman.h>

/*
 * Address space reserved when nothing smaller is needed: 64 GiB, no memory;
 * 1 GiB in a 32-bit process (run --abi 32), whose whole address space is 4.
 */
#define POOL_DEFAULT_RESERVE (SIZE_MAX > UINT32_MAX ? (size_t)((uint64_t)64 << 30) : \
			      (size_t)1 << 30)

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* Bytes of the chunk that pool_alloc() returns for SIZE at ALIGN. */
static size_t pool_stride(size_t size, size_t align)
{
	if (size < POOL_MIN_CHUNK)
		size = POOL_MIN_CHUNK;
	return round_up(size, align);
}

/* log2 of ALIGN, a power of two. */
static unsigned align_shift_of(size_t align)
{
	unsigned shift = 0;

	while (((size_t)1 << shift) < align)
		shift++;
	return shift;
}

/* The address space one pool reserves at ALIGN: 64 GiB or its links' range. */
static size_t reserve_limit(size_t align)
{
	/* A link counts alignments from the base in 32 bits, minus the NIL value. */
	uint64_t link_limit = ((uint64_t)POOL_NIL) << align_shift_of(align);

	return POOL_DEFAULT_RESERVE < link_limit ? POOL_DEFAULT_RESERVE : (size_t)link_limit;
}

size_t pool_block_limit(size_t align)
{
	size_t page = (size_t)probe_page_size();

	return reserve_limit(align) / page * page;
}

int pool_init(struct pool *pool, size_t size, size_t align, size_t block_bytes)
{
	return pool_init_within(pool, size, align, block_bytes, SIZE_MAX);
}

int pool_init_within(struct pool *pool, size_t size, size_t align, size_t block_bytes,
		     size_t reserve_max)
{
	size_t page = (size_t)probe_page_size();
	size_t reserve;
	unsigned shift;
	void *base;

	memset(pool, 0, sizeof(*pool));
	pool->free_head = POOL_NIL;
	atomic_init(&pool->remote_head, POOL_NIL);
	if (!size || !align || (align & (align - 1)) || align > 4096)
		return error("pool: invalid chunk size %zu or alignment %zu", size, align);
	shift = align_shift_of(align);
	pool->stride = pool_stride(size, align);
	pool->align_shift = shift;
	pool->block_bytes = round_up(block_bytes < pool->stride ? pool->stride : block_bytes, page);

	reserve = reserve_limit(align);
	if (reserve_max < reserve)
		reserve = reserve_max < pool->block_bytes ? pool->block_bytes : reserve_max;
	reserve = reserve / pool->block_bytes * pool->block_bytes;
	if (!reserve && block_bytes < pool->stride)
		return error("pool: a chunk of %zu bytes is more than the %zu bytes a pool "
			     "can address at alignment %zu", size, pool_block_limit(align), align);
	if (!reserve)
		return error("pool: a block of %zu bytes (--pool-block) is more than the %zu "
			     "bytes a pool can address at alignment %zu", pool->block_bytes,
			     pool_block_limit(align), align);
	/* Under a small `ulimit -v`, settle for less address space. */
	for (;;) {
		base = mmap(NULL, reserve, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (base != MAP_FAILED)
			break;
		if (reserve <= pool->block_bytes)
			return error("pool: cannot reserve address space: %s", strerror(errno));
		reserve = reserve / 2 / pool->block_bytes * pool->block_bytes;
		if (!reserve)
			reserve = pool->block_bytes;
	}
	pool->base = base;
	pool->fresh = base;
	pool->committed_end = base;
	pool->reserved_end = pool->base + reserve;
	pool->reserved_bytes = reserve;
	return 0;
}

void pool_release(struct pool *pool)
{
	if (pool->base)
		munmap(pool->base, pool->reserved_bytes);
	memset(pool, 0, sizeof(*pool));
	pool->free_head = POOL_NIL;
	atomic_init(&pool->remote_head, POOL_NIL);
}

int pool_group_init(struct pool_group *group)
{
	memset(group, 0, sizeof(*group));
	atomic_init(&group->npools, 0);
	if (pthread_mutex_init(&group->lock, NULL))
		return error("pool: cannot create a mutex");
	return 0;
}

int pool_group_add(struct pool_group *group, struct pool *pool)
{
	size_t n;

	pthread_mutex_lock(&group->lock);
	n = atomic_load_explicit(&group->npools, memory_order_relaxed);
	if (n == POOL_GROUP_MAX) {
		pthread_mutex_unlock(&group->lock);
		return error("pool: more than %d pools in one group", POOL_GROUP_MAX);
	}
	group->pools[n] = pool;
	pool->group = group;
	/* Readers that see the new count see the pointer too. */
	atomic_store_explicit(&group->npools, n + 1, memory_order_release);
	pthread_mutex_unlock(&group->lock);
	return 0;
}

struct pool *pool_group_find(struct pool_group *group, const void *chunk)
{
	size_t n = atomic_load_explicit(&group->npools, memory_order_acquire);

	for (size_t i = 0; i < n; i++) {
		struct pool *p = group->pools[i];

		if ((uintptr_t)chunk - (uintptr_t)p->base < p->reserved_bytes)
			return p;
	}
	return NULL;
}

void pool_group_release(struct pool_group *group)
{
	pthread_mutex_destroy(&group->lock);
	memset(group, 0, sizeof(*group));
}

int pool_free_foreign(struct pool *pool, void *chunk)
{
	struct pool *owner = pool->group ? pool_group_find(pool->group, chunk) : NULL;
	uint32_t link, head;

	if (!owner || owner == pool)
		return -1;
	link = (uint32_t)(((uintptr_t)chunk - (uintptr_t)owner->base) >> owner->align_shift);
	head = atomic_load_explicit(&owner->remote_head, memory_order_relaxed);
	do {
		/* The link must be in the chunk before the chunk is published. */
		memcpy(chunk, &head, sizeof(head));
	} while (!atomic_compare_exchange_weak_explicit(&owner->remote_head, &head, link,
							memory_order_release,
							memory_order_relaxed));
	return 0;
}

void *pool_alloc_slow(struct pool *pool)
{
	unsigned char *chunk;
	uint32_t remote;

	/* Chunks other threads gave back come before a new block. */
	remote = atomic_exchange_explicit(&pool->remote_head, POOL_NIL, memory_order_acquire);
	if (remote != POOL_NIL) {
		pool->free_head = remote;
		return pool_alloc(pool);
	}

	if (!pool->base || (size_t)(pool->reserved_end - pool->committed_end) < pool->block_bytes)
		return NULL;
	if (mprotect(pool->committed_end, pool->block_bytes, PROT_READ | PROT_WRITE))
		return NULL;
	pool->committed_end += pool->block_bytes;
	pool->blocks++;
	if (pool->stride > (size_t)(pool->committed_end - pool->fresh))
		return NULL;
	chunk = pool->fresh;
	pool->fresh += pool->stride;
	pool->live++;
	return chunk;
}
