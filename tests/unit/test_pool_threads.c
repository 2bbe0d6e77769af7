/*
 * Unit test of the pool across threads: a chunk freed by another thread goes
 * back to its owner's remote list and is reused by the owner before a new
 * block. Run it under -fsanitize=thread as well (tests/cli/t0401-tsan.sh).
 */
#include "check.h"
#include "measure/pool.h"

#include <pthread.h>
#include <stdint.h>

#define CHUNKS 10000

static struct pool_group group;
static struct pool owner, other;
static void *chunks[CHUNKS];

/* The other thread: frees every chunk the owner allocated, then allocates its own. */
static void *other_thread(void *arg)
{
	(void)arg;
	if (pool_init(&other, 40, 8, 4096) || pool_group_add(&group, &other))
		return (void *)1;
	for (size_t i = 0; i < CHUNKS; i++)
		pool_free(&other, chunks[i]);
	/* Its own chunks come from its own range, not the owner's. */
	void *mine = pool_alloc(&other);
	if ((uintptr_t)mine - (uintptr_t)owner.base < owner.reserved_bytes)
		return (void *)2;
	pool_free(&other, mine);
	return NULL;
}

int main(void)
{
	pthread_t tid;
	void *ret = (void *)3;
	size_t blocks, reused = 0, fresh_blocks;
	int in_range = 1;

	CHECK("group init", !pool_group_init(&group));
	CHECK("owner init", !pool_init(&owner, 40, 8, 4096) && !pool_group_add(&group, &owner));
	for (size_t i = 0; i < CHUNKS; i++)
		chunks[i] = pool_alloc(&owner);
	blocks = owner.blocks;
	CHECK("other thread ran", !pthread_create(&tid, NULL, other_thread, NULL) &&
	      !pthread_join(tid, &ret) && ret == NULL);
	CHECK("remote frees wait on the owner's remote list",
	      atomic_load(&owner.remote_head) != POOL_NIL);
	/* Exhaust the current block's fresh chunks, then the remote chunks come back. */
	for (size_t i = 0; i < CHUNKS; i++) {
		unsigned char *c = pool_alloc(&owner);

		if ((uintptr_t)c - (uintptr_t)owner.base >= owner.reserved_bytes)
			in_range = 0;
		/* The first chunks were handed out in order: chunks[k] is base + 40 k. */
		if (c < (unsigned char *)chunks[CHUNKS - 1] + 40)
			reused++;
	}
	fresh_blocks = owner.blocks - blocks;
	CHECK("the first chunks were contiguous", chunks[CHUNKS - 1] == owner.base + 40 * (CHUNKS - 1));
	CHECK("the owner reuses chunks freed by another thread", reused > CHUNKS - 4096 / 40);
	CHECK("reused chunks are the owner's", in_range);
	CHECK("no new block while freed chunks wait", fresh_blocks <= 1);
	CHECK("a chunk of no pool is refused, not corrupted", pool_free_foreign(&owner, &ret) == -1);
	pool_release(&other);
	pool_release(&owner);
	pool_group_release(&group);
	return check_exit();
}
