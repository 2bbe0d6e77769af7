/*
 * measure.h - one measurement, as the child process runs it.
 *
 * The measured loop is a static inline template: each backend file includes
 * this header and calls measure_fill() with its own allocate and release
 * functions, which the compiler inlines into the loop. The only indirect call
 * is the one that starts the whole loop (struct backend.run), so the tool's
 * dispatch never shows up in a per-allocation figure.
 */
#ifndef ALLOCBENCH_MEASURE_H
#define ALLOCBENCH_MEASURE_H

#include "allocinfo.h"
#include "probe.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* What is written into each chunk after it is allocated (--touch). */
enum touch_policy {
	TOUCH_NONE,   /* nothing: only what the allocator itself writes */
	TOUCH_FIRST,  /* the first byte */
	TOUCH_PAGES,  /* the first byte, one byte in every page it overlaps, the last byte */
	TOUCH_FULL,   /* every byte (memset) */
};

/* Name as given to --touch; NULL for an invalid value. */
const char *touch_name(enum touch_policy touch);

/* Parses NAME into *TOUCH; returns 0, or -1 if NAME is not a policy. */
int touch_parse(const char *name, enum touch_policy *touch);

/* The parameters of one measurement, passed from parent to child. */
struct measure_params {
	size_t size;             /* bytes per chunk */
	size_t count;            /* chunks: total / size */
	size_t align;            /* alignment of pool and arena chunks, bytes */
	size_t pool_block_bytes; /* bytes the pool takes from the system at a time */
	enum touch_policy touch;
};

/* The result of one measurement in one fresh process; plain data, sent over a pipe. */
struct sample {
	int ok;                     /* 1 when every figure below is valid */
	char error[200];            /* why not, when ok is 0 */
	uint64_t rss_before_bytes;  /* resident set before the allocation loop */
	uint64_t rss_after_bytes;   /* resident set after it */
	double alloc_ns;            /* allocation loop (with touching), ns per chunk */
	double free_ns;             /* free loop plus backend teardown, ns per chunk */
	uint64_t alloc_faults;      /* minor page faults during the allocation loop */
	uint64_t free_faults;       /* minor page faults during the free loop */
	uint64_t reserved_bytes;    /* pool/arena: bytes the backend took from the system */
	struct allocator_info allocator; /* malloc family: who served malloc; zero otherwise */
};

