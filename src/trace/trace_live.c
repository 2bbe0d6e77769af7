/*
 * trace_live.c - the live chunks by address (trace_live.h).
 */
#include "trace/trace_live.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* From this many bytes, the map's own mapping, in huge pages where the kernel has them. */
#define MAP_HUGE_BYTES ((size_t)2 << 20)

/*
 * A map of CAP (a power of two) places, all empty. A large one is mapped
 * with huge pages asked for: a live set of a million chunks is 64 MiB of
 * places looked up at random, and with 4 KiB pages nearly every lookup
 * would miss the TLB too.
 */
int map_init(struct addr_map *m, size_t cap)
{
	size_t bytes = cap * sizeof(*m->e);

	m->mask = cap - 1;
	m->n = 0;
	if (bytes < MAP_HUGE_BYTES) {
		m->e = calloc(cap, sizeof(*m->e));
		return m->e ? 0 : -1;
	}
	m->e = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->e == MAP_FAILED) {
		m->e = NULL;
		return -1;
	}
	madvise(m->e, bytes, MADV_HUGEPAGE);  /* advice: without it, 4 KiB pages */
	return 0;
}

size_t map_cap_for(uint64_t live)
{
	size_t cap = 1024;

	while (cap < ((size_t)1 << 21) && cap / 4 * 3 < live + 1)
		cap *= 2;
	return cap;
}

void map_clear(struct addr_map *m)
{
	memset(m->e, 0, (m->mask + 1) * sizeof(*m->e));
	m->n = 0;
}

void map_release(struct addr_map *m)
{
	size_t bytes = (m->mask + 1) * sizeof(*m->e);

	if (m->e && bytes >= MAP_HUGE_BYTES)
		munmap(m->e, bytes);
	else
		free(m->e);
	m->e = NULL;
}

int map_grow(struct addr_map *m)
{
	struct addr_map bigger;

	if (map_init(&bigger, 2 * (m->mask + 1)))
		return -1;
	for (size_t i = 0; i <= m->mask; i++) {
		if (m->e[i].addr) {
			size_t j = addr_home(m->e[i].addr, bigger.mask);

			while (bigger.e[j].addr)
				j = (j + 1) & bigger.mask;
			bigger.e[j] = m->e[i];
			bigger.n++;
		}
	}
	map_release(m);
	*m = bigger;
	return 0;
}

/* Removes the entry at E (which is in use). */
void map_remove(struct addr_map *m, struct live *e)
{
	size_t j = (size_t)(e - m->e), k;

	e->addr = 0;
	m->n--;
	/* Backward shift: move later entries of the run into the hole. */
	for (k = (j + 1) & m->mask; m->e[k].addr; k = (k + 1) & m->mask) {
		size_t home = addr_home(m->e[k].addr, m->mask);

		if (((k - home) & m->mask) >= ((k - j) & m->mask)) {
			m->e[j] = m->e[k];
			m->e[k].addr = 0;
			j = k;
		}
	}
}
