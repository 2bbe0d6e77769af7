/*
 * trace_analyze.c - following a trace's chunks by address (trace.h): the
 * statistics `allocbench report` prints and the replay plan.
 */
#include "trace/trace.h"
#include "trace/trace_read.h"
#include "platform/util.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Live chunks by address: open addressing, linear probing, backward-shift deletion. */
struct addr_map {
	uint64_t *keys;   /* 0: empty */
	uint32_t *slots;
	size_t mask, n;
};

static uint64_t addr_hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return a;
}

static int map_init(struct addr_map *m, size_t want)
{
	size_t cap = 1024;

	while (cap < want * 2)
		cap *= 2;
	m->keys = calloc(cap, sizeof(*m->keys));
	m->slots = calloc(cap, sizeof(*m->slots));
	m->mask = cap - 1;
	m->n = 0;
	return m->keys && m->slots ? 0 : -1;
}

static void map_release(struct addr_map *m)
{
	free(m->keys);
	free(m->slots);
}

static int map_grow(struct addr_map *m)
{
	struct addr_map bigger;

	if (map_init(&bigger, (m->mask + 1)))
		return -1;
	for (size_t i = 0; i <= m->mask; i++) {
		if (m->keys[i]) {
			size_t j = addr_hash(m->keys[i]) & bigger.mask;

			while (bigger.keys[j])
				j = (j + 1) & bigger.mask;
			bigger.keys[j] = m->keys[i];
			bigger.slots[j] = m->slots[i];
			bigger.n++;
		}
	}
	map_release(m);
	*m = bigger;
	return 0;
}

/* Adds KEY -> SLOT, replacing what KEY held; sets *REPLACED. Returns 0 or -1. */
static int map_put(struct addr_map *m, uint64_t key, uint32_t slot, int *replaced, uint32_t *old)
{
	size_t j;

	if ((m->n + 1) * 2 > m->mask + 1 && map_grow(m))
		return -1;
	j = addr_hash(key) & m->mask;
	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & m->mask;
	*replaced = m->keys[j] == key;
	if (*replaced)
		*old = m->slots[j];
	else
		m->n++;
	m->keys[j] = key;
	m->slots[j] = slot;
	return 0;
}

/* Removes KEY; returns 1 with *SLOT set when it was there. */
static int map_take(struct addr_map *m, uint64_t key, uint32_t *slot)
{
	size_t j = addr_hash(key) & m->mask, k;

	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & m->mask;
	if (!m->keys[j])
		return 0;
	*slot = m->slots[j];
	m->keys[j] = 0;
	m->n--;
	/* Backward shift: move later entries of the run into the hole. */
	for (k = (j + 1) & m->mask; m->keys[k]; k = (k + 1) & m->mask) {
		size_t home = addr_hash(m->keys[k]) & m->mask;

		if (((k - home) & m->mask) >= ((k - j) & m->mask)) {
			m->keys[j] = m->keys[k];
			m->slots[j] = m->slots[k];
			m->keys[k] = 0;
			j = k;
		}
	}
	return 1;
}

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

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The bucket of SIZE: 0 for 0 bytes, else b with 2^(b-2) < size <= 2^(b-1). */
static unsigned size_bucket(uint64_t size)
{
	return size ? (unsigned)(size == 1 ? 1 : 65 - __builtin_clzll(size - 1)) : 0;
}

/* Per slot: what the analysis needs to know of a chunk. */
struct slot_info {
	uint64_t size;
	uint64_t born;      /* the call (index in events) that allocated it */
	uint32_t thread;
	uint32_t version;   /* steps on it so far */
};

