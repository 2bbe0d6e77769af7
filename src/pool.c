#include "pool.h"
#include "probe.h"
#include "util.h"

#include <errno.h>
#include <sys/mman.h>

/* Address space reserved when nothing smaller is needed: 64 GiB, no memory. */
#define POOL_DEFAULT_RESERVE ((size_t)64 << 30)

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

size_t pool_stride(size_t size, size_t align)
{
	if (size < POOL_MIN_CHUNK)
		size = POOL_MIN_CHUNK;
	return round_up(size, align);
}

int pool_init(struct pool *pool, size_t size, size_t align, size_t block_bytes)
{
	size_t page = (size_t)probe_page_size();
	size_t reserve, link_limit;
	unsigned shift = 0;
	void *base;

	memset(pool, 0, sizeof(*pool));
	pool->free_head = POOL_NIL;
	if (!size || !align || (align & (align - 1)) || align > 4096)
		return error("pool: invalid chunk size %zu or alignment %zu", size, align);
	while (((size_t)1 << shift) < align)
		shift++;
	pool->stride = pool_stride(size, align);
	pool->align_shift = shift;
	if (block_bytes < pool->stride)
		block_bytes = pool->stride;
	pool->block_bytes = round_up(block_bytes, page);

	/* A link counts alignments from the base in 32 bits, minus the NIL value. */
	link_limit = ((size_t)POOL_NIL) << shift;
	reserve = POOL_DEFAULT_RESERVE < link_limit ? POOL_DEFAULT_RESERVE : link_limit;
	reserve = reserve / pool->block_bytes * pool->block_bytes;
	if (!reserve)
		return error("pool: chunk of %zu bytes does not fit the link range", size);
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
}

void *pool_alloc_slow(struct pool *pool)
{
	unsigned char *chunk;

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
	return chunk;
}
