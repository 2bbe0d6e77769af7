/*
 * workloads.h - the measured loops of the churn, random and threads
 * workloads, as static inline templates in the manner of measure_fill():
 * each backend file instantiates them with its own allocate and release
 * functions, so no indirect call sits inside a loop.
 */
#ifndef ALLOCBENCH_WORKLOADS_H
#define ALLOCBENCH_WORKLOADS_H

#include "measure/measure.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/resource.h>


/* ---------------------------------------------------------------- churn */

/*
 * The create/destroy demo of MFC's CFixedAlloc (README: Workloads): create
 * PARAMS->count objects of PARAMS->size bytes (allocate and touch each),
 * then destroy them all, newest first as a linked list is unwound, and call RESET; PARAMS->rounds times. The objects are kept
 * in the pointer array rather than linked through themselves, so that every
 * size can churn. Fills churn_ns (the fastest of rounds 2..R, warm) and
 * churn_cold_ns (round 1). Returns 0, or -1 with SAMPLE failed.
 *
 * Why the fastest round and not the total: a round is the same work every
 * time, and what the machine adds to it only ever adds. A round that a busy
 * neighbour preempts is slower by the neighbour's time slice, and on a
 * shared machine most runs have some: their totals spread by 2x and more,
 * where the fastest round of each run agrees within a few per cent (the
 * minimum as the estimator of a benchmark's time: Chen and Revels, "Robust
 * benchmarking in noisy environments", 2016).
 */
static inline __attribute__((always_inline)) int
measure_churn(const struct measure_params *params, struct sample *sample, void *ctx,
	      void *(*alloc)(void *ctx, size_t size),
	      void (*release)(void *ctx, void *chunk),
	      void (*reset)(void *ctx))
{
	const size_t count = params->count, size = params->size;
	const uintptr_t page = (uintptr_t)probe_page_size();
	const unsigned rounds = params->rounds ? params->rounds : 1;
	double cold_ns = 0, best_ns = 0;
	uint64_t faults0 = probe_minor_faults();
	size_t done = 0, end = count;
	void **ptrs;

	ptrs = measure_map_pointers(count, sample);
	if (!ptrs)
		return -1;
	for (unsigned r = 0; r < rounds; r++) {
		struct probe_time t0 = probe_now(), t1;
		double round_ns;

		done = 0;
		MEASURE_FILL(params->touch);
		for (size_t i = done; i-- > 0;)
			release(ctx, ptrs[i]);
		if (reset)
			reset(ctx);
		t1 = probe_now();
		if (done < count) {
			measure_unmap_pointers(ptrs, count);
			return sample_fail(sample, "round %u: allocation %zu of %zu (%zu bytes) failed",
					   r + 1, done + 1, count, size);
		}
		round_ns = probe_elapsed_ns(t0, t1);
		if (r == 0)
			cold_ns = round_ns;
		else if (r == 1 || round_ns < best_ns)
			best_ns = round_ns;
	}
	measure_unmap_pointers(ptrs, count);
	sample->rounds = rounds;
	sample->alloc_faults = probe_minor_faults() - faults0;
	sample->churn_cold_ns = cold_ns / (double)count;
	sample->churn_ns = rounds > 1 ? best_ns / (double)count : sample->churn_cold_ns;
	sample->ok = 1;
	return 0;
}

/* --------------------------------------------------------------- random */

/* An operation of the random workload: a free of a live slot, or an allocation. */
#define RANDOM_OP_FREE 0x80000000u
#define RANDOM_OP_ARG  0x7fffffffu

/* The whole sequence of the random workload, generated before measuring. */
struct random_plan {
	uint32_t *ops;            /* RANDOM_OP_FREE|slot, or the index of a size in the mix */
	size_t nops;
	size_t max_live;          /* most chunks alive at once */
	uint64_t alloc_bytes;     /* sum of every allocation's size */
	uint64_t live_bytes;      /* bytes alive at the end */
	uint64_t checksum;        /* FNV-1a of the seed, the mix and the sequence */
};

/*
 * Generates the sequence PARAMS describes (seed, mix, count = most chunks
 * alive): 4 * count steps, each an allocation with probability
 * 1 - live/count, else the free of a uniformly chosen live chunk, so the
 * live set grows, then churns around half of count. The same parameters give
 * the same sequence on every backend. Returns 0, or -1 with SAMPLE failed.
 */
int random_plan_make(const struct measure_params *params, struct random_plan *plan,
		     struct sample *sample);

/* Unmaps what random_plan_make() mapped. */
void random_plan_release(struct random_plan *plan);

#define MEASURE_RANDOM_LOOP(TOUCH)                                             \
	for (k = 0; k < plan->nops; k++) {                                     \
		uint32_t op = plan->ops[k];                                    \
		if (op & RANDOM_OP_FREE) {                                     \
			size_t slot = op & RANDOM_OP_ARG;                      \
			release(ctx, live[slot]);                              \
			live[slot] = live[--nlive];                            \
		} else {                                                       \
			size_t sz = params->mix[op];                           \
			unsigned char *chunk = alloc(ctx, sz);                 \
			if (__builtin_expect(!chunk, 0))                       \
				break;                                         \
			touch_chunk(chunk, sz, TOUCH, page);                   \
			live[nlive++] = chunk;                                 \
		}                                                              \
	}