struct analysis {
	const struct trace *t;
	struct trace_stats *stats;
	struct replay_plan *plan;
	size_t ops_alloc;
	struct slot_info *slots;
	size_t slots_alloc;
	uint32_t nslots;
	struct addr_map live;
	uint64_t live_bytes, live_chunks;
	uint64_t *lifetimes;   /* of freed chunks, in calls */
	size_t nlifetimes, lifetimes_alloc;
	struct size_count *sizes;  /* open-addressed by size, 0 count = empty */
	size_t sizes_mask, nsizes;
	uint64_t hash;
	char *why;           /* what is wrong, after "trace 'NAME' " */
	size_t why_size;
};

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
			j = addr_hash(a->sizes[i].size) & (cap - 1);
			while (bigger[j].count)
				j = (j + 1) & (cap - 1);
			bigger[j] = a->sizes[i];
		}
		free(a->sizes);
		a->sizes = bigger;
		a->sizes_mask = cap - 1;
	}
	j = addr_hash(size) & a->sizes_mask;
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
	struct replay_op *op;

	if (!a->plan)
		return 0;
	if (ALLOC_GROW(a->plan->ops, a->plan->nops, a->ops_alloc))
		return -1;
	op = &a->plan->ops[a->plan->nops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->slot = slot;
	op->thread = thread;
	op->size = size;
	op->version = a->slots[slot].version++;
	op->align_log2 = (uint8_t)trace_align_log2(align);  /* align <= TRACE_SIZE_MAX (trace_load()) */
	if (kind != REPLAY_FREE) {
		if (__builtin_add_overflow(a->plan->alloc_bytes, size, &a->plan->alloc_bytes))
			a->plan->alloc_bytes = UINT64_MAX;
		a->plan->nallocs++;
		if (align > a->plan->max_align)
			a->plan->max_align = align;
	}
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
 * crosses TRACE_LIVE_MAX has not wrapped). Returns 0, or -1 with a->why.
 */
static int live_check(struct analysis *a, uint64_t call)
{
	if (a->live_bytes <= TRACE_LIVE_MAX)
		return 0;
	snprintf(a->why, a->why_size, "is damaged: after call %" PRIu64 " more than 2^57 bytes are "
		 "alive at once, more than an address space holds", call);
	return -1;
}

static void note_live(struct analysis *a, uint64_t call)
{
	if (a->live_bytes > a->stats->peak_live_bytes) {
		a->stats->peak_live_bytes = a->live_bytes;
		a->stats->peak_at_call = call;
	}
	if (a->live_chunks > a->stats->peak_live_chunks)
		a->stats->peak_live_chunks = a->live_chunks;
}

/* A new chunk at RET of SIZE bytes; its slot. Returns 0, or -1. */
static int chunk_born(struct analysis *a, const struct trace_event *e, uint64_t size, size_t call,
		      uint32_t *slot)
{
	int replaced;
	uint32_t old;

	if (a->nslots == UINT32_MAX || ALLOC_GROW(a->slots, a->nslots, a->slots_alloc))
		return -1;
	*slot = a->nslots++;
	a->slots[*slot] = (struct slot_info){ .size = size, .born = call, .thread = e->thread };
	if (map_put(&a->live, e->ret, *slot, &replaced, &old))
		return -1;
	if (replaced) {
		/* Handed out again without a recorded free (it cannot happen in order): drop the old. */
		a->live_bytes -= a->slots[old].size;
		a->live_chunks--;
	}
	a->live_bytes += size;
	a->live_chunks++;
	return live_check(a, call);
}

static int chunk_died(struct analysis *a, uint32_t slot, size_t call, uint32_t thread)
{
	struct slot_info *s = &a->slots[slot];

	a->live_bytes -= s->size;
	a->live_chunks--;
	if (thread != s->thread) {
		a->stats->cross_thread_frees++;
		a->stats->threads[thread].remote_frees++;
	}
	a->stats->threads[thread].frees++;
	if (ALLOC_GROW(a->lifetimes, a->nlifetimes, a->lifetimes_alloc))
		return -1;
	a->lifetimes[a->nlifetimes++] = call - s->born;
	return 0;
}

/* Realloc's free half happens at its first place, its allocation half at its second. */
struct step {
	uint64_t seq;
	uint32_t event;
	uint8_t half;   /* realloc: 0 the free half, 1 the allocation half */
};

static int step_cmp(const void *x, const void *y)
{
	const struct step *a = x, *b = y;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->half - b->half;
}

static void skip_step(struct analysis *a)
{
	if (a->plan)
		a->plan->skipped++;
}

