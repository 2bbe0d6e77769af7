/*
 * test_lrank.c - the live chunks by rank (src/trace/trace_v3.h), which
 * both format version 3's writer and its reader keep, against a plain
 * list of the live chunks in the order they were allocated: pushes,
 * removes at random ranks and near the newest, through the compactions
 * when the slots run out, each rank and select checked against the list.
 */
#include "check.h"
#include "trace/trace_v3.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_MAX 40000

/* The live chunks, oldest first: what a rank counts from the other end. */
static uint64_t model[MODEL_MAX];
static size_t nmodel;

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The slot that holds ADDR (one address per live chunk). */
static uint64_t slot_of(const struct lrank *l, uint64_t addr)
{
	for (uint64_t i = 0; i < l->next; i++)
		if (l->addr[i] == addr)
			return i;
	return UINT64_MAX;
}

int main(void)
{
	struct lrank l = { 0 };
	uint64_t addr = 0;
	int selects_ok = 1, ranks_ok = 1, pushes_ok = 1, counts_ok = 1;
	unsigned compactions = 0;

	for (unsigned step = 0; step < 200000; step++) {
		/* Grow to about 3000 live, then hover, freeing mostly near the newest. */
		int grow = nmodel < 16 || (nmodel < MODEL_MAX - 1 && next_rand() % 100 < (nmodel < 3000 ? 70 : 50));

		if (grow) {
			uint64_t was = l.next;
			int64_t slot = lrank_push(&l, ++addr * 64);

			if (slot < 0 || l.addr[slot] != addr * 64)
				pushes_ok = 0;
			compactions += l.next <= was;  /* the slots compacted before it */
			model[nmodel++] = addr * 64;
			continue;
		}
		{
			uint64_t k = next_rand() % 4 ? next_rand() % (nmodel < 8 ? nmodel : 8) : next_rand() % nmodel;
			uint64_t want = model[nmodel - 1 - k], slot = lrank_select(&l, k);

			if (slot >= l.next || l.addr[slot] != want)
				selects_ok = 0;
			else if (lrank_rank(&l, slot) != k)
				ranks_ok = 0;
			lrank_remove(&l, slot < l.next ? slot : slot_of(&l, want));
			memmove(&model[nmodel - 1 - k], &model[nmodel - k], k * sizeof(*model));
			nmodel--;
		}
		if (l.live != nmodel)
			counts_ok = 0;
	}
	CHECK("every push takes the next slot, its address in it", pushes_ok);
	printf("# %u compactions, %llu places, %zu live\n", compactions, (unsigned long long)l.cap, nmodel);
	CHECK("the slots were compacted and the places grown", compactions > 10 && l.cap >= 4096);
	CHECK("the live count follows", counts_ok);
	CHECK("select(k) is the k-th newest live chunk", selects_ok);
	CHECK("rank(select(k)) is k", ranks_ok);
	{
		int all = 1;

		for (size_t k = 0; k < nmodel; k++) {
			uint64_t slot = slot_of(&l, model[nmodel - 1 - k]);

			if (slot == UINT64_MAX || lrank_rank(&l, slot) != k || lrank_select(&l, k) != slot)
				all = 0;
		}
		CHECK("at the end, every live chunk's rank and select", all && nmodel > 1000);
	}
	lrank_release(&l);
	return check_exit();
}
