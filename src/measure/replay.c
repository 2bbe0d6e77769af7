/*
 * replay.c - the replay workload: a recorded program's calls (trace/trace.h)
 * run again in the measuring process, on malloc (or the preloaded
 * allocator), the pools, or the arena (replay.h).
 *
 * The loop is a static inline template instantiated once per backend, as
 * the other workloads' are: no indirect call per step. Chunks are slots
 * (trace_analyze.c hands them out again), never the recorded addresses.
 *
 * What the pools and the arena do with a trace of many sizes (said in the
 * report, README: Your program's allocations):
 *   pool   one pool per 16-byte size class up to REPLAY_POOL_MAX_BYTES
 *          (64 pools, made on first use, chunks aligned to 16); larger
 *          requests, and requests for an alignment above 16, go to the C
 *          library's malloc, as a program's own pools would hand them on.
 *          realloc is a new chunk, a copy and a free.
 *   arena  every request from one region, at its size's natural alignment
 *          (or the one asked for); frees do nothing, realloc copies.
 */
#include "measure/allocator.h"
#include "measure/backend.h"
#include "platform/heap.h"
#include "platform/parse.h"
#include "measure/pool.h"
#include "measure/arena.h"
#include "measure/replay.h"
#include "measure/workloads.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ malloc */

static inline void *libc_replay_alloc(void *ctx, size_t size, size_t align, int zero)
{
	const struct heap_functions *h = ctx;
	void *p = NULL;

	if (align)
		return h->posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) ?
		       NULL : p;
	return zero ? h->calloc(1, size) : h->malloc(size);
}

static inline void *libc_replay_resize(void *ctx, void *chunk, uint64_t meta, size_t size)
{
	const struct heap_functions *h = ctx;
	void *p;

	(void)meta;
	if (__builtin_expect(size, 1))
		return h->realloc(chunk, size);
	/*
	 * realloc(p, 0) that gave the program a chunk (mimalloc's, jemalloc's
	 * do; one that returned NULL is a free in the plan): what the program
	 * saw, a new chunk of 0 bytes, and not glibc's realloc, which would
	 * free p and return NULL.
	 */
	p = h->malloc(0);
	if (p)
		h->free(chunk);
	return p;
}

static inline void libc_replay_release(void *ctx, void *chunk, uint64_t meta)
{
	(void)meta;
	((const struct heap_functions *)ctx)->free(chunk);
}

/*
 * A per-thread replay keeps the recorded order to within a window of
 * REPLAY_WINDOW_STEPS steps: every thread alive runs its steps of a
 * window, then waits for the next. Without it a thread runs ahead of the
 * others, as a producer would without the queue that held it back in the
 * program, and the peak is no longer the program's (a program whose three
 * producers hand messages to a consumer that frees them: 95 MB replayed
 * unbounded against 44 MB for real; 44.4 MB with windows of 16 to 1024
 * steps). A window also ends at each point of the series, which the main
 * thread reads while the others wait.
 *
 * A recorded thread is alive in the replay as in the program: started
 * before the window of its first step, ended after the window of its last.
 * Programs make threads in waves (51 recorded, 2 or 3 alive at a time):
 * started all at once, every allocator paid per-thread memory for all of
 * them (a replay at 880 MB of a program at 30 MB).
 *
 * REPLAY_WINDOW_STEPS is trace.h's: the plan hands out no slot again within
 * a window of its free.
 *
 * The threads find their steps in the plan's window mapped (struct
 * plan_view, PLAN_VIEW_STEPS steps): when the windows of steps reach its
 * end, the main thread maps the next and splits it by thread (an index of
 * 4 bytes a step, for that window only) while the others wait.
 */

/* What the threads of a per-thread replay share. */
struct replay_shared {
	const struct replay_plan *plan;
	struct plan_view view;    /* the steps mapped */
	uint32_t *index;          /* the view's steps by thread, a job's from its steps */
	void *ctx;
	void **live;
	uint64_t *meta;
	uint32_t *version;        /* per slot: the steps done on it */
	struct sample *sample;
	enum touch_policy touch;
	int stop;                 /* an allocation failed in some thread: stop them all */
	/* The windows: the main thread opens each, the threads alive run it. */
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	uint64_t window;          /* windows opened so far */
	size_t end;               /* the open window's end, a step of the plan */
	uint32_t running;         /* threads alive still in the open window */
	int quit;                 /* the replay ends: every thread returns */
};

