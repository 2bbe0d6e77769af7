/*
 * pool.h - fixed-size chunks handed out from blocks and recycled through a
 * free list kept inside the free chunks, in the spirit of MFC's CFixedAlloc.
 *
 * Where CFixedAlloc asks the C runtime for each block (and pays its header and
 * rounding), this pool reserves one range of address space up front, without
 * memory behind it, and takes blocks from it in order with mprotect. The
 * blocks are therefore adjacent: no header, no rounding of a block to pages,
 * and the only overhead per chunk is the padding of the size to the
 * alignment. A free chunk holds a 32-bit link (its offset from the base in
 * units of the alignment), so chunks as small as 4 bytes pack like an array.
 *
 * Not thread-safe: one pool per thread, or a lock around it.
 */
#ifndef ALLOCBENCH_POOL_H
#define ALLOCBENCH_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define POOL_NIL UINT32_MAX   /* the link that ends the free list */
#define POOL_MIN_CHUNK 4      /* a free chunk must hold its 32-bit link */

struct pool {
	unsigned char *base;          /* start of the reserved range */
	unsigned char *fresh;         /* next chunk never handed out */
	unsigned char *committed_end; /* end of the blocks taken so far */
	unsigned char *reserved_end;  /* end of the reserved range */
	size_t stride;                /* bytes per chunk: size padded to align, >= 4 */
	size_t block_bytes;           /* bytes taken from the system per block */
	size_t reserved_bytes;        /* length of the reserved range */
	size_t blocks;                /* blocks taken so far */
	unsigned align_shift;         /* log2(alignment); links count in alignments */
	uint32_t free_head;           /* link of the first free chunk, or POOL_NIL */
};

/*
 * Prepares POOL for chunks of SIZE bytes aligned to ALIGN (a power of two,
 * 1 to 4096), taking BLOCK_BYTES (rounded up to whole pages and to at least
 * one chunk) from the system at a time. Reserves address space but touches
 * no memory. Returns 0, or -1 after printing why (bad arguments, no address
 * space).
 */
int pool_init(struct pool *pool, size_t size, size_t align, size_t block_bytes);

/* Returns every block to the system. POOL may be initialised again. */
void pool_release(struct pool *pool);

/* Takes the next block; returns its first chunk or NULL when the reservation is used up. */
void *pool_alloc_slow(struct pool *pool);

/* Bytes of the chunk that pool_alloc() returns for SIZE at ALIGN. */
size_t pool_stride(size_t size, size_t align);

/* Returns a chunk: a freed one first, else the next fresh one, else a new block. */
static inline void *pool_alloc(struct pool *pool)
{
	if (pool->free_head != POOL_NIL) {
		unsigned char *chunk = pool->base + ((size_t)pool->free_head << pool->align_shift);

		memcpy(&pool->free_head, chunk, sizeof(pool->free_head));
		return chunk;
	}
	if (pool->stride <= (size_t)(pool->committed_end - pool->fresh)) {
		unsigned char *chunk = pool->fresh;

		pool->fresh += pool->stride;
		return chunk;
	}
	return pool_alloc_slow(pool);
}

/* Puts CHUNK, which pool_alloc() returned, at the head of the free list. */
static inline void pool_free(struct pool *pool, void *chunk)
{
	uint32_t link = (uint32_t)(((unsigned char *)chunk - pool->base) >> pool->align_shift);

	memcpy(chunk, &pool->free_head, sizeof(pool->free_head));
	pool->free_head = link;
}

#endif
