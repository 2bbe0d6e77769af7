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

#include "platform/counters.h"
#include "measure/allocinfo.h"
#include "platform/probe.h"

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

/* What the measured program does (--workload); each comes from one seed document. */
enum workload {
	WORKLOAD_FILL,    /* allocate count chunks, free them, fill again warm (README: Workloads) */
	WORKLOAD_CHURN,   /* create count objects, destroy them, for rounds (README: Workloads) */
	WORKLOAD_RANDOM,  /* a seeded random live set of mixed sizes (README: Workloads) */
	WORKLOAD_THREADS, /* threads swap array elements through a temporary (README: Workloads) */
	WORKLOAD_REPLAY,  /* a recorded program's calls (allocbench record; src/measure/replay.h) */
	WORKLOAD_COUNT
};

/* Whether WORKLOAD measures one heap of many sizes: one row per backend, no size column. */
static inline int workload_one_column(enum workload workload)
{
	return workload == WORKLOAD_RANDOM || workload == WORKLOAD_REPLAY;
}

/* Name as given to --workload; NULL for an invalid value. */
const char *workload_name(enum workload workload);

/* Parses NAME into *WORKLOAD; returns 0, or -1 if NAME is not a workload. */
int workload_parse(const char *name, enum workload *workload);

/*
 * Rounds of churn or threads when --rounds is not given, for COUNT chunks:
 * about 16 million operations in all, from 2 to 1000 rounds.
 */
unsigned workload_default_rounds(enum workload workload, size_t count);

/* The largest weight of a size in a weighted mix (--sizes 24:70,48:30). */
#define MEASURE_MAX_WEIGHT 1000000

/* Most sizes one random workload mixes. */
#define MEASURE_MAX_MIX 64

/* Most threads the threads workload runs. */
#define MEASURE_MAX_THREADS 256

struct random_plan;
struct replay_plan;

/*
 * The parameters of one measurement: what the parent sends (the fields of
 * measure/request.c's table), then what the child sets up for itself.
 */
struct measure_params {
	size_t size;             /* bytes per chunk (random: the mean of the mix) */
	size_t count;            /* chunks: total / size */
	size_t align;            /* alignment of pool and arena chunks, bytes; 0 = natural */
	size_t pool_block_bytes; /* bytes the pool takes from the system at a time */
	enum touch_policy touch;
	enum workload workload;
	unsigned rounds;         /* churn, threads: repetitions of the pattern */
	uint64_t seed;           /* random: the generator's seed */
	unsigned threads;        /* threads: how many run at once */
	size_t nmix;             /* random: sizes in the mix */
	size_t mix[MEASURE_MAX_MIX]; /* random: the sizes, bytes */
	unsigned mix_weight[MEASURE_MAX_MIX]; /* random: their weights; all 0: every size
						 as likely (the sequence of an unweighted
						 mix is the one it always was) */
	int replay_per_thread;   /* replay: 1 each recorded thread in a thread of its own,
				    0 every call in one thread in the recorded order */

	/* Set up by the measuring process, never sent. */
	const struct random_plan *plan; /* random: the sequence */
	const struct replay_plan *replay; /* replay: the trace's steps */
	struct counters *counters;  /* its open counters, or NULL when not counting */
	unsigned segments;          /* fill: the loop in this many parts, an RSS reading
				       after each (MEASURE_SEGMENTS; 1 = before and after only) */
};

/*
 * The fill reads the resident set at the end of each of this many parts of
 * its count (quarters), with the clock stopped, so that the report can fit a
 * line to the growth: its slope is the cost of one more chunk, its intercept
 * the allocator's one-time cost (README: The method). The tests' switch
 * MEASURE_READINGS_ENV=off makes it 1, for `make bench` to compare timings.
 */
#define MEASURE_SEGMENTS 4
#define MEASURE_READINGS_ENV "ALLOCBENCH_TEST_READINGS"

/* The result of one measurement in one fresh process; plain data, sent over a pipe. */
/* What a sample keeps of a measuring process's standard output and error. */
#define SAMPLE_OUTPUT_LINES 4
#define SAMPLE_OUTPUT_LINE_BYTES 160
#define SAMPLE_OUTPUT_BYTES (SAMPLE_OUTPUT_LINES * (SAMPLE_OUTPUT_LINE_BYTES + 4) + 1)

/* Points of a replay's memory over time: evenly spaced in its steps (replay_series.h). */
#define SAMPLE_SERIES_POINTS 200

