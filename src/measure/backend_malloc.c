/* backend_malloc.c - the C library's malloc and free, or whatever is preloaded. */
#include "measure/allocator.h"
#include "measure/backend.h"
#include "platform/heap.h"
#include "measure/replay.h"
#include "measure/workloads.h"

#include <stdlib.h>
#include <string.h>

/*
 * CTX is heap_measured(): the allocator's own functions, called through a
 * pointer as a program calls them through its PLT. Calling malloc by name
 * would reach heap_interpose.c's router first.
 */
static inline void *libc_alloc(void *ctx, size_t size)
{
	return ((const struct heap_functions *)ctx)->malloc(size);
}

static inline void libc_release(void *ctx, void *chunk)
{
	((const struct heap_functions *)ctx)->free(chunk);
}

/*
 * After the fill, allocator_inspect() records which allocator served malloc
 * (glibc, or whatever is preloaded), the usable size of its chunks and its
 * own statistics: the split of the overhead into slack and metadata.
 */
/* malloc keeps its own per-thread state: no context to hand out. */
static int libc_attach(void *shared, unsigned index, void **ctx)
{
	(void)index;
	*ctx = shared;
	return 0;
}

static void *libc_thread(void *job)
{
	return threads_body(job, libc_alloc, libc_release, NULL);
}

static int malloc_run(const struct measure_params *params, struct sample *sample)
{
	void *heap = (void *)heap_measured();

	if (!heap)
		return sample_fail(sample, "malloc: cannot find the allocator's functions");
	switch (params->workload) {
	case WORKLOAD_FILL:
		return measure_fill_inspect(params, sample, heap, libc_alloc, libc_release, NULL,
					    allocator_inspect);
	case WORKLOAD_CHURN:
		return measure_churn(params, sample, heap, libc_alloc, libc_release, NULL);
	case WORKLOAD_RANDOM:
		return measure_random(params, sample, params->plan, heap, libc_alloc, libc_release);
	case WORKLOAD_THREADS:
		return measure_threads(params, sample, heap, libc_attach, libc_thread);
	case WORKLOAD_REPLAY:
		return replay_run_malloc(params, sample);
	case WORKLOAD_COUNT:
		break;
	}
	return sample_fail(sample, "malloc: unknown workload");
}

const struct backend backend_malloc = {
	.name = "malloc",
	.summary = "the C library's malloc/free, or a preloaded allocator",
	.uses_align = 0,
	.run = malloc_run,
};

int backend_malloc_run_preloaded(const char *backend_name, const char *path,
				 const struct measure_params *params, struct sample *sample)
{
	const struct allocator_known *known = allocator_known_find(backend_name);

	if (allocator_check_preloaded(backend_name, path, sample))
		return -1;
	if (backend_malloc.run(params, sample))
		return -1;
	/* Only fill inspects its chunks: the other workloads identify the allocator here. */
	if (!sample->allocator.name[0])
		allocator_identify(&sample->allocator);
	if (known && strcmp(sample->allocator.name, known->name))
		return sample_fail(sample, "backend '%s' preloads '%s', which is %s, not %s",
				   backend_name, path, sample->allocator.name, known->name);
	/* A candidate's settings (model/settings.h), where the allocator can say them. */
	return allocator_settings_confirm(sample->allocator.name, sample);
}