/* One recorded thread's share of a per-thread replay. */
struct replay_job {
	struct replay_shared *sh;
	uint32_t *steps;          /* its steps in the view (their places there), in order */
	size_t n, at;             /* how many; the next to run */
	size_t first;             /* its first step in the plan (SIZE_MAX: none) */
	uint64_t left;            /* its steps still to run, in the whole plan */
	double step_ns;           /* its CPU time in its steps, waits left out */
	uint64_t window;          /* the last window it has run (or the one open when it started) */
	int failed;
	int finished;             /* its last step done (or stopped): it returns */
};

/*
 * A step on a chunk waits until the steps before it on that chunk (its
 * allocation, a realloc, in whichever thread) are done: a free from another
 * thread comes after the allocation, as recorded. Any wait ends: every
 * step it waits for has a smaller place in the recorded order, so it is in
 * this window or an earlier one, and each thread runs its steps in that
 * order. Once a thread's allocation fails, every thread stops stepping.
 */
#define LIBC_STEP(TOUCH) \
	REPLAY_STEP(op, TOUCH, libc_replay_alloc, libc_replay_resize, libc_replay_release)

static void replay_thread_steps(struct replay_job *job, size_t end)
{
	struct replay_shared *sh = job->sh;
	const uintptr_t page = (uintptr_t)probe_page_size();
	void *ctx = sh->ctx, **live = sh->live;
	uint64_t *meta = sh->meta;
	struct probe_time c0 = probe_thread_cpu();
	double waited_ns = 0;
	int failed = 0;

	for (; job->at < job->n && sh->view.base + job->steps[job->at] < end; job->at++, job->left--) {
		const struct replay_op *op = &sh->view.ops[job->steps[job->at]];

		if (__atomic_load_n(&sh->version[op->slot], __ATOMIC_ACQUIRE) != op->version) {
			struct probe_time w0 = probe_thread_cpu();

			while (__atomic_load_n(&sh->version[op->slot], __ATOMIC_ACQUIRE) !=
			       op->version && !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
				sched_yield();
			waited_ns += probe_elapsed_ns(w0, probe_thread_cpu());
		}
		if (__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
			break;
		switch (sh->touch) {
		case TOUCH_NONE:  LIBC_STEP(TOUCH_NONE);  break;
		case TOUCH_FIRST: LIBC_STEP(TOUCH_FIRST); break;
		case TOUCH_PAGES: LIBC_STEP(TOUCH_PAGES); break;
		default:          LIBC_STEP(TOUCH_FULL);  break;
		}
		if (failed) {
			job->failed = 1;
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
			break;
		}
		__atomic_store_n(&sh->version[op->slot], op->version + 1, __ATOMIC_RELEASE);
	}
	job->step_ns += probe_elapsed_ns(c0, probe_thread_cpu()) - waited_ns;
	if (__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
		job->left = 0;
}

/* A recorded thread other than the first: each window opened, its steps in it, until its last. */
static void *replay_thread(void *arg)
{
	struct replay_job *job = arg;
	struct replay_shared *sh = job->sh;

	for (;;) {
		size_t end;

		pthread_mutex_lock(&sh->lock);
		while (sh->window == job->window && !sh->quit)
			pthread_cond_wait(&sh->go, &sh->lock);
		if (sh->quit) {
			pthread_mutex_unlock(&sh->lock);
			return NULL;
		}
		job->window = sh->window;
		end = sh->end;
		pthread_mutex_unlock(&sh->lock);
		replay_thread_steps(job, end);
		pthread_mutex_lock(&sh->lock);
		job->finished = !job->left;
		if (--sh->running == 0)
			pthread_cond_signal(&sh->done);
		pthread_mutex_unlock(&sh->lock);
		if (job->finished)
			return NULL;
	}
}

/*
 * Each thread's first step and count, in a pass over the plan's steps
 * (JOBS zeroed). Returns 0, or -1 with errno when they cannot be mapped.
 */
static int jobs_count(struct replay_job *jobs, uint32_t nthreads, const struct replay_plan *plan)
{
	struct plan_view view = { 0 };

	for (uint32_t t = 0; t < nthreads; t++)
		jobs[t].first = SIZE_MAX;
	for (size_t k = 0; k < plan->nops; k++) {
		const struct replay_op *op = plan_view_at(&view, plan, k);

		if (!op)
			return -1;
		if (!jobs[op->thread].left++)
			jobs[op->thread].first = k;
	}
	plan_view_close(&view);
	return 0;
}

/*
 * The view moved to step K and its steps split by thread, each job's from
 * its first (the others wait). Returns 0, or -1 with errno.
 */
static int jobs_split(struct replay_shared *sh, struct replay_job *jobs, uint32_t nthreads,
		      size_t k)
{
	const struct replay_op *ops;
	uint32_t *next = sh->index;

	if (!plan_view_at(&sh->view, sh->plan, k))
		return -1;
	ops = sh->view.ops;
	for (uint32_t t = 0; t < nthreads; t++)
		jobs[t].n = jobs[t].at = 0;
	for (size_t i = 0; i < sh->view.n; i++)
		jobs[ops[i].thread].n++;
	for (uint32_t t = 0; t < nthreads; t++) {
		jobs[t].steps = next;
		next += jobs[t].n;
		jobs[t].n = 0;
	}
	for (size_t i = 0; i < sh->view.n; i++) {
		struct replay_job *j = &jobs[ops[i].thread];

		j->steps[j->n++] = (uint32_t)i;
	}
	return 0;
}

/* The threads alive of a per-thread replay, started and ended as the program's were. */
struct replay_alive {
	pthread_t *tid;           /* by recorded thread */
	uint32_t *which;          /* the threads alive (their recorded index) */
	uint32_t *order;          /* the others with steps, by their first step */
	uint32_t n, norder, next; /* alive; in ORDER; the next of ORDER to start */
	uint32_t most;            /* most alive at once, the main thread included */
};

static int first_step_cmp(const void *x, const void *y, void *jobs_)
{
	const struct replay_job *jobs = jobs_;
	size_t a = jobs[*(const uint32_t *)x].first;
	size_t b = jobs[*(const uint32_t *)y].first;

	return (a > b) - (a < b);
}

/*
 * The threads other than the first with steps to replay, by their first
 * step (a thread's first call may be one with nothing to replay, a failed
 * allocation: the order of first calls is not that of first steps).
 */
static void alive_order(struct replay_alive *a, const struct replay_job *jobs, uint32_t nthreads)
{
	for (uint32_t t = 1; t < nthreads; t++)
		if (jobs[t].left)
			a->order[a->norder++] = t;
	qsort_r(a->order, a->norder, sizeof(*a->order), first_step_cmp, (void *)jobs);
}

/* The step the next thread to start begins with, or SIZE_MAX. */
static size_t alive_next_step(const struct replay_alive *a, const struct replay_job *jobs)
{
	return a->next < a->norder ? jobs[a->order[a->next]].first : SIZE_MAX;
}

/* Starts the threads whose first step comes before END. Returns 0, or -1 with SAMPLE failed. */
static int alive_start(struct replay_alive *a, struct replay_job *jobs, uint32_t nthreads,
		       size_t end, struct sample *sample)
{
	while (alive_next_step(a, jobs) < end) {
		uint32_t t = a->order[a->next++];

		jobs[t].window = jobs[t].sh->window;
		if (pthread_create(&a->tid[t], NULL, replay_thread, &jobs[t]))
			return sample_fail(sample, "cannot start thread %u of %u", t + 1, nthreads);
		a->which[a->n++] = t;
		if (a->n + 1 > a->most)
			a->most = a->n + 1;
	}
	return 0;
}

/* Joins the threads that ran their last step; with QUIT, every one. */
static void alive_end(struct replay_alive *a, struct replay_shared *sh, struct replay_job *jobs,
		      int quit)
{
	if (quit) {
		pthread_mutex_lock(&sh->lock);
		sh->quit = 1;
		pthread_cond_broadcast(&sh->go);
		pthread_mutex_unlock(&sh->lock);
	}
	for (uint32_t k = 0; k < a->n;) {
		if (quit || jobs[a->which[k]].finished) {
			pthread_join(a->tid[a->which[k]], NULL);
			a->which[k] = a->which[--a->n];
		} else {
			k++;
		}
	}
}

/*
 * The windows, each opened to the threads alive, the first recorded
 * thread's steps run here (the program's main thread, served by glibc's
 * main heap as the program's was). Returns 0, or -1 with SAMPLE failed.
 */
static int replay_windows(struct replay_shared *sh, struct replay_job *jobs, uint32_t nthreads,
			  struct replay_alive *alive, struct replay_series *rs)
{
	const size_t nops = sh->plan->nops;
	size_t start = 0;
	int failed = 0;

	while (start < nops && !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		size_t due = replay_series_due(rs, sh->sample, nops);
		size_t end = start + REPLAY_WINDOW_STEPS;

		if (start - sh->view.base >= sh->view.n && jobs_split(sh, jobs, nthreads, start)) {
			failed = replay_unmapped(sh->sample, start, errno);
			break;
		}
		if (end > due)
			end = due;
		if (end > sh->view.base + sh->view.n)
			end = sh->view.base + sh->view.n;
		/* A thread starts when the order reaches its first step: the ended are joined by then. */
		if (alive_next_step(alive, jobs) > start && alive_next_step(alive, jobs) < end)
			end = alive_next_step(alive, jobs);
		if ((failed = alive_start(alive, jobs, nthreads, end, sh->sample)))
			break;
		pthread_mutex_lock(&sh->lock);
		sh->end = end;
		sh->running = alive->n;
		sh->window++;
		pthread_cond_broadcast(&sh->go);
		pthread_mutex_unlock(&sh->lock);
		replay_thread_steps(&jobs[0], end);
		pthread_mutex_lock(&sh->lock);
		while (sh->running)
			pthread_cond_wait(&sh->done, &sh->lock);
		pthread_mutex_unlock(&sh->lock);
		if (end == due)
			replay_series_read(rs, sh->sample);
		alive_end(alive, sh, jobs, 0);
		start = end;
	}
	alive_end(alive, sh, jobs, 1);
	return failed;
}

/*
 * The malloc backend's replay with each recorded thread in a thread of its
 * own, alive while the program's was, the first recorded in this one. The
 * figures are measure_replay()'s; the time is the threads' CPU time in
 * their steps (a page fault's included, a wait for another thread's step
 * or for a window not), over the steps: the cost of a call as the
 * one-thread replay measures it, which the other backends' rows of the
 * same report give, and not stretched by more threads than CPUs taking
 * turns.
 */
static int replay_malloc_threads(const struct measure_params *params, struct sample *sample,
				 void *ctx)
{
	const struct replay_plan *plan = params->replay;
	size_t nslots = plan->nslots ? plan->nslots : 1;
	uint32_t nthreads = plan->nthreads ? plan->nthreads : 1;
	size_t nindex = plan->nops < PLAN_VIEW_STEPS ? plan->nops : PLAN_VIEW_STEPS;
	struct replay_shared sh = {
		.plan = plan, .ctx = ctx, .sample = sample, .touch = params->touch,
		.lock = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER,
		.done = PTHREAD_COND_INITIALIZER,
	};
	struct replay_alive alive = { .most = 1 };
	struct replay_series rs = { .fd = -1, .statm = -1 };
	struct replay_job *jobs;
	struct loop_peak lp;
	uint64_t faults0, peak;
	double step_ns = 0;
	int failed = 0;

	jobs = calloc(nthreads, sizeof(*jobs));
	alive.tid = calloc(nthreads, sizeof(*alive.tid));
	alive.which = calloc(nthreads, sizeof(*alive.which));
	alive.order = calloc(nthreads, sizeof(*alive.order));
	sh.live = measure_map_pointers(nslots, sample);
	sh.meta = sh.live ? (uint64_t *)(void *)measure_map_pointers(REPLAY_WORDS(nslots, uint64_t),
								     sample) : NULL;
	sh.version = sh.meta ? (uint32_t *)(void *)measure_map_pointers(REPLAY_WORDS(nslots, uint32_t),
									sample) : NULL;
	/* Touched now, as the pointers are: the loop's memory is the allocator's. */
	sh.index = sh.version ? (uint32_t *)(void *)measure_map_pointers(REPLAY_WORDS(nindex, uint32_t),
									 sample) : NULL;
	if (!jobs || !alive.tid || !alive.which || !alive.order || !sh.index) {
		failed = jobs && alive.tid && alive.which && alive.order ? -1 :
			 sample_fail(sample, "replay: out of memory for %u threads", nthreads);
		goto out;
	}
	for (uint32_t t = 0; t < nthreads; t++)
		jobs[t] = (struct replay_job){ .sh = &sh };
	if (jobs_count(jobs, nthreads, plan) || jobs_split(&sh, jobs, nthreads, 0)) {
		failed = replay_unmapped(sample, 0, errno);
		goto out;
	}
	alive_order(&alive, jobs, nthreads);
	replay_series_start(&rs, plan, sample, sh.meta);
	if (loop_peak_start(&lp, sample)) {
		replay_series_stop(&rs, sample);
		failed = -1;
		goto out;
	}
	faults0 = probe_minor_faults();
	failed = replay_windows(&sh, jobs, nthreads, &alive, &rs);
	sample->alloc_faults = probe_minor_faults() - faults0 - rs.faults;
	peak = loop_peak_stop(&lp, sample);
	replay_series_stop(&rs, sample);
	for (uint32_t t = 0; t < nthreads; t++) {
		step_ns += jobs[t].step_ns;
		if (jobs[t].failed)
			failed = sample_fail(sample, "thread %u: an allocation failed", t + 1);
	}
	for (size_t i = 0; i < nslots; i++)
		if (sh.live[i])
			libc_replay_release(ctx, sh.live[i], 0);
	if (!failed) {
		replay_sample_done(sample, plan, step_ns, peak);
		sample->threads = alive.most;  /* "run at once" (measure.h) */
	}
out:
	plan_view_close(&sh.view);
	if (sh.index)
		measure_unmap_pointers((void **)(void *)sh.index, REPLAY_WORDS(nindex, uint32_t));
	if (sh.version)
		measure_unmap_pointers((void **)(void *)sh.version, REPLAY_WORDS(nslots, uint32_t));
	if (sh.meta)
		measure_unmap_pointers((void **)(void *)sh.meta, REPLAY_WORDS(nslots, uint64_t));
	if (sh.live)
		measure_unmap_pointers(sh.live, nslots);
	free(jobs);
	free(alive.tid);
	free(alive.which);
	free(alive.order);
	return failed ? -1 : 0;
}

int replay_run_malloc(const struct measure_params *params, struct sample *sample)
{
	void *heap = (void *)heap_measured();
	int ret;

	if (!heap)
		return sample_fail(sample, "malloc: cannot find the allocator's functions");
	if (params->replay_per_thread)
		ret = replay_malloc_threads(params, sample, heap);
	else
		ret = measure_replay(params, sample, heap, libc_replay_alloc, libc_replay_resize,
				     libc_replay_release);
	/* Which allocator served malloc, and its version, for the report. */
	if (!ret && !sample->allocator.name[0])
		allocator_identify(&sample->allocator);
	return ret;
}

/* ------------------------------------------------------------ pool */

#define REPLAY_POOL_CLASSES (REPLAY_POOL_MAX_BYTES / 16)

struct replay_pools {
	struct pool pools[REPLAY_POOL_CLASSES + 1];  /* [c]: chunks of 16 * c bytes */
	unsigned char ready[REPLAY_POOL_CLASSES + 1];
	size_t block_bytes;
	size_t reserve_max;                 /* a pool's address space: what the trace needs */
	const struct heap_functions *heap;  /* what the pools hand on */
	int failed;                         /* a pool could not be made */
};

/* The pool class of a chunk of META (size | REPLAY_META_ALIGNED), or 0 for the C library. */
static inline unsigned pool_class(uint64_t meta)
{
	if (meta & REPLAY_META_ALIGNED || meta > REPLAY_POOL_MAX_BYTES)
		return 0;
	return meta ? (unsigned)((meta + 15) / 16) : 1;
}

static void *pool_class_slow(struct replay_pools *r, unsigned c)
{
	if (pool_init_within(&r->pools[c], (size_t)c * 16, 16, r->block_bytes, r->reserve_max)) {
		r->failed = 1;
		return NULL;
	}
	r->ready[c] = 1;
	return pool_alloc(&r->pools[c]);
}

static inline void *pools_replay_alloc(void *ctx, size_t size, size_t align, int zero)
{
	struct replay_pools *r = ctx;
	unsigned c = pool_class(size | (align > 16 ? REPLAY_META_ALIGNED : 0));
	void *p;

	if (!c) {
		if (align)
			return r->heap->posix_memalign(&p, align, size) ? NULL : p;
		return zero ? r->heap->calloc(1, size) : r->heap->malloc(size);
	}
	p = __builtin_expect(r->ready[c], 1) ? pool_alloc(&r->pools[c]) : pool_class_slow(r, c);
	if (p && zero)
		memset(p, 0, size);
	return p;
}

static inline void pools_replay_release(void *ctx, void *chunk, uint64_t meta)
{
	struct replay_pools *r = ctx;
	unsigned c = pool_class(meta);

	if (c)
		pool_free(&r->pools[c], chunk);
	else
		r->heap->free(chunk);
}

static inline void *pools_replay_resize(void *ctx, void *chunk, uint64_t meta, size_t size)
{
	uint64_t old = meta & ~REPLAY_META_ALIGNED;
	void *p = pools_replay_alloc(ctx, size, 0, 0);

	if (p) {
		memcpy(p, chunk, old < size ? old : size);
		pools_replay_release(ctx, chunk, meta);
	}
	return p;
}

int replay_run_pool(const struct measure_params *params, struct sample *sample)
{
	static struct replay_pools r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.block_bytes = params->pool_block_bytes;
	/*
	 * A class never holds more than the trace's live bytes at their peak
	 * and 16 bytes of rounding per slot: 64 pools of 1 GiB each would not
	 * fit a 32-bit process (its third failed, and then malloc).
	 */
	{
		const struct replay_plan *plan = params->replay;
		uint64_t need = plan->peak_live_bytes + 16 * (uint64_t)plan->nslots + 2 * r.block_bytes;

		r.reserve_max = need < SIZE_MAX ? (size_t)need : SIZE_MAX;
	}
	r.heap = heap_measured();
	if (!r.heap)
		return sample_fail(sample, "pool: cannot find the C library's functions");
	ret = measure_replay(params, sample, &r, pools_replay_alloc, pools_replay_resize,
			     pools_replay_release);
	if (r.failed && !ret)
		ret = sample_fail(sample, "pool: a size class's pool could not be made");
	for (unsigned c = 1; c <= REPLAY_POOL_CLASSES; c++) {
		if (!r.ready[c])
			continue;
		sample->reserved_bytes += (uint64_t)r.pools[c].blocks * r.pools[c].block_bytes;
		pool_release(&r.pools[c]);
	}
	return ret;
}

/* ------------------------------------------------------------ arena */

static inline void *arena_replay_alloc(void *ctx, size_t size, size_t align, int zero)
{
	void *p = arena_alloc(ctx, size, align ? align : natural_alignment(size ? size : 1));

	/* A fresh region is zero already: calloc's zeroing is free here. */
	(void)zero;
	return p;
}

static inline void *arena_replay_resize(void *ctx, void *chunk, uint64_t meta, size_t size)
{
	uint64_t old = meta & ~REPLAY_META_ALIGNED;
	void *p = arena_alloc(ctx, size, natural_alignment(size ? size : 1));

	if (p)
		memcpy(p, chunk, old < size ? old : size);
	return p;
}

static inline void arena_replay_release(void *ctx, void *chunk, uint64_t meta)
{
	(void)ctx;
	(void)chunk;
	(void)meta;
}

int replay_run_arena(const struct measure_params *params, struct sample *sample)
{
	const struct replay_plan *plan = params->replay;
	struct arena arena;
	uint64_t capacity;
	int ret;

	/* Nothing is reused: every allocation's bytes, each padded to its alignment. */
	capacity = plan->alloc_bytes + plan->nallocs * (plan->max_align > 16 ? plan->max_align : 16) +
		   4096;
	if (capacity > SIZE_MAX || arena_init(&arena, (size_t)capacity))
		return sample_fail(sample, "cannot map the arena's region of %llu bytes",
				   (unsigned long long)capacity);
	sample->reserved_bytes = arena.capacity_bytes;
	ret = measure_replay(params, sample, &arena, arena_replay_alloc, arena_replay_resize,
			     arena_replay_release);
	arena_release(&arena);
	return ret;
}