static int analyze_steps(struct analysis *a, const struct step *steps, size_t nsteps,
			 uint32_t *pending)
{
	const struct trace *t = a->t;
	struct trace_stats *st = a->stats;

	for (size_t k = 0; k < nsteps; k++) {
		const struct trace_event *e = &t->events[steps[k].event];
		size_t call = steps[k].event + 1;
		struct trace_thread_stats *th = &st->threads[e->thread];
		uint32_t slot;
		uint8_t kind;

		if (e->kind == TRACE_FREE) {
			if (!e->ptr) {
				st->free_null++;
				skip_step(a);
			} else if (!map_take(&a->live, e->ptr, &slot)) {
				st->unknown_frees++;
				skip_step(a);
			} else {
				if (chunk_died(a, slot, call, e->thread) ||
				    add_op(a, REPLAY_FREE, slot, e->thread, 0, 0))
					return -1;
			}
			continue;
		}
		if (e->kind == TRACE_REALLOC) {
			if (steps[k].half == 0) {
				/* The free half: the old address may be handed out from here on. */
				pending[steps[k].event] = UINT32_MAX;
				if (e->ptr && (e->ret || !e->size) && map_take(&a->live, e->ptr, &slot))
					pending[steps[k].event] = slot;
				else if (e->ptr && (e->ret || !e->size))
					st->unknown_frees++;
				continue;
			}
			slot = pending[steps[k].event];
			if (!e->ret) {
				if (e->ptr && e->size)
					st->failed++;
				if (slot != UINT32_MAX) {
					/* realloc(p, 0) freed p */
					if (chunk_died(a, slot, call, e->thread) ||
					    add_op(a, REPLAY_FREE, slot, e->thread, 0, 0))
						return -1;
				} else if (a->plan) {
					a->plan->skipped++;
				}
				note_live(a, call);
				continue;
			}
			th->allocations++;
			if (slot == UINT32_MAX) {
				/* realloc(NULL, n), or of a chunk not seen: a new chunk */
				if (chunk_born(a, e, e->size, call, &slot) ||
				    add_op(a, REPLAY_ALLOC, slot, e->thread, e->size, 0))
					return -1;
			} else {
				int replaced;
				uint32_t old;

				a->live_bytes += e->size - a->slots[slot].size;
				a->slots[slot].size = e->size;
				if (live_check(a, call))
					return -1;
				if (map_put(&a->live, e->ret, slot, &replaced, &old) ||
				    add_op(a, REPLAY_RESIZE, slot, e->thread, e->size, 0))
					return -1;
				if (replaced && old != slot) {
					a->live_bytes -= a->slots[old].size;
					a->live_chunks--;
				}
			}
			note_live(a, call);
			continue;
		}
		/* The allocating kinds. */
		if (!e->ret) {
			st->failed++;
			skip_step(a);
			continue;
		}
		th->allocations++;
		kind = e->kind == TRACE_CALLOC ? REPLAY_ZALLOC :
		       e->kind == TRACE_POSIX_MEMALIGN || e->kind == TRACE_ALIGNED_ALLOC ||
		       e->kind == TRACE_MEMALIGN ? REPLAY_ALIGNED : REPLAY_ALLOC;
		if (chunk_born(a, e, e->size, call, &slot) ||
		    add_op(a, kind, slot, e->thread, e->size, kind == REPLAY_ALIGNED ? e->align : 0))
			return -1;
		note_live(a, call);
	}
	return 0;
}

/*
 * Counts T's calls into A's statistics and lists their steps into STEPS
 * (room for two per call: a realloc is two), in the order of their places;
 * sets *NSTEPS. Returns 0, or -1 out of memory.
 */
static int count_calls(struct analysis *a, struct step *steps, size_t *nsteps)
{
	const struct trace *t = a->t;
	struct trace_stats *st = a->stats;
	size_t n = 0;

	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];

		st->calls[e->kind]++;
		st->calls[0]++;
		st->threads[e->thread].calls++;
		steps[n++] = (struct step){ e->seq, (uint32_t)i, 0 };
		if (e->kind == TRACE_REALLOC)
			steps[n++] = (struct step){ e->seq2, (uint32_t)i, 1 };
		/* Every allocating call, failed or not; realloc when it asks for bytes. */
		if (e->kind != TRACE_FREE && !(e->kind == TRACE_REALLOC && !e->size)) {
			if (__builtin_add_overflow(st->requested_bytes, e->size, &st->requested_bytes))
				st->requested_bytes = UINT64_MAX;
			if (__builtin_add_overflow(st->threads[e->thread].bytes, e->size,
						   &st->threads[e->thread].bytes))
				st->threads[e->thread].bytes = UINT64_MAX;
			st->size_buckets[size_bucket(e->size)]++;
			if (note_size(a, e->size))
				return -1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		if (step_cmp(&steps[i - 1], &steps[i]) > 0) {
			qsort(steps, n, sizeof(*steps), step_cmp);
			break;
		}
	}
	*nsteps = n;
	return 0;
}

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