struct sample {
	int ok;                     /* 1 when every figure below is valid */
	char error[200];            /* why not, when ok is 0 */
	uint64_t rss_before_bytes;  /* resident set before the allocation loop */
	uint64_t rss_after_bytes;   /* resident set after it */
	unsigned nreadings;         /* fill: readings below, the last at count (rss_after) */
	uint64_t reading_chunks[MEASURE_SEGMENTS]; /* fill: chunks allocated at each reading */
	uint64_t reading_bytes[MEASURE_SEGMENTS];  /* fill: the resident set then, bytes */
	double alloc_ns;            /* allocation loop (with touching), ns per chunk */
	double free_ns;             /* free loop plus backend teardown, ns per chunk */
	uint64_t alloc_faults;      /* minor page faults during the allocation loop */
	uint64_t free_faults;       /* minor page faults during the free loop */
	uint64_t reserved_bytes;    /* pool/arena: bytes the backend took from the system */
	uint64_t peak_memory_bytes; /* the measuring process's peak resident set (VmHWM) */

	/* fill: the same fill again in the same process, after everything was freed */
	double warm_alloc_ns;       /* ns per allocation, warm */
	double warm_free_ns;        /* ns per free, warm */
	uint64_t warm_faults;       /* minor page faults during the warm allocation loop */

	/* churn */
	unsigned rounds;            /* rounds run (churn, threads) */
	double churn_ns;            /* ns per create+destroy pair, fastest of rounds 2..R (or 1) */
	double churn_cold_ns;       /* ns per pair in the first round */

	/* random */
	uint64_t ops;               /* allocations plus frees (random, threads) */
	double op_ns;               /* ns per operation */
	uint64_t live_bytes;        /* bytes requested and not freed at the end */
	uint64_t peak_rss_bytes;    /* highest resident set during the loop minus before */
	double fragmentation;       /* (rss after - rss before) / live bytes */
	uint64_t checksum;          /* FNV-1a of the operation sequence */
	uint64_t peak_live_bytes;   /* replay: most bytes asked for and not yet freed */
	uint64_t entry_anon_bytes;  /* anonymous memory when main() began (probe_entry_anon_bytes()) */
	uint64_t setup_bytes;       /* replay: the allocator's set-up, counted in peak_rss_bytes;
				       filled by the parent (runner_measure()) */

	/* replay (one thread, --replay-threads global): memory over time (replay_series.h) */
	unsigned nseries;           /* points below: SAMPLE_SERIES_POINTS, or one per step
				       for fewer steps; 0: none */
	uint64_t series_steps[SAMPLE_SERIES_POINTS];      /* steps done at the point */
	uint64_t series_rss_bytes[SAMPLE_SERIES_POINTS];  /* resident anonymous memory then,
							     over rss_before_bytes */
	uint64_t series_live_bytes[SAMPLE_SERIES_POINTS]; /* bytes asked for and not yet freed then */

	/* threads */
	unsigned threads;           /* threads run at once */
	double ops_per_s;           /* swaps per second, all threads together */
	double ops_per_s_1thread;   /* swaps per second with one thread */
	struct counter_values counters; /* events counted around each loop (counters.h) */
	struct allocator_info allocator; /* malloc family: who served malloc; zero otherwise */

