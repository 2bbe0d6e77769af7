/* backend_arena.c - bump allocation into one region (arena.h), like placement new. */
#include "arena.h"
#include "backend.h"

struct arena_ctx {
	struct arena arena;
	size_t align;
};

static inline void *arena_backend_alloc(void *ctx, size_t size)
{
	struct arena_ctx *a = ctx;

	return arena_alloc(&a->arena, size, a->align);
}

static inline void arena_backend_release(void *ctx, void *chunk)
{
	/* A chunk of an arena is never freed alone. */
	(void)ctx;
	(void)chunk;
}

/* Everything is released at once: this is the arena's whole free cost. */
static void arena_backend_teardown(void *ctx)
{
	struct arena_ctx *a = ctx;

	arena_release(&a->arena);
}

static int arena_run(const struct measure_params *params, struct sample *sample)
{
	struct arena_ctx a = { .align = params->align };
	size_t stride = (params->size + params->align - 1) / params->align * params->align;
	int ret;

	if (arena_init(&a.arena, params->count * stride + params->align))
		return sample_fail(sample, "cannot map the arena's region");
	sample->reserved_bytes = a.arena.capacity_bytes;
	counters_attach_arena(&a.arena);
	ret = measure_fill(params, sample, &a, arena_backend_alloc, arena_backend_release,
			   arena_backend_teardown);
	counters_attach_arena(NULL);
	return ret;
}

const struct backend backend_arena = {
	.name = "arena",
	.summary = "bump allocation into one preallocated region (like placement new)",
	.uses_align = 1,
	.run = arena_run,
};