/* Lifetimes, in calls between the allocation and the free: A's into buckets and a median. */
static void stats_lifetimes(struct analysis *a)
{
	struct trace_stats *st = a->stats;

	for (size_t i = 0; i < a->nlifetimes; i++) {
		unsigned b = 0;

		for (uint64_t limit = 10; b < TRACE_LIFETIME_BUCKETS - 1 && a->lifetimes[i] > limit; limit *= 10)
			b++;
		st->lifetimes[b]++;
	}
	if (a->nlifetimes) {
		qsort(a->lifetimes, a->nlifetimes, sizeof(*a->lifetimes), u64_cmp);
		st->median_lifetime_calls = a->lifetimes[a->nlifetimes / 2];
	}
}

int trace_analyze(const char *name, const struct trace *t, struct trace_stats *stats_out,
		  struct replay_plan *plan, char *why, size_t why_size)
{
	struct trace_stats local;
	struct trace_stats *st = stats_out ? stats_out : &local;
	char what[256] = "";
	struct analysis a = { .t = t, .stats = st, .plan = plan, .why = what, .why_size = sizeof(what) };
	struct step *steps = NULL;
	uint32_t *pending = NULL;
	size_t nsteps = 0;
	int ret = -1;

	memset(st, 0, sizeof(*st));
	if (plan)
		memset(plan, 0, sizeof(*plan));
	a.hash = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].thread >= st->nthreads)
			st->nthreads = t->events[i].thread + 1;
	st->threads = calloc(st->nthreads ? st->nthreads : 1, sizeof(*st->threads));
	steps = malloc((2 * t->nevents + 1) * sizeof(*steps));
	pending = malloc((t->nevents + 1) * sizeof(*pending));
	/* trace_load() saw that each realloc's second place follows its first: set all the same. */
	for (size_t i = 0; pending && i < t->nevents; i++)
		pending[i] = UINT32_MAX;
	a.sizes_mask = 63;
	a.sizes = calloc(64, sizeof(*a.sizes));
	if (!st->threads || !steps || !pending || !a.sizes || map_init(&a.live, 1024) ||
	    t->nevents > UINT32_MAX)
		goto out;
	if (count_calls(&a, steps, &nsteps))
		goto out;
	if (analyze_steps(&a, steps, nsteps, pending))
		goto out;
	st->live_bytes_end = a.live_bytes;
	st->live_chunks_end = a.live_chunks;
	if (stats_top_sizes(&a))
		goto out;
	stats_lifetimes(&a);
	if (plan) {
		plan->nslots = a.nslots;
		plan->nthreads = st->nthreads;
		plan->peak_live_bytes = st->peak_live_bytes;
		plan->live_bytes_end = st->live_bytes_end;
		plan->checksum = a.hash;
	}
	ret = 0;
out:
	if (ret)
		snprintf(why, why_size, "trace '%s' %s", name, what[0] ? what :
			 t->nevents > UINT32_MAX || a.nslots == UINT32_MAX ?
			 "has more calls than a replay can number (2^32 - 1)" :
			 "cannot be analysed: out of memory");
	free(steps);
	free(pending);
	free(a.slots);
	free(a.lifetimes);
	free(a.sizes);
	map_release(&a.live);
	if (ret && plan)
		replay_plan_release(plan);
	if (ret || !stats_out)
		trace_stats_release(st);
	return ret;
}

void trace_stats_release(struct trace_stats *stats)
{
	free(stats->threads);
	stats->threads = NULL;
	stats->nthreads = 0;
}

void replay_plan_release(struct replay_plan *plan)
{
	free(plan->ops);
	memset(plan, 0, sizeof(*plan));
}

