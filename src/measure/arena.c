#include "measure/arena.h"
#include "platform/util.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

int arena_init(struct arena *arena, size_t capacity_bytes)
{
	void *base;

	memset(arena, 0, sizeof(*arena));
	if (!capacity_bytes)
		return error("arena: capacity must be positive");
	base = mmap(NULL, capacity_bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return error("arena: cannot map %zu bytes: %s", capacity_bytes, strerror(errno));
	arena->base = base;
	arena->next = base;
	arena->end = arena->base + capacity_bytes;
	arena->capacity_bytes = capacity_bytes;
	return 0;
}

void arena_release(struct arena *arena)
{
	if (arena->base)
		munmap(arena->base, arena->capacity_bytes);
	memset(arena, 0, sizeof(*arena));
}
