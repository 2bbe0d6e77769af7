/*
 * replay.h - the replay workload's measured loop (replay.c): a trace's
 * steps (trace/trace.h) in the recorded global order, in one thread, as a
 * static inline template each backend instantiates with its own functions.
 */
#ifndef ALLOCBENCH_REPLAY_H
#define ALLOCBENCH_REPLAY_H

#include "measure/measure.h"
#include "measure/replay_series.h"
#include "trace/trace.h"

#include <errno.h>
#include <string.h>


/* The pool backend's largest size class; larger requests go to malloc. */
#define REPLAY_POOL_MAX_BYTES 1024

/*
 * The pointer-sized words measure_map_pointers() maps for N items of TYPE:
 * a slot's meta is 8 bytes on a 32-bit build too (its 4-byte pointers
 * once made the meta run past its mapping into the chunks': the 32-bit
 * replay of a trace of 200 live chunks died freeing a size).
 */
#define REPLAY_WORDS(n, type) (((n) * sizeof(type) + sizeof(void *) - 1) / sizeof(void *))

/* A slot's meta: its size, with this bit when it was allocated at an alignment above 16. */
#define REPLAY_META_ALIGNED ((uint64_t)1 << 63)

/* The backends' replay: 0 with SAMPLE filled, or -1 with SAMPLE failed. */
int replay_run_malloc(const struct measure_params *params, struct sample *sample);
int replay_run_pool(const struct measure_params *params, struct sample *sample);
int replay_run_arena(const struct measure_params *params, struct sample *sample);

/* Of an allocating step's chunk, the bytes the program wrote (the first ones). */
static inline size_t replay_written(const struct replay_op *op)
{
	if (__builtin_expect(!op->unwritten, 1))
		return (size_t)op->size;
	return (size_t)((double)op->size * (double)(65535 - op->unwritten) / 65535.0);
}

/* One step of the replay; sets FAILED and breaks out of the loop when an allocation fails. */
#define REPLAY_STEP(op, TOUCH, alloc, resize, release)                                               \
	do {                                                                   \
		uint32_t slot_ = (op)->slot;                                   \
		size_t size_ = (size_t)(op)->size;                             \
		unsigned char *c_;                                             \
		if ((op)->kind == REPLAY_FREE) {                               \
			release(ctx, live[slot_], meta[slot_]);                \
			live[slot_] = NULL;                                    \
			break;                                                 \
		}                                                              \
		if ((op)->kind == REPLAY_RESIZE) {                             \
			c_ = resize(ctx, live[slot_], meta[slot_], size_);     \
			meta[slot_] = size_;                                   \
		} else {                                                       \
			size_t align_ = (op)->kind == REPLAY_ALIGNED ?         \
				(size_t)1 << (op)->align_log2 : 0;             \
			c_ = alloc(ctx, size_, align_, (op)->kind == REPLAY_ZALLOC); \
			meta[slot_] = size_ | (align_ > 16 ? REPLAY_META_ALIGNED : 0); \
		}                                                              \
		if (__builtin_expect(!c_, 0)) {                                \
			failed = 1;                                            \
			break;                                                 \
		}                                                              \
		if ((size_ = replay_written(op)))                              \
			touch_chunk(c_, size_, TOUCH, page);                   \
		live[slot_] = c_;                                              \
	} while (0)

/* The steps from K to END (a point of the series, the window's end, or the last), in VIEW. */
#define MEASURE_REPLAY_LOOP(TOUCH)                                             \
	for (; k < end && !failed; k++)                                        \
		REPLAY_STEP(&view.ops[k - view.base], TOUCH, alloc, resize, release);

/*
 * What a replay that succeeded measured, both ways of replaying: the plan's
 * figures, ELAPSED_NS over its steps and the loop's PEAK_RSS; SAMPLE ok.
 */
static inline void replay_sample_done(struct sample *sample, const struct replay_plan *plan,
				      double elapsed_ns, uint64_t peak_rss)
{
	sample->ops = plan->nops;
	sample->op_ns = plan->nops ? elapsed_ns / (double)plan->nops : 0;
	sample->peak_rss_bytes = peak_rss;
	sample->peak_live_bytes = plan->peak_live_bytes;
	sample->live_bytes = plan->live_bytes_end;
	sample->checksum = plan->checksum;
	sample->fragmentation = plan->peak_live_bytes ?
		(double)peak_rss / (double)plan->peak_live_bytes : 0;
	sample->ok = 1;
}