/*
 * Runs PLAN with ALLOC and RELEASE, timing the whole sequence, and fills
 * op_ns, ops, peak_rss_bytes, live_bytes, fragmentation and checksum. The
 * chunks still alive are freed afterwards, untimed. Returns 0, or -1 with
 * SAMPLE failed.
 */
static inline __attribute__((always_inline)) int
measure_random(const struct measure_params *params, struct sample *sample,
	       const struct random_plan *plan, void *ctx,
	       void *(*alloc)(void *ctx, size_t size),
	       void (*release)(void *ctx, void *chunk))
{
	const uintptr_t page = (uintptr_t)probe_page_size();
	struct loop_peak lp;
	struct probe_time t0, t1;
	size_t k, nlive = 0;
	uint64_t faults0, peak;
	void **live;

	live = measure_map_pointers(plan->max_live, sample);
	if (!live)
		return -1;
	if (loop_peak_start(&lp, sample)) {
		measure_unmap_pointers(live, plan->max_live);
		return -1;
	}
	faults0 = probe_minor_faults();
	t0 = probe_now();
	switch (params->touch) {
	case TOUCH_NONE:  MEASURE_RANDOM_LOOP(TOUCH_NONE);  break;
	case TOUCH_FIRST: MEASURE_RANDOM_LOOP(TOUCH_FIRST); break;
	case TOUCH_PAGES: MEASURE_RANDOM_LOOP(TOUCH_PAGES); break;
	case TOUCH_FULL:  MEASURE_RANDOM_LOOP(TOUCH_FULL);  break;
	default: k = 0; break;
	}
	t1 = probe_now();
	sample->alloc_faults = probe_minor_faults() - faults0;
	peak = loop_peak_stop(&lp, sample);
	for (size_t i = 0; i < nlive; i++)
		release(ctx, live[i]);
	measure_unmap_pointers(live, plan->max_live);
	if (k < plan->nops)
		return sample_fail(sample, "operation %zu of %zu: allocation failed", k + 1, plan->nops);
	sample->ops = plan->nops;
	sample->op_ns = probe_elapsed_ns(t0, t1) / (double)plan->nops;
	sample->peak_rss_bytes = peak;
	sample->live_bytes = plan->live_bytes;
	sample->checksum = plan->checksum;
	sample->fragmentation = plan->live_bytes ?
		((double)sample->rss_after_bytes - (double)sample->rss_before_bytes) /
		(double)plan->live_bytes : 0;
	sample->ok = 1;
	return 0;
}

/* -------------------------------------------------------------- threads */

/* Holds the threads until all exist, then starts them together (or sends them home). */
struct threads_gate {
	pthread_mutex_t lock;
	pthread_cond_t opened;
	int go;                    /* start measuring */
	int abort;                 /* a thread could not be created: return at once */
};

/* One thread's share of the threads workload. */
struct threads_job {
	const struct measure_params *params;
	unsigned char *array;      /* the shared array: count elements of size bytes */
	size_t lo, hi;             /* this thread swaps elements lo..hi-1 with their mirrors */
	void *ctx;                 /* the backend's context for this thread */
	struct threads_gate *gate;
	int failed;                /* an allocation failed */
};

/* Waits at GATE; returns 1 when the thread is to run, 0 when it is to return. */
int threads_gate_wait(struct threads_gate *gate);

/*
 * The per-thread Alloc/Free pattern (README: Workloads) for one thread:
 * for each index of its share, allocate a temporary, copy the element into it, copy the mirror element over the
 * element, the temporary over the mirror, free the temporary; PARAMS->rounds
 * times, calling RESET after each round. A backend's thread entry calls
 * this with its own functions.
 */
static inline __attribute__((always_inline)) void *
threads_body(struct threads_job *job,
	     void *(*alloc)(void *ctx, size_t size),
	     void (*release)(void *ctx, void *chunk),
	     void (*reset)(void *ctx))
{
	const size_t size = job->params->size, last = job->params->count - 1;
	unsigned char *a = job->array;
	void *ctx = job->ctx;

	if (!threads_gate_wait(job->gate))
		return NULL;
	for (unsigned r = 0; r < job->params->rounds; r++) {
		for (size_t i = job->lo; i < job->hi; i++) {
			unsigned char *tmp = alloc(ctx, size);

			if (__builtin_expect(!tmp, 0)) {
				job->failed = 1;
				return NULL;
			}
			memcpy(tmp, a + i * size, size);
			memcpy(a + i * size, a + (last - i) * size, size);
			memcpy(a + (last - i) * size, tmp, size);
			release(ctx, tmp);
		}
		if (reset)
			reset(ctx);
	}
	return NULL;
}

/*
 * Runs the threads workload: once with one thread, then with PARAMS->threads
 * threads, each started at ENTRY (a function that calls threads_body()) with
 * a job whose ctx ATTACH(SHARED, thread index, &ctx) provides (it returns 0,
 * or -1 when it cannot). Fills ops, ops_per_s,
 * ops_per_s_1thread, threads and rounds. Returns 0, or -1 with SAMPLE failed.
 */
int measure_threads(const struct measure_params *params, struct sample *sample,
		    void *shared, int (*attach)(void *shared, unsigned index, void **ctx),
		    void *(*entry)(void *job));

#endif
