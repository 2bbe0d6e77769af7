/*
 * allocinfo.h - what a malloc-family measurement learns about the allocator
 * that served it: its identity, the usable size of its chunks, and its own
 * statistics. Plain data with fixed sizes: it travels inside struct sample
 * from the measuring child to the parent, field by field (sample_wire.h).
 */
#ifndef ALLOCBENCH_ALLOCINFO_H
#define ALLOCBENCH_ALLOCINFO_H

#include <stdint.h>

/* Most statistics one allocator reports (allocator_stats in the JSON). */
#define ALLOCINFO_MAX_STATS 6

/* One of the allocator's own statistics, read after the fill. */
struct allocator_stat {
	char name[48];  /* the allocator's name for it: "stats.active", "mallinfo2.arena" */
	uint64_t bytes; /* its value, bytes, for the whole process */
};

struct allocator_info {
	char name[32];           /* "glibc", "jemalloc", "mimalloc", "tcmalloc", "asan",
				    or "unknown"; "" when not a malloc-family sample */
	char version[96];        /* as the allocator reports it, or "unknown" */
	char path[256];          /* the shared object that serves malloc (dladdr) */
	int has_usable;          /* 1 when usable_bytes was measured */
	double usable_bytes;     /* mean malloc_usable_size over the chunks, bytes */
	unsigned nstats;         /* statistics filled below */
	struct allocator_stat stats[ALLOCINFO_MAX_STATS];
};

#endif