/* A replay whose steps from K could not be mapped (ERR, an errno): -1 with SAMPLE failed. */
static inline int replay_unmapped(struct sample *sample, size_t k, int err)
{
	return sample_fail(sample, "cannot map the replay's steps from step %zu: %s", k,
			   strerror(err));
}

/*
 * Runs PARAMS->replay in the recorded order with ALLOC (ALIGN 0: natural;
 * ZERO: calloc), RESIZE (realloc: the chunk, its meta, the new size) and
 * RELEASE, touching each chunk per PARAMS->touch, and fills ops, op_ns,
 * peak_rss_bytes (the highest resident set during the loop over the one
 * before it), peak_live_bytes (the sequence's), fragmentation (peak RSS
 * over peak live bytes), page faults, checksum and the series
 * (replay_series.h: read in pauses of the loop, neither timed nor counted).
 * The chunks still alive are freed afterwards, untimed. Returns 0, or -1
 * with SAMPLE failed.
 */
static inline __attribute__((always_inline)) int
measure_replay(const struct measure_params *params, struct sample *sample, void *ctx,
	       void *(*alloc)(void *ctx, size_t size, size_t align, int zero),
	       void *(*resize)(void *ctx, void *chunk, uint64_t meta, size_t size),
	       void (*release)(void *ctx, void *chunk, uint64_t meta))
{
	const struct replay_plan *plan = params->replay;
	const uintptr_t page = (uintptr_t)probe_page_size();
	size_t nslots = plan->nslots ? plan->nslots : 1, k = 0, end;
	struct replay_series rs;
	struct plan_view view = { 0 };
	struct loop_peak lp;
	struct probe_time t0, t1;
	uint64_t faults0, peak, *meta;
	double elapsed_ns = 0;
	void **live;
	int failed = 0, unmapped = 0;

	live = measure_map_pointers(nslots, sample);
	meta = live ? (uint64_t *)(void *)measure_map_pointers(REPLAY_WORDS(nslots, uint64_t), sample) :
	       NULL;
	if (!meta) {
		if (live)
			measure_unmap_pointers(live, nslots);
		return -1;
	}
	replay_series_start(&rs, plan, sample, meta);
	/* The first window mapped before the readings: each after it is as large (plan_view_at()). */
	if (!plan_view_at(&view, plan, 0) || loop_peak_start(&lp, sample)) {
		if (!view.ops)
			replay_unmapped(sample, 0, errno);
		plan_view_close(&view);
		replay_series_stop(&rs, sample);
		measure_unmap_pointers(live, nslots);
		measure_unmap_pointers((void **)(void *)meta, REPLAY_WORDS(nslots, uint64_t));
		return -1;
	}
	faults0 = probe_minor_faults();
	do {
		size_t due = replay_series_due(&rs, sample, plan->nops);

		/* The window of steps moved on between two timed stretches, as a point is read. */
		if (!plan_view_at(&view, plan, k)) {
			unmapped = errno;
			break;
		}
		end = due < view.base + view.n ? due : view.base + view.n;
		t0 = probe_now();
		switch (params->touch) {
		case TOUCH_NONE:  MEASURE_REPLAY_LOOP(TOUCH_NONE);  break;
		case TOUCH_FIRST: MEASURE_REPLAY_LOOP(TOUCH_FIRST); break;
		case TOUCH_PAGES: MEASURE_REPLAY_LOOP(TOUCH_PAGES); break;
		case TOUCH_FULL:  MEASURE_REPLAY_LOOP(TOUCH_FULL);  break;
		default: k = end; break;
		}
		t1 = probe_now();
		elapsed_ns += probe_elapsed_ns(t0, t1);
		if (!failed && k == due)
			replay_series_read(&rs, sample);
	} while (k < plan->nops && !failed);
	sample->alloc_faults = probe_minor_faults() - faults0 - rs.faults;
	peak = loop_peak_stop(&lp, sample);
	replay_series_stop(&rs, sample);
	for (size_t i = 0; i < nslots; i++)
		if (live[i])
			release(ctx, live[i], meta[i]);
	measure_unmap_pointers(live, nslots);
	measure_unmap_pointers((void **)(void *)meta, REPLAY_WORDS(nslots, uint64_t));
	if (failed) {
		unsigned long long size = view.ops[k - 1 - view.base].size;

		plan_view_close(&view);
		return sample_fail(sample, "step %zu of %zu: allocation of %llu bytes failed", k,
				   plan->nops, size);
	}
	plan_view_close(&view);
	if (unmapped)
		return replay_unmapped(sample, k, unmapped);
	replay_sample_done(sample, plan, elapsed_ns, peak);
	return 0;
}

#endif
