/*
 * trace_merge.c - a checked trace's chunks in the process's order, one step
 * at a time (trace_read.h): each thread's chunks follow on, and the threads
 * interleave by place, so the merge reads a chunk only when its thread's
 * next place is due and holds only the chunks being merged. Memory grows
 * with the threads whose chunks overlap in the order, not with the calls.
 */
#include "trace/trace.h"
#include "trace/trace_read.h"
#include "trace/trace_v3.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One place in the order: a call's, or a realloc's second (half 1). */
struct step {
	uint64_t seq;
	uint32_t event;     /* in its run */
	uint32_t half;
};

/* One chunk's records, decoded, its steps in order: what the merge takes from. */
struct run {
	uint64_t chunk;             /* its place in the file, for messages */
	uint32_t nsteps, pos;       /* steps, and the next one */
	struct step *steps;
	struct trace_event *events;
	uint64_t *call;             /* each record's call number, once its first place is reached */
	uint64_t *pending;          /* the sink's word for each record */
};

/* A thread's chunks still to read: metas[next .. end), not dropped. */
struct source {
	size_t next, end;
};

struct merge {
	struct reader *r;
	const struct trace *t;
	const struct scan *s;
	struct run **runs;          /* a heap by the next step */
	size_t nruns;
	struct source *sources;     /* a heap by what each may still bring (metas' min_seq) */
	size_t nsources;
	unsigned char *block;       /* READ_BYTES of the file, from block_first */
	uint64_t block_first, block_n, nchunks;
	struct trace_event *scratch;  /* CHUNK_EVENTS_MAX */
	uint64_t calls;             /* first places reached */
};

static inline int step_before(const struct step *a, const struct step *b)
{
	return a->seq != b->seq ? a->seq < b->seq : a->half < b->half;
}

static int step_cmp(const void *x, const void *y)
{
	const struct step *a = x, *b = y;

	return step_before(a, b) ? -1 : step_before(b, a);
}

static inline int run_before(const struct run *a, const struct run *b)
{
	return step_before(&a->steps[a->pos], &b->steps[b->pos]);
}

static void runs_down(struct merge *g, size_t i)
{
	struct run **h = g->runs;

	for (;;) {
		size_t l = 2 * i + 1, best = i;
		struct run *tmp;

		if (l < g->nruns && run_before(h[l], h[best]))
			best = l;
		if (l + 1 < g->nruns && run_before(h[l + 1], h[best]))
			best = l + 1;
		if (best == i)
			return;
		tmp = h[i], h[i] = h[best], h[best] = tmp;
		i = best;
	}
}

