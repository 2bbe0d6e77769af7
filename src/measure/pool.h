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
 * Threads: a pool belongs to one thread, its owner, which alone allocates
 * from it and frees to its free list without a lock or an atomic operation
 * (as concurrency::Alloc keeps a cache per thread). A chunk freed by another
 * thread is pushed onto the owner's "remote" list, a lock-free stack the
 * owner takes whole when its own free list runs dry, before it takes a new
 * block. The pools that may exchange chunks are joined in a pool_group.
 */
#ifndef ALLOCBENCH_POOL_H
#define ALLOCBENCH_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define POOL_NIL UINT32_MAX   /* the link that ends the free list */
#define POOL_MIN_CHUNK 4      /* a free chunk must hold its 32-bit link */

/* Bytes that keep two threads' hot fields from sharing a cache line (or its pair). */
#define POOL_CACHE_LINE 128

struct pool {
	/* The owner's fields, on cache lines of their own: pools of threads sit side by side. */
	_Alignas(POOL_CACHE_LINE) unsigned char *base; /* start of the reserved range */
	unsigned char *fresh;         /* next chunk never handed out */
	unsigned char *committed_end; /* end of the blocks taken so far */
	unsigned char *reserved_end;  /* end of the reserved range */
	size_t stride;                /* bytes per chunk: size padded to align, >= 4 */
	size_t block_bytes;           /* bytes taken from the system per block */
	size_t reserved_bytes;        /* length of the reserved range */
	size_t blocks;                /* blocks taken so far */
	unsigned align_shift;         /* log2(alignment); links count in alignments */
	uint32_t free_head;           /* link of the first free chunk, or POOL_NIL */
	size_t live;                  /* chunks handed out and not freed to this pool */
	/* Written by other threads: kept off the owner's cache line. */
	_Alignas(POOL_CACHE_LINE) _Atomic uint32_t remote_head; /* chunks freed by other threads */
	struct pool_group *group;     /* where a foreign chunk's owner is found, or NULL */
};

#define POOL_GROUP_MAX 256

/* Pools that may free each other's chunks: one per thread, or one per size. */
struct pool_group {
	pthread_mutex_t lock;                 /* serialises pool_group_add() */
	struct pool *pools[POOL_GROUP_MAX];   /* registered pools, in order */
	_Atomic size_t npools;                /* published after the pointer is written */
};

/*
 * Prepares POOL for chunks of SIZE bytes aligned to ALIGN (a power of two,
 * 1 to 4096), taking BLOCK_BYTES (rounded up to whole pages and to at least
 * one chunk) from the system at a time. Reserves address space but touches
 * no memory. Returns 0, or -1 after printing why (bad arguments, no address
 * space).
 */
int pool_init(struct pool *pool, size_t size, size_t align, size_t block_bytes);

/*
 * pool_init() reserving at most RESERVE_MAX bytes of address space (a
 * block at least): for pools that together need little of it, many of them
 * in a 32-bit process (the replay's, one per size class).
 */
int pool_init_within(struct pool *pool, size_t size, size_t align, size_t block_bytes,
		     size_t reserve_max);

/*
 * The largest block, in bytes (whole pages), that a pool of chunks aligned
 * to ALIGN can take: its 32-bit links count alignments from the base, and it
 * reserves at most 64 GiB. pool_init() fails with a larger BLOCK_BYTES.
 */
size_t pool_block_limit(size_t align);

/* Returns every block to the system. POOL may be initialised again. */
void pool_release(struct pool *pool);

/* Prepares an empty GROUP. Returns 0, or -1 after printing why. */
int pool_group_init(struct pool_group *group);

/*
 * Adds the initialised POOL to GROUP (thread-safe). Returns 0, or -1 when
 * the group is full (POOL_GROUP_MAX pools).
 */
int pool_group_add(struct pool_group *group, struct pool *pool);

/* The pool of GROUP whose range holds CHUNK, or NULL. Thread-safe. */
struct pool *pool_group_find(struct pool_group *group, const void *chunk);

/* Forgets the pools (they are released by their owners) and frees the lock. */
void pool_group_release(struct pool_group *group);

/*
 * Frees CHUNK, which POOL does not own, to its owner in POOL's group: pushes
 * it onto the owner's remote list. Returns 0, or -1 when no pool of the group
 * owns CHUNK (a caller's bug; the chunk is leaked, never corrupted).
 */
int pool_free_foreign(struct pool *pool, void *chunk);

/*
 * The slow path of pool_alloc(): takes the chunks other threads freed, else
 * the next block. Returns a chunk or NULL when the reservation is used up.
 */
void *pool_alloc_slow(struct pool *pool);

/* Returns a chunk: a freed one first, else the next fresh one, else a new block. */
static inline void *pool_alloc(struct pool *pool)
{
	if (pool->free_head != POOL_NIL) {
		unsigned char *chunk = pool->base + ((size_t)pool->free_head << pool->align_shift);

		memcpy(&pool->free_head, chunk, sizeof(pool->free_head));
		pool->live++;
		return chunk;
	}
	if (pool->stride <= (size_t)(pool->committed_end - pool->fresh)) {
		unsigned char *chunk = pool->fresh;

		pool->fresh += pool->stride;
		pool->live++;
		return chunk;
	}
	return pool_alloc_slow(pool);
}

/*
 * Frees CHUNK, which pool_alloc() of POOL or of a pool of its group returned.
 * Called by POOL's owner. A chunk of POOL goes to the head of its free list
 * (the next allocation reuses it); another pool's chunk goes back to its owner.
 *
 * The chunk handed out last from fresh memory (the one just below fresh) is
 * not linked: fresh steps back over it, as an arena's top would. Objects
 * destroyed newest first, as a linked list is unwound (the churn workload),
 * therefore cost a compare and a subtraction each, and nothing is written
 * into memory the create loop has long pushed out of the cache. The free
 * list's invariant holds: every chunk on it lies below fresh, since fresh
 * only steps back over a chunk that was live.
 *
 * When the last chunk of a pool outside any group comes back, the pool
 * forgets its free list and hands its blocks out again from the first, as
 * when they were new: the next fill walks memory in order instead of reading
 * a link out of every chunk (a pool in a group may have chunks on other
 * threads' lists, so it keeps its list).
 */
static inline void pool_free(struct pool *pool, void *chunk)
{
	uintptr_t offset = (uintptr_t)chunk - (uintptr_t)pool->base;
	uint32_t link;

	if (__builtin_expect(offset >= pool->reserved_bytes, 0)) {
		pool_free_foreign(pool, chunk);
		return;
	}
	if (__builtin_expect(--pool->live == 0, 0) && !pool->group) {
		pool->free_head = POOL_NIL;
		pool->fresh = pool->base;
		return;
	}
	if ((unsigned char *)chunk + pool->stride == pool->fresh) {
		pool->fresh = (unsigned char *)chunk;
		return;
	}
	link = (uint32_t)(offset >> pool->align_shift);
	memcpy(chunk, &pool->free_head, sizeof(pool->free_head));
	pool->free_head = link;
}

#endif
