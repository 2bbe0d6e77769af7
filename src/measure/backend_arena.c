/* backend_arena.c - bump allocation into one region (arena.h), like placement new. */
#include "measure/replay.h"
#include "measure/arena.h"
#include "measure/backend.h"
#include "platform/counters.h"
#include "platform/parse.h"
#include "measure/workloads.h"

struct arena_ctx {
	/* Threads' arenas sit side by side: one cache line pair each. */
	_Alignas(128) struct arena arena;
	size_t align;        /* 0: each size's natural alignment (random mixes sizes) */
};

static inline void *arena_backend_alloc(void *ctx, size_t size)
{
	struct arena_ctx *a = ctx;

	return arena_alloc(&a->arena, size, a->align);
}

static inline void *arena_backend_alloc_natural(void *ctx, size_t size)
{
	struct arena_ctx *a = ctx;

	return arena_alloc(&a->arena, size, a->align ? a->align : natural_alignment(size));
}

static inline void arena_backend_release(void *ctx, void *chunk)
{
	/* A chunk of an arena is never freed alone. */
	(void)ctx;
	(void)chunk;
}

/* Everything is released at once: the arena starts again from its base. */
static void arena_backend_reset(void *ctx)
{
	struct arena_ctx *a = ctx;

	a->arena.next = a->arena.base;
}

/* One arena per thread, each big enough for the whole array's temporaries. */
struct arena_threads {
	struct arena_ctx arenas[MEASURE_MAX_THREADS];
	unsigned n;
	size_t capacity_bytes;
	size_t align;
};

static int arena_threads_attach(void *shared, unsigned index, void **ctx)
{
	struct arena_threads *t = shared;

	while (t->n <= index) {
		t->arenas[t->n].align = t->align;
		if (arena_init(&t->arenas[t->n].arena, t->capacity_bytes))
			return -1;
		t->n++;
	}
	*ctx = &t->arenas[index];
	return 0;
}

static void *arena_thread(void *job)
{
	return threads_body(job, arena_backend_alloc, arena_backend_release, arena_backend_reset);
}

static size_t stride_of(size_t size, size_t align)
{
	return (size + align - 1) / align * align;
}

static int arena_run_threads(const struct measure_params *params, struct sample *sample)
{
	static struct arena_threads t;
	int ret;

	t.n = 0;
	t.align = params->align;
	t.capacity_bytes = params->count / 2 * stride_of(params->size, params->align) + params->align;
	ret = measure_threads(params, sample, &t, arena_threads_attach, arena_thread);
	for (unsigned i = 0; i < t.n; i++)
		arena_release(&t.arenas[i].arena);
	return ret;
}

/*
 * The arena's figure for arena_bytes_reserved: its region, 0 once released
 * (arena_release() clears the arena).
 */
static long long arena_read_bytes_reserved(const void *ctx)
{
	const struct arena *arena = ctx;

	return (long long)arena->capacity_bytes;
}

static int arena_run(const struct measure_params *params, struct sample *sample)
{
	struct arena_ctx a = { .align = params->align };
	size_t capacity;
	int ret;

	switch (params->workload) {
	case WORKLOAD_FILL:
	case WORKLOAD_CHURN:
		if (__builtin_mul_overflow(params->count, stride_of(params->size, params->align),
					   &capacity) ||
		    __builtin_add_overflow(capacity, params->align, &capacity))
			return sample_fail(sample, "arena: %zu chunks of %zu bytes cannot be addressed",
					   params->count, params->size);
		break;
	case WORKLOAD_RANDOM:
		/* Nothing is ever freed: room for every allocation of the sequence, padded. */
		capacity = params->plan->alloc_bytes +
			   params->plan->nops * (params->align ? params->align : 16) + 16;
		break;
	case WORKLOAD_THREADS:
		return arena_run_threads(params, sample);
	case WORKLOAD_REPLAY:
		return replay_run_arena(params, sample);
	default:
		return sample_fail(sample, "arena: unknown workload");
	}
	if (arena_init(&a.arena, capacity))
		return sample_fail(sample, "cannot map the arena's region of %zu bytes", capacity);
	sample->reserved_bytes = a.arena.capacity_bytes;
	if (counters_attach_reader("arena_bytes_reserved", arena_read_bytes_reserved, &a.arena)) {
		arena_release(&a.arena);
		return sample_fail(sample, "cannot attach the arena's counters");
	}
	if (params->workload == WORKLOAD_FILL)
		ret = measure_fill(params, sample, &a, arena_backend_alloc, arena_backend_release,
				   arena_backend_reset);
	else if (params->workload == WORKLOAD_CHURN)
		ret = measure_churn(params, sample, &a, arena_backend_alloc, arena_backend_release,
				    arena_backend_reset);
	else
		ret = measure_random(params, sample, params->plan, &a, arena_backend_alloc_natural,
				     arena_backend_release);
	/* Cannot fail: attaching the same name did not. */
	counters_attach_reader("arena_bytes_reserved", NULL, NULL);
	arena_release(&a.arena);
	return ret;
}

const struct backend backend_arena = {
	.name = "arena",
	.summary = "bump allocation into one region, like placement new",
	.uses_align = 1,
	.run = arena_run,
};
