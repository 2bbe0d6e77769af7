/*
 * trace_analyze.c - following a trace's chunks by address (trace.h): the
 * statistics `allocbench report` prints and the replay plan. One analysis
 * takes the calls step by step in the process's order, straight from the
 * file's chunks (trace_stats_load()), keeping the live chunks and
 * fixed-size counts.
 */
#include "trace/replay_plan.h"
#include "trace/trace_live.h"
#include "trace/trace_median.h"
#include "trace/trace_read.h"
#include "platform/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ the analysis */

/* A slot freed by the step STEP of the plan. */
struct freed_slot {
	uint64_t step;
	uint32_t slot;
};

/* Sizes by count, for the most frequent sizes. */
struct size_count {
	uint64_t size, count;
};

static int size_count_cmp(const void *a, const void *b)
{
	const struct size_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* The bucket of SIZE: 0 for 0 bytes, else b with 2^(b-2) < size <= 2^(b-1). */
static inline unsigned size_bucket(uint64_t size)
{
	return size ? (unsigned)(size == 1 ? 1 : 65 - __builtin_clzll(size - 1)) : 0;
}

struct analysis {
	struct trace_stats *stats;
	struct replay_plan *plan;    /* NULL: statistics only */
	struct plan_writer pw;       /* where the plan's steps go */
	struct slot_state *slots;    /* by slot */
	size_t slots_alloc;
	/*
	 * The slots freed, oldest first, each handed out again once
	 * REPLAY_WINDOW_STEPS steps have passed since its free: a replay then
	 * holds about as many slots as chunks were alive at once, not one per
	 * allocation, and a per-thread replay never waits for another thread's
	 * free of a slot (it is in an earlier window).
	 */
	struct freed_slot *ring;     /* the slots freed: a ring of capacity ring_alloc */
	size_t ring_alloc, ring_first, nring;
	uint64_t nslots;
	struct addr_map live;
	uint64_t live_bytes, live_chunks;
	struct live *held;           /* chunks between a realloc's two halves */
	size_t nheld, held_alloc, held_free;  /* held_free: a list through .slot, + 1; 0 ends */
	uint64_t freed;              /* chunks freed (lifetimes noted) */
	struct median median;
	struct size_count *sizes;    /* open-addressed by size, 0 count = empty */
	size_t sizes_mask, nsizes;
	uint64_t hash;
	/*
	 * The threads met, numbered in order of their first step: an index
	 * is up to 2^32 - 1 in a trace whose header says calls were lost,
	 * so that the memory and the report follow the threads that made
	 * calls, not the largest index.
	 */
	struct thread_slot *tmap;    /* open-addressed by index, slot 0 = empty */
	size_t tmap_mask, threads_alloc;
	uint32_t last_index, last_slot;  /* the last step's (UINT32_MAX: none yet) */
	char what[256];              /* what is wrong, after "trace 'NAME' " */
};

struct thread_slot {
	uint32_t index, slot;        /* slot: in stats->threads, + 1 */
};

/* A slot of the plan: its steps so far, and the last that made its chunk. */
struct slot_state {
	uint64_t made;
	uint32_t version;
};

static int tmap_grow(struct analysis *a)
{
	size_t cap = (a->tmap_mask + 1) * 2, j;
	struct thread_slot *bigger = calloc(cap, sizeof(*bigger));

	if (!bigger)
		return -1;
	for (size_t i = 0; i <= a->tmap_mask; i++) {
		if (!a->tmap[i].slot)
			continue;
		for (j = mix(a->tmap[i].index) & (cap - 1); bigger[j].slot; j = (j + 1) & (cap - 1))
			;
		bigger[j] = a->tmap[i];
	}
	free(a->tmap);
	a->tmap = bigger;
	a->tmap_mask = cap - 1;
	return 0;
}

/* The slot of the thread of index INDEX in stats->threads, taken at its first step: 0, or -1. */
static int thread_slot(struct analysis *a, uint32_t index, uint32_t *slot)
{
	struct trace_stats *st = a->stats;
	size_t j;

	if (a->last_slot != UINT32_MAX && a->last_index == index) {
		*slot = a->last_slot;
		return 0;
	}
	if (((size_t)st->nthreads + 1) * 2 > a->tmap_mask + 1 && tmap_grow(a))
		return -1;
	for (j = mix(index) & a->tmap_mask; a->tmap[j].slot && a->tmap[j].index != index;
	     j = (j + 1) & a->tmap_mask)
		;
	if (!a->tmap[j].slot) {
		if (ALLOC_GROW(st->threads, st->nthreads, a->threads_alloc))
			return -1;
		/* memset: its padding too, which the fuzz target compares. */
		memset(&st->threads[st->nthreads], 0, sizeof(*st->threads));
		st->threads[st->nthreads].index = index;
		a->tmap[j] = (struct thread_slot){ index, ++st->nthreads };
	}
	*slot = a->last_slot = a->tmap[j].slot - 1;
	a->last_index = index;
	return 0;
}

static int thread_index_cmp(const void *x, const void *y)
{
	uint32_t a = ((const struct trace_thread_stats *)x)->index;
	uint32_t b = ((const struct trace_thread_stats *)y)->index;

	return (a > b) - (a < b);
}

static int note_size(struct analysis *a, uint64_t size)
{
	size_t j;

	if ((a->nsizes + 1) * 2 > a->sizes_mask + 1) {
		size_t cap = (a->sizes_mask + 1) * 2;
		struct size_count *bigger = calloc(cap, sizeof(*bigger));

		if (!bigger)
			return -1;
		for (size_t i = 0; i <= a->sizes_mask; i++) {
			if (!a->sizes[i].count)
				continue;
			j = mix(a->sizes[i].size) & (cap - 1);
			while (bigger[j].count)
				j = (j + 1) & (cap - 1);
			bigger[j] = a->sizes[i];
		}
		free(a->sizes);
		a->sizes = bigger;
		a->sizes_mask = cap - 1;
	}
	j = mix(size) & a->sizes_mask;
	while (a->sizes[j].count && a->sizes[j].size != size)
		j = (j + 1) & a->sizes_mask;
	if (!a->sizes[j].count) {
		a->sizes[j].size = size;
		a->nsizes++;
	}
	a->sizes[j].count++;
	return 0;
}

static int add_op(struct analysis *a, uint8_t kind, uint32_t slot, uint32_t thread, uint64_t size,
		  uint64_t align)
{
	struct replay_plan *plan = a->plan;
	struct replay_op *op = plan_writer_add(&a->pw);

	if (!op)
		return -1;
	op->kind = kind;
	op->slot = slot;
	op->thread = thread;
	op->size = size;
	op->version = a->slots[slot].version++;
	op->align_log2 = (uint8_t)trace_align_log2(align);  /* align <= TRACE_SIZE_MAX (chunk_decode()) */
	if (kind != REPLAY_FREE) {
		a->slots[slot].made = plan->nops;
		if (__builtin_add_overflow(plan->alloc_bytes, size, &plan->alloc_bytes))
			plan->alloc_bytes = UINT64_MAX;
		plan->nallocs++;
		if (align > plan->max_align)
			plan->max_align = align;
	}
	plan->nops++;
	/* FNV-1a over the fields that decide what the replay does. */
	{
		uint64_t fields[4] = { (uint64_t)op->align_log2 << 8 | kind, slot, thread, size };
		const unsigned char *p = (const unsigned char *)fields;

		for (size_t i = 0; i < sizeof(fields); i++) {
			a->hash ^= p[i];
			a->hash *= 0x100000001b3ULL;
		}
	}
	return 0;
}

/*
 * What the live chunks add up to: more than an address space holds is a
 * damaged trace (each chunk is at most TRACE_SIZE_MAX, so the sum that
 * crosses TRACE_LIVE_MAX has not wrapped). Returns 0, or -1 with a->what.
 */
static int live_check(struct analysis *a, uint64_t call)
{
	if (a->live_bytes <= TRACE_LIVE_MAX)
		return 0;
	snprintf(a->what, sizeof(a->what), "is damaged: after call %" PRIu64 " more than 2^57 bytes are "
		 "alive at once, more than an address space holds", call);
	return -1;
}

static inline void note_live(struct analysis *a, uint64_t call)
{
	if (a->live_bytes > a->stats->peak_live_bytes) {
		a->stats->peak_live_bytes = a->live_bytes;
		a->stats->peak_at_call = call;
	}
	if (a->live_chunks > a->stats->peak_live_chunks)
		a->stats->peak_live_chunks = a->live_chunks;
}

/*
 * Puts C in the map at its address (C counted live by the caller); one
 * already there, handed out again without a recorded free (it cannot
 * happen in order), is dropped. Returns 0, or -1 out of memory.
 */
static int live_put(struct analysis *a, const struct live *c)
{
	struct live *e;

	if (map_full(&a->live) && map_grow(&a->live))
		return -1;
	e = map_find(&a->live, c->addr);
	if (e->addr) {
		a->live_bytes -= e->size;
		a->live_chunks--;
	} else {
		a->live.n++;
	}
	*e = *c;
	return 0;
}

/* A new chunk that event E (call CALL) returned, of SIZE bytes; its slot in *SLOT. Returns 0, or -1. */
static int chunk_born(struct analysis *a, const struct trace_event *e, uint64_t call, uint32_t *slot)
{
	struct live c = { .addr = e->ret, .size = e->size, .born = call, .thread = e->thread };

	if (a->plan && a->nring &&
	    a->ring[a->ring_first].step + REPLAY_WINDOW_STEPS <= a->plan->nops) {
		c.slot = a->ring[a->ring_first].slot;
		a->ring_first = (a->ring_first + 1) % a->ring_alloc;
		a->nring--;
	} else {
		if (a->plan && (a->nslots == UINT32_MAX ||
				ALLOC_GROW(a->slots, a->nslots, a->slots_alloc)))
			return -1;
		if (a->plan)
			a->slots[a->nslots] = (struct slot_state){ 0 };
		c.slot = (uint32_t)a->nslots++;
	}
	*slot = c.slot;
	if (live_put(a, &c))
		return -1;
	a->live_bytes += c.size;
	a->live_chunks++;
	return live_check(a, call);
}

/* The ring of freed slots twice as large, in order. Returns 0, or -1 out of memory. */
static int freed_grow(struct analysis *a)
{
	size_t cap = a->ring_alloc ? 2 * a->ring_alloc : 1024;
	struct freed_slot *ring = malloc(cap * sizeof(*ring));

	if (!ring)
		return -1;
	for (size_t i = 0; i < a->nring; i++)
		ring[i] = a->ring[(a->ring_first + i) % a->ring_alloc];
	free(a->ring);
	a->ring = ring;
	a->ring_alloc = cap;
	a->ring_first = 0;
	return 0;
}

/* C freed by THREAD (call CALL), its slot to the ring. Returns 0, or -1 out of memory. */
static int chunk_died(struct analysis *a, const struct live *c, uint64_t call, uint32_t thread)
{
	struct trace_stats *st = a->stats;
	uint64_t life = call - c->born;
	unsigned b = 0;

	if (a->plan) {
		if (a->nring == a->ring_alloc && freed_grow(a))
			return -1;
		a->ring[(a->ring_first + a->nring++) % a->ring_alloc] =
			(struct freed_slot){ a->plan->nops, c->slot };
	}

	a->live_bytes -= c->size;
	a->live_chunks--;
	if (thread != c->thread) {
		st->cross_thread_frees++;
		st->threads[thread].remote_frees++;
	}
	st->threads[thread].frees++;
	for (uint64_t limit = 10; b < TRACE_LIFETIME_BUCKETS - 1 && life > limit; limit *= 10)
		b++;
	st->lifetimes[b]++;
	a->freed++;
	median_note(&a->median, life);
	return 0;
}

/* Counts event E into the statistics that do not follow chunks. Returns 0, or -1 out of memory. */
static int count_call(struct analysis *a, const struct trace_event *e)
{
	struct trace_stats *st = a->stats;
	struct trace_thread_stats *th = &st->threads[e->thread];

	st->calls[e->kind]++;
	st->calls[0]++;
	th->calls++;
	/* Every allocating call, failed or not; realloc when it asks for bytes. */
	if (e->kind == TRACE_FREE || (e->kind == TRACE_REALLOC && !e->size))
		return 0;
	if (__builtin_add_overflow(st->requested_bytes, e->size, &st->requested_bytes))
		st->requested_bytes = UINT64_MAX;
	if (__builtin_add_overflow(th->bytes, e->size, &th->bytes))
		th->bytes = UINT64_MAX;
	st->size_buckets[size_bucket(e->size)]++;
	return note_size(a, e->size);
}

/* A chunk between a realloc's halves, kept aside: its word for the second half (0: none). */
static int hold(struct analysis *a, const struct live *c, uint64_t *pending)
{
	size_t i;

	if (a->held_free) {
		i = a->held_free - 1;
		a->held_free = a->held[i].slot;
	} else {
		if (ALLOC_GROW(a->held, a->nheld, a->held_alloc))
			return -1;
		i = a->nheld++;
	}
	a->held[i] = *c;
	*pending = i + 1;
	return 0;
}

static struct live unhold(struct analysis *a, uint64_t pending)
{
	struct live c = a->held[pending - 1];

	a->held[pending - 1].slot = (uint32_t)a->held_free;
	a->held_free = pending;
	return c;
}

/* A free, or realloc's free half (the old address may be handed out from here on). */
static int step_free(struct analysis *a, const struct trace_event *e, uint64_t call, uint64_t *pending)
{
	struct trace_stats *st = a->stats;
	struct live *c;

	if (e->kind == TRACE_REALLOC) {
		*pending = 0;
		if (!e->ptr || !(e->ret || !e->size))
			return 0;
		c = map_find(&a->live, e->ptr);
		if (!c->addr) {
			st->unknown_frees++;
			return 0;
		}
		if (hold(a, c, pending))
			return -1;
		map_remove(&a->live, c);
		return 0;
	}
	if (!e->ptr) {
		st->free_null++;
		goto skip;
	}
	c = map_find(&a->live, e->ptr);
	if (!c->addr) {
		st->unknown_frees++;
		goto skip;
	}
	if (chunk_died(a, c, call, e->thread) ||
	    (a->plan && add_op(a, REPLAY_FREE, c->slot, e->thread, 0, 0)))
		return -1;
	if (e->align) {  /* its pages: the share never written, on the step that made the chunk */
		double share = (double)(e->align - e->size) / (double)e->align;

		st->paged_frees++;
		st->unwritten_bytes += (uint64_t)(share * (double)c->size);
		if (a->plan && plan_writer_unwritten(&a->pw, a->slots[c->slot].made,
						     (uint16_t)(share * 65535 + 0.5)))
			return -1;
	}
	map_remove(&a->live, c);
	return 0;
skip:
	if (a->plan)
		a->plan->skipped++;
	return 0;
}

/* Realloc's allocation half, its old chunk held in PENDING (0: none). Returns 0, or -1. */
static int step_resize(struct analysis *a, const struct trace_event *e, uint64_t call, uint64_t pending)
{
	struct trace_stats *st = a->stats;
	struct live c;
	uint32_t slot;

	if (!e->ret) {
		if (e->ptr && e->size)
			st->failed++;
		if (pending) {
			/* realloc(p, 0) freed p */
			c = unhold(a, pending);
			if (chunk_died(a, &c, call, e->thread) ||
			    (a->plan && add_op(a, REPLAY_FREE, c.slot, e->thread, 0, 0)))
				return -1;
		} else if (a->plan) {
			a->plan->skipped++;
		}
		note_live(a, call);
		return 0;
	}
	st->threads[e->thread].allocations++;
	if (!pending) {
		/* realloc(NULL, n), or of a chunk not seen: a new chunk */
		if (chunk_born(a, e, call, &slot) ||
		    (a->plan && add_op(a, REPLAY_ALLOC, slot, e->thread, e->size, 0)))
			return -1;
		note_live(a, call);
		return 0;
	}
	c = unhold(a, pending);
	/* Held, it was still counted live: its new size in place of the old. */
	a->live_bytes += e->size - c.size;
	if (live_check(a, call))
		return -1;
	c.addr = e->ret;
	c.size = e->size;
	if (live_put(a, &c) || (a->plan && add_op(a, REPLAY_RESIZE, c.slot, e->thread, e->size, 0)))
		return -1;
	note_live(a, call);
	return 0;
}

/*
 * One step of the process's order (trace_sink_fn): event E at its first
 * place (HALF 0) or, a realloc, at its second. Returns 0, or -1 with
 * a->what set when the trace is damaged (else out of memory).
 */
static int analysis_step(void *ctx, const struct trace_event *e, unsigned half, uint64_t call,
			 uint64_t *pending)
{
	struct analysis *a = ctx;
	struct trace_event local;
	uint32_t slot;
	uint8_t kind;

	/* From here on, a thread is its slot. */
	if (thread_slot(a, e->thread, &slot))
		return -1;
	if (slot != e->thread) {
		local = *e;
		local.thread = slot;
		e = &local;
	}
	if (!half && count_call(a, e))
		return -1;
	if (e->kind == TRACE_FREE || (e->kind == TRACE_REALLOC && !half))
		return step_free(a, e, call, pending);
	if (e->kind == TRACE_REALLOC)
		return step_resize(a, e, call, *pending);
	/* The allocating kinds. */
	if (!e->ret) {
		a->stats->failed++;
		if (a->plan)
			a->plan->skipped++;
		return 0;
	}
	a->stats->threads[e->thread].allocations++;
	kind = e->kind == TRACE_CALLOC ? REPLAY_ZALLOC :
	       e->kind == TRACE_POSIX_MEMALIGN || e->kind == TRACE_ALIGNED_ALLOC ||
	       e->kind == TRACE_MEMALIGN ? REPLAY_ALIGNED : REPLAY_ALLOC;
	if (chunk_born(a, e, call, &slot) ||
	    (a->plan && add_op(a, kind, slot, e->thread, e->size, kind == REPLAY_ALIGNED ? e->align : 0)))
		return -1;
	note_live(a, call);
	return 0;
}

/* A step to come (trace_ahead_fn): its chunk's place in the map, fetched ahead of the miss. */
static void analysis_ahead(void *ctx, const struct trace_event *e, unsigned half)
{
	const struct analysis *a = ctx;
	uint64_t key = e->kind == TRACE_FREE || (e->kind == TRACE_REALLOC && !half) ? e->ptr : e->ret;

	if (key)
		__builtin_prefetch(&a->live.e[addr_home(key, a->live.mask)], 1);
}

/* ------------------------------------------------------------ passes over the steps */

/* The most frequent sizes, from A's table into its statistics. Returns 0, or -1 out of memory. */
static int stats_top_sizes(struct analysis *a)
{
	struct trace_stats *st = a->stats;
	struct size_count *all = malloc((a->nsizes + 1) * sizeof(*all));
	size_t n = 0;

	if (!all)
		return -1;
	for (size_t i = 0; i <= a->sizes_mask; i++)
		if (a->sizes[i].count)
			all[n++] = a->sizes[i];
	qsort(all, n, sizeof(*all), size_count_cmp);
	for (st->ntop = 0; st->ntop < TRACE_TOP_SIZES && st->ntop < n; st->ntop++) {
		st->top_size[st->ntop] = all[st->ntop].size;
		st->top_count[st->ntop] = all[st->ntop].count;
	}
	free(all);
	return 0;
}

/* Hands every step, in order, to analysis_step(A): 0, or -1 (with WHY set when it says more). */
typedef int (*drive_fn)(void *ctx, struct analysis *a, char *why, size_t why_size);

/*
 * One pass: the statistics into *ST (NTHREADS threads) and, when PLAN is
 * not NULL, the plan; the lifetimes into MD's window. Returns 0, or -1.
 */
static int analysis_pass(struct analysis *a, struct trace_stats *st, struct replay_plan *plan,
			 drive_fn drive, void *ctx, char *why, size_t why_size)
{
	a->stats = st;
	a->plan = plan;
	if (plan && plan_writer_open(&a->pw))
		return -1;
	a->hash = 0xcbf29ce484222325ULL;
	a->sizes_mask = 63;
	a->sizes = calloc(64, sizeof(*a->sizes));
	a->tmap_mask = 15;
	a->tmap = calloc(16, sizeof(*a->tmap));
	a->last_slot = UINT32_MAX;
	if (!a->sizes || !a->tmap || drive(ctx, a, why, why_size))
		return -1;
	if (plan)
		plan->nthreads = st->nthreads;
	if (st->nthreads > 1)  /* (none: st->threads is NULL, which qsort may not take) */
		qsort(st->threads, st->nthreads, sizeof(*st->threads), thread_index_cmp);
	st->live_bytes_end = a->live_bytes;
	st->live_chunks_end = a->live_chunks;
	if (stats_top_sizes(a))
		return -1;
	if (plan) {
		plan->nslots = (uint32_t)a->nslots;
		plan->peak_live_bytes = st->peak_live_bytes;
		plan->live_bytes_end = st->live_bytes_end;
		plan->checksum = a->hash;
		if (plan_writer_finish(&a->pw, plan))
			return -1;
	}
	return 0;
}

/* The most places a guess at the live count sizes the map for at first: a million chunks'. */

/*
 * The analysis of NAME (at most CALLS calls, about LIVE_GUESS chunks live
 * at most), its steps from DRIVE: passes until the median lifetime is known
 * (one, unless it is over MEDIAN_BUCKETS calls; then two, for up to 2^32
 * calls; the plan from the first). The map of live chunks starts with room
 * for the guess (map_cap_for()). Returns 0, or -1.
 */
static int analyze(const char *name, uint64_t calls, uint64_t live_guess,
		   struct trace_stats *st, struct replay_plan *plan, drive_fn drive, void *ctx,
		   char *why, size_t why_size)
{
	struct median md = { .counts = calloc(MEDIAN_BUCKETS, sizeof(*md.counts)),
			     .lo2 = MEDIAN_BUCKETS };
	struct addr_map live = { 0 };  /* the live chunks: a pass's map, grown, cleared for the next */
	size_t map_cap = map_cap_for(live_guess);
	int done = 0, ret = 0, oom, plan_unwritable = 0;

	why[0] = '\0';
	if (plan)
		*plan = (struct replay_plan){ .fd = -1 };
	if (calls > MEDIAN_BUCKETS) {
		md.counts2 = calloc(MEDIAN_BUCKETS, sizeof(*md.counts2));
		while (calls - MEDIAN_BUCKETS > (uint64_t)MEDIAN_BUCKETS << md.shift2)
			md.shift2++;
	}
	oom = !md.counts || (calls > MEDIAN_BUCKETS && !md.counts2) || map_init(&live, map_cap);
	for (int pass = 0; !done && !ret; pass++) {
		struct analysis a = { .median = md, .live = live, .pw = { .fd = -1 } };

		if (pass)
			map_clear(&a.live);
		memset(st, 0, sizeof(*st));
		memset(md.counts, 0, md.counts ? MEDIAN_BUCKETS * sizeof(*md.counts) : 0);
		a.median.below = a.median.above = a.median.max = 0;
		if (oom || analysis_pass(&a, st, pass ? NULL : plan, drive, ctx, why, why_size)) {
			plan_unwritable = a.pw.err != 0;
			if (a.pw.err)
				snprintf(why, why_size, "trace '%s': cannot write the replay's steps to "
					 "a file in %s: %s", name, plan_writer_dir(), strerror(a.pw.err));
			else if (!why[0])
				snprintf(why, why_size, "trace '%s' %s", name, a.what[0] ? a.what :
					 a.nslots == UINT32_MAX ? "has more calls than a replay can "
					 "number (2^32 - 1)" : "cannot be analysed: out of memory");
			ret = plan_unwritable ? -2 : -1;
		} else {
			md = a.median;
			done = !a.freed || median_resolve(&md, a.freed, &st->median_lifetime_calls);
			/* The second window is the first pass's only. */
			free(md.counts2);
			md.counts2 = NULL;
		}
		plan_writer_close(&a.pw);
		free(a.slots);
		free(a.ring);
		free(a.held);
		free(a.sizes);
		free(a.tmap);
		live = a.live;
		if (!done || ret)
			trace_stats_release(st);
	}
	map_release(&live);
	free(md.counts);
	free(md.counts2);
	if (ret && plan)
		replay_plan_release(plan);
	return ret;
}

struct stream_drive {
	struct reader *r;
	const struct trace *t;
	const struct scan *s;
};

static int drive_stream(void *ctx, struct analysis *a, char *why, size_t why_size)
{
	struct stream_drive *d = ctx;

	d->r->why = why;
	d->r->why_size = why_size;
	why[0] = '\0';
	return trace_merge(d->r, d->t, d->s, analysis_step, analysis_ahead, a);
}


static int stats_load_from(struct reader *r, struct trace *t, struct trace_stats *st,
			   struct replay_plan *plan)
{
	struct scan s;
	struct stream_drive d = { r, t, &s };
	uint64_t calls = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	memset(st, 0, sizeof(*st));
	t->file_bytes = r->size;
	if (trace_scan(r, t, &s))
		return -1;
	if (t->header.version == TRACE_VERSION_V3)
		calls = t->header.v3_calls;
	for (size_t i = 0; i < s.nmetas; i++)
		calls += s.metas[i].n;
	ret = analyze(r->name, calls, trace_live_guess(&s), st, plan, drive_stream, &d, r->why,
		      r->why_size);
	scan_release(&s);
	return ret;
}

int trace_stats_load(const char *path, struct trace *t, struct trace_stats *stats,
		     struct replay_plan *plan, char *why, size_t why_size)
{
	struct reader r;
	int ret;

	memset(t, 0, sizeof(*t));
	memset(stats, 0, sizeof(*stats));
	if (plan)
		*plan = (struct replay_plan){ .fd = -1 };
	if (reader_open(&r, path, why, why_size))
		return -1;
	ret = stats_load_from(&r, t, stats, plan);
	close(r.fd);
	return ret;
}

int trace_stats_load_buffer(const char *name, const void *data, size_t size, struct trace *t,
			    struct trace_stats *stats, struct replay_plan *plan, char *why,
			    size_t why_size)
{
	struct reader r = { .name = name, .fd = -1, .buf = data, .size = size, .why = why,
			    .why_size = why_size };

	memset(stats, 0, sizeof(*stats));
	if (plan)
		*plan = (struct replay_plan){ .fd = -1 };
	return stats_load_from(&r, t, stats, plan);
}

void trace_stats_release(struct trace_stats *stats)
{
	free(stats->threads);
	stats->threads = NULL;
	stats->nthreads = 0;
}