static void runs_push(struct merge *g, struct run *run)
{
	size_t i = g->nruns++;

	g->runs[i] = run;
	while (i && run_before(g->runs[i], g->runs[(i - 1) / 2])) {
		struct run *tmp = g->runs[i];

		g->runs[i] = g->runs[(i - 1) / 2];
		g->runs[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static inline uint64_t source_bound(const struct merge *g, const struct source *src)
{
	return g->s->metas[src->next].min_seq;
}

static void sources_down(struct merge *g, size_t i)
{
	struct source *h = g->sources;

	for (;;) {
		size_t l = 2 * i + 1, best = i;
		struct source tmp;

		if (l < g->nsources && source_bound(g, &h[l]) < source_bound(g, &h[best]))
			best = l;
		if (l + 1 < g->nsources && source_bound(g, &h[l + 1]) < source_bound(g, &h[best]))
			best = l + 1;
		if (best == i)
			return;
		tmp = h[i], h[i] = h[best], h[best] = tmp;
		i = best;
	}
}

/* The source's next chunk not dropped, from metas[src->next] on; 0 when it has none left. */
static int source_skip(const struct merge *g, struct source *src)
{
	while (src->next < src->end && g->s->metas[src->next].dropped)
		src->next++;
	return src->next < src->end;
}

/* Reads the next chunk of the first source into a run. Returns 0, or -1 with R->why set. */
static int feed(struct merge *g)
{
	struct source *src = &g->sources[0];
	const struct chunk_meta *m = &g->s->metas[src->next];
	struct run *run;
	size_t n = m->n, nsteps = 0;
	char *mem;

	if (chunk_reread(g->r, g->s, m, g->block, &g->block_first, &g->block_n, g->nchunks, g->scratch))
		return -1;
	mem = malloc(sizeof(*run) + n * (sizeof(struct trace_event) + 2 * sizeof(uint64_t) +
					 2 * sizeof(struct step)));
	if (!mem)
		return reader_fail(g->r, "cannot be read: out of memory");
	run = (struct run *)(void *)mem;
	run->events = (struct trace_event *)(void *)(run + 1);
	run->call = (uint64_t *)(void *)(run->events + n);
	run->pending = run->call + n;
	run->steps = (struct step *)(void *)(run->pending + n);
	memcpy(run->events, g->scratch, n * sizeof(*run->events));
	for (size_t i = 0; i < n; i++) {
		run->steps[nsteps++] = (struct step){ run->events[i].seq, (uint32_t)i, 0 };
		if (run->events[i].kind == TRACE_REALLOC)
			run->steps[nsteps++] = (struct step){ run->events[i].seq2, (uint32_t)i, 1 };
	}
	for (size_t i = 1; i < nsteps; i++) {
		if (step_before(&run->steps[i], &run->steps[i - 1])) {
			qsort(run->steps, nsteps, sizeof(*run->steps), step_cmp);
			break;
		}
	}
	run->chunk = m->index;
	run->nsteps = (uint32_t)nsteps;
	run->pos = 0;
	runs_push(g, run);
	src->next++;
	if (!source_skip(g, src))
		*src = g->sources[--g->nsources];
	sources_down(g, 0);
	return 0;
}

/* A place taken twice, its two first chunks: found while the merge goes on. */
struct twice {
	int found;
	uint64_t seq, chunk[2];    /* the two least chunks that take seq */
	uint64_t last_seq, last_chunk;
	int started;
};

/* Notes STEP (from chunk CHUNK) for the check; 1 when the first place taken twice is complete. */
static inline int twice_note(struct twice *w, uint64_t seq, uint64_t chunk)
{
	if (__builtin_expect(w->found, 0)) {
		if (seq != w->seq)
			return 1;
		if (chunk < w->chunk[1])
			w->chunk[1] = chunk;
		if (w->chunk[1] < w->chunk[0]) {
			uint64_t tmp = w->chunk[0];

			w->chunk[0] = w->chunk[1];
			w->chunk[1] = tmp;
		}
		return 0;
	}
	if (w->started && seq == w->last_seq) {
		w->found = 1;
		w->seq = seq;
		w->chunk[0] = w->last_chunk < chunk ? w->last_chunk : chunk;
		w->chunk[1] = w->last_chunk < chunk ? chunk : w->last_chunk;
		return 0;
	}
	w->started = 1;
	w->last_seq = seq;
	w->last_chunk = chunk;
	return 0;
}

/*
 * Takes steps from the first run while they come before everything else:
 * the other runs' next and what the sources may still bring (BOUND).
 */
static int drain(struct merge *g, uint64_t bound, struct twice *w, trace_sink_fn sink,
		 trace_ahead_fn ahead, void *ctx, int *sink_failed)
{
	struct run *run = g->runs[0];
	const struct step *limit = NULL;

	if (g->nruns > 1) {
		limit = &g->runs[1]->steps[g->runs[1]->pos];
		if (g->nruns > 2 && run_before(g->runs[2], g->runs[1]))
			limit = &g->runs[2]->steps[g->runs[2]->pos];
	}
	do {
		const struct step *st = &run->steps[run->pos];
		const struct trace_event *e = &run->events[st->event];

		if (twice_note(w, st->seq, run->chunk))
			return 1;
		if (ahead && run->pos + MERGE_AHEAD < run->nsteps) {
			const struct step *later = &run->steps[run->pos + MERGE_AHEAD];

			ahead(ctx, &run->events[later->event], later->half);
		}
		if (!st->half)
			run->call[st->event] = ++g->calls;
		if (!*sink_failed && !w->found &&
		    sink(ctx, e, st->half, run->call[st->event], &run->pending[st->event]))
			*sink_failed = 1;
		run->pos++;
	} while (run->pos < run->nsteps && run->steps[run->pos].seq < bound &&
		 (!limit || step_before(&run->steps[run->pos], limit)));
	if (run->pos == run->nsteps) {
		g->runs[0] = g->runs[--g->nruns];
		free(run);
	}
	if (g->nruns)
		runs_down(g, 0);
	return 0;
}

static int merge_all(struct merge *g, struct twice *w, trace_sink_fn sink, trace_ahead_fn ahead,
		     void *ctx, int *sink_failed)
{
	for (;;) {
		uint64_t bound = g->nsources ? source_bound(g, &g->sources[0]) : UINT64_MAX;

		if (!g->nruns && !g->nsources)
			return 0;
		if (g->nsources && (!g->nruns || bound <= g->runs[0]->steps[g->runs[0]->pos].seq)) {
			if (feed(g))
				return -1;
			continue;
		}
		if (drain(g, bound, w, sink, ahead, ctx, sink_failed))
			return 0;
	}
}

int trace_merge(struct reader *r, const struct trace *t, const struct scan *s, trace_sink_fn sink,
		trace_ahead_fn ahead, void *ctx)
{
	struct merge g = { .r = r, .t = t, .s = s };
	struct twice w = { 0 };
	int sink_failed = 0, ret = -1;

	if (t->header.version == TRACE_VERSION_V3)
		return v3_run(r, t, NULL, sink, ahead, ctx);
	g.nchunks = (t->trace_bytes - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
	g.block = malloc(READ_BYTES);
	g.scratch = malloc(CHUNK_EVENTS_MAX * sizeof(*g.scratch));
	g.sources = malloc((s->nthreads + 1) * sizeof(*g.sources));
	g.runs = malloc((s->nmetas + 1) * sizeof(*g.runs));
	if (!g.block || !g.scratch || !g.sources || !g.runs) {
		reader_fail(r, "cannot be read: out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->nmetas;) {
		struct source src = { i, i };

		while (src.end < s->nmetas && s->metas[src.end].thread == s->metas[i].thread)
			src.end++;
		i = src.end;
		if (source_skip(&g, &src))
			g.sources[g.nsources++] = src;
	}
	for (size_t i = g.nsources / 2 + 1; i-- > 0;)
		sources_down(&g, i);
	if (merge_all(&g, &w, sink, ahead, ctx, &sink_failed))
		goto out;
	if (w.found) {
		reader_fail(r, "is damaged: seq %" PRIu64 " is taken twice (in chunk %" PRIu64 " and chunk %"
			    PRIu64 "): each call has its own place in the order", w.seq, w.chunk[0],
			    w.chunk[1]);
		goto out;
	}
	ret = sink_failed ? -1 : 0;
out:
	for (size_t i = 0; i < g.nruns; i++)
		free(g.runs[i]);
	free(g.runs);
	free(g.sources);
	free(g.scratch);
	free(g.block);
	return ret;
}