/* Writes one formatted reason into SAMPLE->error and clears ok. Returns -1. */
int sample_fail(struct sample *sample, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Maps COUNT pointers and touches every page of them, so that the array that
 * holds the chunks' addresses is resident before the first RSS reading and
 * does not pollute the delta. Returns the array, or NULL with SAMPLE failed.
 */
void **measure_map_pointers(size_t count, struct sample *sample);

/* Unmaps what measure_map_pointers() returned. */
void measure_unmap_pointers(void **ptrs, size_t count);

/*
 * The floor: the measured loop of measure_fill() with the allocator replaced
 * by the next SIZE bytes of one fresh mapping: COUNT chunks laid end to end,
 * touched with the same policy, their addresses stored as a backend's are.
 * This is the physical cost of filling that much memory through this loop;
 * a backend's alloc_ns over it (x_floor) is what its allocator adds.
 * Returns 0 with SAMPLE filled, or -1 with SAMPLE failed.
 */
int measure_floor(const struct measure_params *params, struct sample *sample);

/* Writes into CHUNK of SIZE bytes according to TOUCH; PAGE is the page size. */
static inline __attribute__((always_inline)) void
touch_chunk(unsigned char *chunk, size_t size, enum touch_policy touch, uintptr_t page)
{
	uintptr_t at, end;

	switch (touch) {
	case TOUCH_NONE:
		break;
	case TOUCH_FIRST:
		*(volatile unsigned char *)chunk = 1;
		break;
	case TOUCH_PAGES:
		*(volatile unsigned char *)chunk = 1;
		end = (uintptr_t)chunk + size;
		for (at = ((uintptr_t)chunk | (page - 1)) + 1; at < end; at += page)
			*(volatile unsigned char *)at = 1;
		*(volatile unsigned char *)(end - 1) = 1;
		break;
	case TOUCH_FULL:
		memset(chunk, 1, size);
		/* The chunk is only freed later; keep the compiler from dropping the writes. */
		__asm__ volatile("" : : "r"(chunk) : "memory");
		break;
	}
}

/*
 * Allocates PARAMS->count chunks with ALLOC, touching each, then releases
 * them with RELEASE in allocation order and finally calls TEARDOWN (may be
 * NULL), filling SAMPLE. CTX is passed through. Because this function and
 * the callbacks are inlined, pass the callbacks as the functions themselves,
 * never through a variable.
 *
 * The touch policy is switched on outside the loop: one loop per policy.
 * Returns 0, or -1 with SAMPLE failed.
 */
#define MEASURE_FILL_LOOP(TOUCH)                                               \
	for (done = 0; done < count; done++) {                                 \
		unsigned char *chunk = alloc(ctx, size);                       \
		if (__builtin_expect(!chunk, 0))                               \
			break;                                                 \
		touch_chunk(chunk, size, TOUCH, page);                         \
		ptrs[done] = chunk;                                            \
	}

/*
 * measure_fill_inspect() is measure_fill() that also calls INSPECT (may be
 * NULL) once every chunk is allocated: after the second RSS reading and
 * before the free loop, outside both timed regions, with the array of the
 * COUNT chunks. It may read the chunks and the allocator's state (usable
 * sizes, statistics) and write into SAMPLE; the page faults it causes are
 * counted in neither loop. It must not allocate through malloc: one small
 * allocation after the fill stops glibc from giving its heap back when the
 * last chunk is freed, and made the free loop ten times faster at 4000 bytes.
 */
static inline __attribute__((always_inline)) int
measure_fill_inspect(const struct measure_params *params, struct sample *sample, void *ctx,
		     void *(*alloc)(void *ctx, size_t size),
		     void (*release)(void *ctx, void *chunk),
		     void (*teardown)(void *ctx),
		     void (*inspect)(void *ctx, void *const *chunks, size_t count,
				     struct sample *sample))
{
	const size_t count = params->count, size = params->size;
	const uintptr_t page = (uintptr_t)probe_page_size();
	struct probe_time t0, t1, t2, t3;
	uint64_t faults0, faults1, faults2, inspect_faults = 0;
	size_t done, i;
	void **ptrs;
	int fd;

	ptrs = measure_map_pointers(count, sample);
	if (!ptrs)
		return -1;
	fd = probe_rss_open();
	if (fd < 0 || probe_rss_read(fd, &sample->rss_before_bytes)) {
		measure_unmap_pointers(ptrs, count);
		return sample_fail(sample, "cannot read the resident set size from /proc/self/smaps_rollup");
	}

	faults0 = probe_minor_faults();
	t0 = probe_now();
	switch (params->touch) {
	case TOUCH_NONE:  MEASURE_FILL_LOOP(TOUCH_NONE);  break;
	case TOUCH_FIRST: MEASURE_FILL_LOOP(TOUCH_FIRST); break;
	case TOUCH_PAGES: MEASURE_FILL_LOOP(TOUCH_PAGES); break;
	case TOUCH_FULL:  MEASURE_FILL_LOOP(TOUCH_FULL);  break;
	default: done = 0; break;
	}
	t1 = probe_now();
	faults1 = probe_minor_faults();
	probe_rss_read(fd, &sample->rss_after_bytes);
	if (inspect && done == count) {
		inspect_faults = probe_minor_faults();
		inspect(ctx, ptrs, count, sample);
		inspect_faults = probe_minor_faults() - inspect_faults;
	}

	t2 = probe_now();
	for (i = 0; i < done; i++)
		release(ctx, ptrs[i]);
	if (teardown)
		teardown(ctx);
	t3 = probe_now();
	faults2 = probe_minor_faults();

	close(fd);
	measure_unmap_pointers(ptrs, count);
	if (done < count)
		return sample_fail(sample, "allocation %zu of %zu (%zu bytes) failed",
				   done + 1, count, size);
	sample->alloc_ns = probe_elapsed_ns(t0, t1) / (double)count;
	sample->free_ns = probe_elapsed_ns(t2, t3) / (double)count;
	sample->alloc_faults = faults1 - faults0;
	sample->free_faults = faults2 - faults1 - inspect_faults;
	sample->ok = 1;
	return 0;
}

/* measure_fill(), as documented above MEASURE_FILL_LOOP: no inspection. */
static inline __attribute__((always_inline)) int
measure_fill(const struct measure_params *params, struct sample *sample, void *ctx,
	     void *(*alloc)(void *ctx, size_t size),
	     void (*release)(void *ctx, void *chunk),
	     void (*teardown)(void *ctx))
{
	return measure_fill_inspect(params, sample, ctx, alloc, release, teardown, NULL);
}

#endif
