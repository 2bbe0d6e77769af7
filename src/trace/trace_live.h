/*
 * trace_live.h - the live chunks by address, as the analysis of a trace
 * follows them (trace_analyze.c): open addressing, linear probing,
 * backward-shift deletion, at most half full. Private to src/trace/.
 */
#ifndef ALLOCBENCH_TRACE_LIVE_H
#define ALLOCBENCH_TRACE_LIVE_H

#include <stddef.h>
#include <stdint.h>

/* A live chunk. */
struct live {
	uint64_t addr;      /* 0: an empty place in the map */
	uint64_t size;      /* bytes asked for */
	uint64_t born;      /* the call that allocated it (from 1) */
	uint32_t thread;    /* the thread that did */
	uint32_t slot;      /* its slot in the replay plan */
};

/* The map: CAP places (a power of two), entries with addr 0 empty. */
struct addr_map {
	struct live *e;
	size_t mask, n;
};

static inline uint64_t mix(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return a;
}

/*
 * Where ADDR's search starts: the whole address scattered. (Keeping each
 * chunk's place within its 64 KiB region, as this once did, put a region
 * of small chunks at half the places of its window and two such regions
 * in one window at all of them: runs of probes, slower on a real
 * program's trace, perl's, by a quarter.)
 */
static inline size_t addr_home(uint64_t addr, size_t mask)
{
	return (size_t)mix(addr >> 4) & mask;
}

/* KEY's place: where it is, or the empty one where it would go. */
static inline struct live *map_find(const struct addr_map *m, uint64_t key)
{
	size_t j = addr_home(key, m->mask);

	while (m->e[j].addr && m->e[j].addr != key)
		j = (j + 1) & m->mask;
	return &m->e[j];
}


/*
 * A map of CAP (a power of two) places, all empty; a large one mapped
 * with huge pages asked for. Returns 0, or -1 out of memory.
 */
int map_init(struct addr_map *m, size_t cap);

/* Twice the places, the entries moved. Returns 0, or -1 out of memory (M unchanged). */
int map_grow(struct addr_map *m);

/* Whether one entry more would fill M past three quarters: then it grows. */
static inline int map_full(const struct addr_map *m)
{
	return (m->n + 1) * 4 > (m->mask + 1) * 3;
}

/*
 * The places for a map that will hold about LIVE entries (0: no guess), at
 * most three quarters full (map_full()), from 1024 up to 2^21 (64 MiB). Growing a map from small
 * has the kernel zero twice its final size: a third of the time the perl
 * hash's conversion took, 11% of its report.
 */
size_t map_cap_for(uint64_t live);

/*
 * Empties M, keeping its places: a second pass over the same trace needs
 * as many, and clearing them costs less than growing to them again.
 */
void map_clear(struct addr_map *m);

/* Removes the entry at E (which is in use). */
void map_remove(struct addr_map *m, struct live *e);

/* Frees M's places. */
void map_release(struct addr_map *m);

#endif
