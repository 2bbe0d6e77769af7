/* Unit tests for pool.c and arena.c: layout, free list, blocks, alignment. */
#include "measure/arena.h"
#include "check.h"
#include "measure/pool.h"

#include <stdint.h>
#include <unistd.h>

int main(void)
{
	struct pool pool;
	struct arena arena;
	unsigned char *a, *b, *c, *d;
	int ok;

	CHECK("pool init 4-byte chunks", !pool_init(&pool, 4, 4, 4096));
	CHECK("4-byte chunks have a 4-byte stride", pool.stride == 4);
	a = pool_alloc(&pool);
	b = pool_alloc(&pool);
	CHECK("pool chunks are adjacent", b == a + 4);
	CHECK("first block taken on first allocation", pool.blocks == 1);
	pool_free(&pool, a);
	c = pool_alloc(&pool);
	CHECK("a freed chunk is reused before a fresh one", c == a);
	{
		/* One chunk stays out, so that the pool is not empty and keeps its list. */
		unsigned char *keep = pool_alloc(&pool);

		pool_free(&pool, b);
		pool_free(&pool, c);
		CHECK("free list is last in, first out", pool_alloc(&pool) == c && pool_alloc(&pool) == b);
		pool_free(&pool, keep);
		keep = pool_alloc(&pool);
		CHECK("the kept chunk is reused", keep == a + 8);
	}
	/* Fill the first block exactly, then one more: a second block, adjacent. */
	ok = 1;
	for (size_t i = 3; i < pool.block_bytes / 4; i++)
		ok &= pool_alloc(&pool) == a + 4 * i;
	CHECK("a block holds block_bytes / stride chunks", ok && pool.blocks == 1);
	d = pool_alloc(&pool);
	CHECK("the next block follows the first", d == a + pool.block_bytes && pool.blocks == 2);
	pool_free(&pool, d);
	CHECK("a freed chunk is reused before a new block", pool_alloc(&pool) == d && pool.blocks == 2);
	pool_release(&pool);

	CHECK("pool init 40-byte chunks at 8", !pool_init(&pool, 40, 8, 1 << 20));
	CHECK("40 at 8 has stride 40", pool.stride == 40);
	a = pool_alloc(&pool);
	CHECK("40-byte chunk aligned to 8", ((uintptr_t)a & 7) == 0);
	pool_release(&pool);

	CHECK("pool init 12 at 16", !pool_init(&pool, 12, 16, 1 << 20));
	CHECK("12 at 16 pads to 16", pool.stride == 16);
	a = pool_alloc(&pool);
	b = pool_alloc(&pool);
	CHECK("chunks aligned to 16", ((uintptr_t)a & 15) == 0 && ((uintptr_t)b & 15) == 0);
	pool_release(&pool);

	CHECK("pool init 2-byte chunks", !pool_init(&pool, 2, 2, 4096));
	CHECK("chunks below 4 bytes hold a link", pool.stride == 4);
	pool_release(&pool);

	CHECK("odd size with alignment 1", !pool_init(&pool, 5, 1, 4096));
	a = pool_alloc(&pool);
	b = pool_alloc(&pool);
	pool_free(&pool, b);
	pool_free(&pool, a);
	CHECK("unaligned links work", pool_alloc(&pool) == a && pool_alloc(&pool) == b);
	pool_release(&pool);

	CHECK("block smaller than a chunk grows to one", !pool_init(&pool, 40000, 16, 1));
	/* 40960 with 4 KiB pages: whole pages on any host. */
	CHECK("block rounded to pages", pool.block_bytes % (size_t)sysconf(_SC_PAGESIZE) == 0 &&
	      pool.block_bytes >= 40000 && pool.block_bytes < 40000 + (size_t)sysconf(_SC_PAGESIZE));
	a = pool_alloc(&pool);
	b = pool_alloc(&pool);
	CHECK("40000-byte chunks are adjacent across blocks", b == a + 40000);
	pool_release(&pool);

	/* When every chunk is back, the pool starts again from its first block. */
	CHECK("pool init for the restart", !pool_init(&pool, 16, 16, 4096));
	{
		unsigned char *first = NULL, *chunks[600];
		size_t blocks;
		int in_order = 1;

		for (size_t i = 0; i < 600; i++)
			chunks[i] = pool_alloc(&pool);
		first = chunks[0];
		blocks = pool.blocks;
		for (size_t i = 0; i < 599; i++)
			pool_free(&pool, chunks[i]);
		CHECK("with one chunk out, the next comes from the free list",
		      pool_alloc(&pool) == chunks[598]);
		pool_free(&pool, chunks[598]);
		pool_free(&pool, chunks[599]);
		CHECK("all back: nothing live", pool.live == 0);
		for (size_t i = 0; i < 600; i++)
			in_order &= pool_alloc(&pool) == first + 16 * i;
		CHECK("all back: handed out again in order from the first block", in_order);
		CHECK("all back: no new block taken", pool.blocks == blocks);
	}
	pool_release(&pool);

	CHECK("alignment 3 refused", pool_init(&pool, 8, 3, 4096) == -1);

	/* The newest fresh chunk steps fresh back instead of being linked. */
	CHECK("pool init 16-byte chunks", !pool_init(&pool, 16, 16, 4096));
	{
		unsigned char *keep = pool_alloc(&pool), *x = pool_alloc(&pool), *y = pool_alloc(&pool);
		unsigned char *z = pool_alloc(&pool);

		pool_free(&pool, z);
		CHECK("newest freed: fresh steps back over it, no link",
		      pool.fresh == z && pool.free_head == POOL_NIL);
		pool_free(&pool, x);
		CHECK("an older chunk freed: linked", pool.free_head != POOL_NIL && pool.fresh == z);
		pool_free(&pool, y);
		CHECK("the chunk just below fresh: steps back, x stays linked",
		      pool.fresh == y && pool.free_head != POOL_NIL);
		CHECK("the linked chunk first, then fresh in order",
		      pool_alloc(&pool) == x && pool_alloc(&pool) == y && pool_alloc(&pool) == z);
		pool_free(&pool, keep);
	}
	pool_release(&pool);

	/*
	 * Random orders: a shadow of what is live says that no chunk is handed
	 * out twice, every chunk lies in the pool's blocks, and the free list
	 * stays below fresh.
	 */
	CHECK("pool init 8-byte chunks", !pool_init(&pool, 8, 8, 4096));
	{
		enum { SLOTS = 3000 };
		static unsigned char *live[SLOTS];
		static unsigned char owner[4096 * 8];
		uint64_t rng = 20120528;
		size_t nlive = 0;
		int twice = 0, outside = 0, listed_above = 0;

		for (long step = 0; step < 200000; step++) {
			rng = rng * 6364136223846793005u + 1442695040888963407u;
			if (nlive < SLOTS && (nlive == 0 || (rng >> 33) % 3)) {
				unsigned char *p = pool_alloc(&pool);
				size_t k = (size_t)(p - pool.base) / 8;

				outside |= p < pool.base || p >= pool.committed_end || k >= sizeof(owner);
				if (!outside) {
					twice |= owner[k];
					owner[k] = 1;
				}
				live[nlive++] = p;
			} else {
				/* Newest first half the time (as churn frees), else any. */
				size_t i = (rng >> 40) % 2 ? nlive - 1 : (size_t)(rng >> 20) % nlive;
				unsigned char *p = live[i];

				owner[(size_t)(p - pool.base) / 8] = 0;
				live[i] = live[--nlive];
				pool_free(&pool, p);
				if (pool.free_head != POOL_NIL)
					listed_above |= pool.base + ((size_t)pool.free_head << pool.align_shift) >=
							pool.fresh;
			}
			if (outside)
				break;
		}
		CHECK("random order: no chunk handed out twice", !twice);
		CHECK("random order: every chunk inside the blocks", !outside);
		CHECK("random order: the free list's head below fresh", !listed_above);
		while (nlive)
			pool_free(&pool, live[--nlive]);
		CHECK("random order: all back, the pool starts over", pool.fresh == pool.base &&
		      pool.live == 0);
	}
	pool_release(&pool);

	/* A block is limited by what 32-bit links in units of the alignment address. */
	{
		size_t page = (size_t)sysconf(_SC_PAGESIZE);

		CHECK("block limit at alignment 1: 4 GiB less a page",
		      pool_block_limit(1) == (size_t)UINT32_MAX / page * page);
		CHECK("block limit at alignment 16: 64 GiB less a page",
		      pool_block_limit(16) == ((size_t)64 << 30) - page);
		CHECK("block limit at alignment 4096: 64 GiB, not more",
		      pool_block_limit(4096) == ((size_t)64 << 30));
		CHECK("a block at the limit is taken", !pool_init(&pool, 5, 1, pool_block_limit(1)));
		pool_release(&pool);
		CHECK("a block above the limit is refused",
		      pool_init(&pool, 5, 1, pool_block_limit(1) + 1) == -1);
	}

	CHECK("arena init", !arena_init(&arena, 100));
	a = arena_alloc(&arena, 4, 4);
	b = arena_alloc(&arena, 4, 4);
	CHECK("arena bumps", b == a + 4);
	c = arena_alloc(&arena, 1, 1);
	d = arena_alloc(&arena, 8, 8);
	CHECK("arena pads to the alignment", c == a + 8 && d == a + 16);
	CHECK("arena refuses past its end", arena_alloc(&arena, 100, 1) == NULL);
	CHECK("arena fills to exactly its end", arena_alloc(&arena, 76, 1) == a + 24);
	CHECK("arena full", arena_alloc(&arena, 1, 1) == NULL);
	arena_release(&arena);
	return check_exit();
}