	/*
	 * Filled by the parent, not sent by the child (runner.c): the last
	 * lines the measuring process wrote on its standard output and error,
	 * which are never part of the report. At most SAMPLE_OUTPUT_LINES
	 * lines, separated by newlines, each cut to SAMPLE_OUTPUT_LINE_BYTES,
	 * control characters and invalid UTF-8 replaced; "" when it wrote none.
	 */
	char child_stdout[SAMPLE_OUTPUT_BYTES];
	char child_stderr[SAMPLE_OUTPUT_BYTES];
	unsigned long child_stdout_lines;  /* lines it wrote on stdout in all */
	unsigned long child_stderr_lines;  /* lines it wrote on stderr in all */
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
 * The peak of a measured loop alone (random, replay): what the process
 * reached before it (the plan, PAPI's set-up) goes to SAMPLE's
 * peak_memory_bytes, for the memory guard, and the kernel's high-water
 * mark starts again (probe_peak_reset()). File pages the loop maps (its own
 * code, 64 KiB at a time by the kernel's fault-around, where it was not
 * mapped yet) are not the allocator's: their growth is taken off the peak.
 */
struct loop_peak {
	int fd;                 /* the RSS reader (probe_rss_open()) */
	int reset;              /* probe_peak_reset()'s result */
	uint64_t total_before;  /* the whole resident set before the loop */
	uint64_t file_before;   /* RssFile before the loop */
};

/*
 * Before the loop: reads SAMPLE's rss_before_bytes and peak_memory_bytes
 * and starts the peak again. Returns 0, or -1 with SAMPLE failed.
 */
int loop_peak_start(struct loop_peak *lp, struct sample *sample);

/*
 * After the loop: reads SAMPLE's rss_after_bytes and closes the reader.
 * Returns the loop's peak resident set over the one before it.
 */
uint64_t loop_peak_stop(struct loop_peak *lp, struct sample *sample);

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
 * them with RELEASE in allocation order and calls RESET (may be NULL: the
 * arena's rewind), filling SAMPLE. Then, for the warm figures, fills again
 * in the same process and frees again. CTX is passed through. Because this
 * function and the callbacks are inlined, pass the callbacks as the functions
 * themselves, never through a variable.
 *
 * The touch policy is switched on outside the loop: one loop per policy.
 * The counters (PARAMS->counters) start right before each loop's first clock
 * reading and stop right after its last, so that their start and stop are
 * not timed; the program's own events are noted after a loop, never in it.
 * Returns 0, or -1 with SAMPLE failed.
 */
#define MEASURE_FILL_LOOP(TOUCH)                                               \
	for (; done < end; done++) {                                           \
		unsigned char *chunk = alloc(ctx, size);                       \
		if (__builtin_expect(!chunk, 0))                               \
			break;                                                 \
		touch_chunk(chunk, size, TOUCH, page);                         \
		ptrs[done] = chunk;                                            \
	}

/* Fills PTRS[DONE..END) with touched chunks; leaves the number allocated in DONE. */
#define MEASURE_FILL(TOUCH_POLICY)                                             \
	switch (TOUCH_POLICY) {                                                \
	case TOUCH_NONE:  MEASURE_FILL_LOOP(TOUCH_NONE);  break;               \
	case TOUCH_FIRST: MEASURE_FILL_LOOP(TOUCH_FIRST); break;               \
	case TOUCH_PAGES: MEASURE_FILL_LOOP(TOUCH_PAGES); break;               \
	case TOUCH_FULL:  MEASURE_FILL_LOOP(TOUCH_FULL);  break;               \
	default: break;                                                        \
	}

/*
 * Maps the array of COUNT pointers (measure_map_pointers()) and opens the
 * RSS reader with SAMPLE's rss_before_bytes read, the last thing before
 * the loop. Returns the array with *FD open, or NULL with SAMPLE failed
 * and nothing left open or mapped.
 */
static inline __attribute__((always_inline)) void **
measure_open(size_t count, struct sample *sample, int *fd)
{
	void **ptrs = measure_map_pointers(count, sample);

	if (!ptrs)
		return NULL;
	*fd = probe_rss_open();
	if (*fd < 0 || probe_rss_read(*fd, &sample->rss_before_bytes)) {
		if (*fd >= 0)
			close(*fd);
		measure_unmap_pointers(ptrs, count);
		sample_fail(sample, "cannot read the resident set size from /proc/self/smaps_rollup");
		return NULL;
	}
	return ptrs;
}

/*
 * A reading between two parts of the loop, at DONE chunks, with the clock
 * stopped: the resident set into SAMPLE's next reading. Returns the page
 * faults the reading itself took, which are no part of the loop's.
 */
static inline __attribute__((always_inline)) uint64_t
measure_reading(int fd, size_t done, struct sample *sample)
{
	uint64_t f;

	/* Small counts: no reading at 0 chunks, none twice at one count. */
	if (!done || (sample->nreadings &&
		      done == sample->reading_chunks[sample->nreadings - 1]))
		return 0;
	/* A reading that fails is left out: the line needs no more than two. */
	f = probe_minor_faults();
	if (!probe_rss_read(fd, &sample->reading_bytes[sample->nreadings]))
		sample->reading_chunks[sample->nreadings++] = done;
	return probe_minor_faults() - f;
}

/*
 * Warm: the allocator's own speed, with the kernel's page faults mostly
 * gone. Once measure_fill_inspect() has freed its chunks, the same fill
 * again into PTRS and the same free loop; SAMPLE's warm figures only when
 * all PARAMS->count chunks were allocated. Returns the number allocated.
 */
static inline __attribute__((always_inline)) size_t
measure_warm(const struct measure_params *params, void *ctx,
	     void *(*alloc)(void *ctx, size_t size),
	     void (*release)(void *ctx, void *chunk),
	     void (*reset)(void *ctx), void **ptrs, struct sample *sample)
{
	const size_t count = params->count, size = params->size;
	const uintptr_t page = (uintptr_t)probe_page_size();
	struct probe_time t0, t1, t2;
	uint64_t faults0, faults1;
	size_t done = 0, end = count, i;

	faults0 = probe_minor_faults();
	t0 = probe_now();
	MEASURE_FILL(params->touch);
	t1 = probe_now();
	faults1 = probe_minor_faults();
	for (i = 0; i < done; i++)
		release(ctx, ptrs[i]);
	if (reset)
		reset(ctx);
	t2 = probe_now();
	if (done == count) {
		sample->warm_alloc_ns = probe_elapsed_ns(t0, t1) / (double)count;
		sample->warm_free_ns = probe_elapsed_ns(t1, t2) / (double)count;
		sample->warm_faults = faults1 - faults0;
	}
	return done;
}

/*
 * measure_fill_inspect() is measure_fill() that also calls INSPECT (may be
 * NULL) once every chunk is allocated: after the last RSS reading and
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
		     void (*reset)(void *ctx),
		     void (*inspect)(void *ctx, void *const *chunks, size_t count,
				     struct sample *sample))
{
	const size_t count = params->count, size = params->size;
	const uintptr_t page = (uintptr_t)probe_page_size();
	struct probe_time t0, t1, t2, t3;
	uint64_t faults0, faults1, faults2, inspect_faults = 0, reading_faults;
	unsigned segments, k;
	double alloc_ns;
	size_t done, i, end;
	void **ptrs;
	int fd;

	ptrs = measure_open(count, sample, &fd);
	if (!ptrs)
		return -1;

	/*
	 * The loop in parts, an RSS reading between two parts with the clock
	 * stopped: its time and its page faults are no part of the loop's.
	 * Nothing is allocated between the readings but the chunks; the
	 * counters run on through the readings (stopping them between parts
	 * would cost more than a reading).
	 */
	segments = params->segments ? params->segments : 1;
	if (segments > MEASURE_SEGMENTS)
		segments = MEASURE_SEGMENTS;
	done = 0;
	alloc_ns = 0;
	reading_faults = 0;
	faults0 = probe_minor_faults();
	counters_start(params->counters);
	for (k = 1; k <= segments; k++) {
		end = k == segments ? count : count / segments * k;
		t0 = probe_now();
		MEASURE_FILL(params->touch);
		t1 = probe_now();
		alloc_ns += probe_elapsed_ns(t0, t1);
		if (done < end || k == segments)
			break;
		reading_faults += measure_reading(fd, done, sample);
	}
	counters_note_allocs(done, size);
	counters_stop(params->counters, COUNTERS_ALLOC_LOOP, &sample->counters);
	faults1 = probe_minor_faults();
	probe_rss_read(fd, &sample->rss_after_bytes);
	close(fd);
	sample->reading_bytes[sample->nreadings] = sample->rss_after_bytes;
	sample->reading_chunks[sample->nreadings++] = done;
	if (inspect && done == count) {
		inspect_faults = probe_minor_faults();
		inspect(ctx, ptrs, count, sample);
		inspect_faults = probe_minor_faults() - inspect_faults;
	}

	counters_start(params->counters);
	t2 = probe_now();
	for (i = 0; i < done; i++)
		release(ctx, ptrs[i]);
	if (reset)
		reset(ctx);
	t3 = probe_now();
	counters_note_frees(done);
	counters_stop(params->counters, COUNTERS_FREE_LOOP, &sample->counters);
	faults2 = probe_minor_faults();
	if (done < count) {
		measure_unmap_pointers(ptrs, count);
		return sample_fail(sample, "allocation %zu of %zu (%zu bytes) failed",
				   done + 1, count, size);
	}
	sample->alloc_ns = alloc_ns / (double)count;
	sample->free_ns = probe_elapsed_ns(t2, t3) / (double)count;
	sample->alloc_faults = faults1 - faults0 - reading_faults;
	sample->free_faults = faults2 - faults1 - inspect_faults;

	done = measure_warm(params, ctx, alloc, release, reset, ptrs, sample);
	measure_unmap_pointers(ptrs, count);
	if (done < count)
		return sample_fail(sample, "warm allocation %zu of %zu (%zu bytes) failed",
				   done + 1, count, size);
	sample->ok = 1;
	return 0;
}

/* measure_fill(), as documented above MEASURE_FILL_LOOP: no inspection. */
static inline __attribute__((always_inline)) int
measure_fill(const struct measure_params *params, struct sample *sample, void *ctx,
	     void *(*alloc)(void *ctx, size_t size),
	     void (*release)(void *ctx, void *chunk),
	     void (*reset)(void *ctx))
{
	return measure_fill_inspect(params, sample, ctx, alloc, release, reset, NULL);
}

#endif
