/*
 * trace_v3.c - reading version 3 (trace_v3.h): its blocks checked and
 * decompressed one at a time, its records decoded into the steps
 * trace_merge() would hand on, each chunk given an address of its own
 * (the format keeps none: a free names a live chunk by its rank).
 */
#include "trace/trace_read.h"
#include "trace/trace_v3.h"
#include "platform/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

/* ------------------------------------------------------------ the live chunks by rank */

/* Slots per block: one cache line of the bitmap, 8 words. */
#define LRANK_BLOCK_SHIFT 9
#define LRANK_BLOCK_WORDS ((1u << LRANK_BLOCK_SHIFT) / 64)

void lrank_release(struct lrank *l)
{
	free(l->addr);
	free(l->bits);
	free(l->tree);
	memset(l, 0, sizeof(*l));
}

/* Each byte of X: the bits set in that byte of X. */
static inline uint64_t byte_counts(uint64_t x)
{
	x -= x >> 1 & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + (x >> 2 & 0x3333333333333333ULL);
	return (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
}

/* The bits set in X (__builtin_popcountll is a call into libgcc without -mpopcnt). */
static inline uint64_t popcount64(uint64_t x)
{
	return byte_counts(x) * 0x0101010101010101ULL >> 56;
}

/* The place of the set bit of rank R (from 0, the lowest) in X, which has more than R. */
static inline unsigned select64(uint64_t x, unsigned r)
{
	/* The bytes' running sums: the byte that holds it. */
	uint64_t s = byte_counts(x) * 0x0101010101010101ULL;
	unsigned i = 0, byte;

	while ((s >> (8 * i) & 0xff) <= r)
		i++;
	if (i)
		r -= (unsigned)(s >> (8 * (i - 1)) & 0xff);
	byte = (unsigned)(x >> (8 * i) & 0xff);
	while (r--)
		byte &= byte - 1;
	return 8 * i + (unsigned)__builtin_ctz(byte);
}

/*
 * The tree over slots [0, next) again, the live ones moved to the front
 * (CAP places, no fewer than now), in the same arrays: a compaction at the
 * same capacity, the common case, allocates nothing (fresh arrays each
 * time had the kernel zero their pages, 15% of a version 3 report).
 * Slots from next on are never read before they are pushed.
 */
static int lrank_rebuild(struct lrank *l, uint64_t cap)
{
	uint64_t nblocks = cap >> LRANK_BLOCK_SHIFT, n = 0;

	if (cap > l->cap && (resize_array(&l->addr, cap, sizeof(*l->addr)) ||
			     resize_array(&l->bits, cap / 64, sizeof(*l->bits)) ||
			     resize_array(&l->tree, nblocks + 1, sizeof(*l->tree))))
		return -1;
	for (uint64_t i = 0; i < l->next; i++)
		if (l->addr[i])
			l->addr[n++] = l->addr[i];
	memset(l->bits, 0, cap / 64 * sizeof(*l->bits));
	for (uint64_t i = 0; i < n / 64; i++)
		l->bits[i] = UINT64_MAX;
	if (n % 64)
		l->bits[n / 64] = ((uint64_t)1 << (n % 64)) - 1;
	memset(l->tree, 0, (nblocks + 1) * sizeof(*l->tree));
	for (uint64_t i = 1; i <= nblocks; i++) {
		uint64_t j = i + (i & -i), first = (i - 1) << LRANK_BLOCK_SHIFT;

		l->tree[i] += (uint32_t)(n <= first ? 0 : n - first < (1u << LRANK_BLOCK_SHIFT) ?
					 n - first : 1u << LRANK_BLOCK_SHIFT);
		if (j <= nblocks)
			l->tree[j] += l->tree[i];
	}
	l->cap = cap;
	l->next = n;
	l->live = n;
	return 0;
}

/* Adds D to the count of SLOT's block. */
static inline void lrank_count(struct lrank *l, uint64_t slot, uint32_t d)
{
	uint64_t nblocks = l->cap >> LRANK_BLOCK_SHIFT;

	for (uint64_t i = (slot >> LRANK_BLOCK_SHIFT) + 1; i <= nblocks; i += i & -i)
		l->tree[i] += d;
}

int64_t lrank_push(struct lrank *l, uint64_t addr)
{
	if (l->next == l->cap &&
	    lrank_rebuild(l, l->cap < 1024 ? 1024 : l->live * 2 > l->cap ? l->cap * 2 : l->cap))
		return -1;
	l->addr[l->next] = addr;
	l->bits[l->next / 64] |= (uint64_t)1 << (l->next % 64);
	lrank_count(l, l->next, 1);
	l->live++;
	return (int64_t)l->next++;
}

uint64_t lrank_rank(const struct lrank *l, uint64_t slot)
{
	uint64_t below = 0, w = slot / 64;

	for (uint64_t i = slot >> LRANK_BLOCK_SHIFT; i; i -= i & -i)
		below += l->tree[i];
	for (uint64_t i = w & ~(uint64_t)(LRANK_BLOCK_WORDS - 1); i < w; i++)
		below += popcount64(l->bits[i]);
	below += popcount64(l->bits[w] & (UINT64_MAX >> (63 - slot % 64)));
	return l->live - below;
}

uint64_t lrank_select(const struct lrank *l, uint64_t k)
{
	uint64_t want = l->live - k, pos = 0, step = 1, nblocks = l->cap >> LRANK_BLOCK_SHIFT;
	const uint64_t *w;

	while (step * 2 <= nblocks)
		step *= 2;
	for (; step; step /= 2) {
		if (pos + step <= nblocks && l->tree[pos + step] < want) {
			pos += step;
			want -= l->tree[pos];
		}
	}
	/* The WANT-th live slot of block POS. */
	w = &l->bits[pos * LRANK_BLOCK_WORDS];
	for (unsigned i = 0;; i++) {
		uint64_t c = popcount64(w[i]);

		if (want <= c)
			return ((pos * LRANK_BLOCK_WORDS + i) * 64) + select64(w[i], (unsigned)want - 1);
		want -= c;
	}
}

void lrank_remove(struct lrank *l, uint64_t slot)
{
	l->addr[slot] = 0;
	l->bits[slot / 64] &= ~((uint64_t)1 << (slot % 64));
	lrank_count(l, slot, (uint32_t)-1);
	l->live--;
}

/* ------------------------------------------------------------ the header */

int v3_header_check(struct reader *r, const unsigned char *raw, const struct trace_header *h)
{
	if (!h->header_check || h->header_check != trace_header_checksum((const void *)raw))
		return reader_fail(r, "is damaged: its header's checksum does not match (header_check "
				   "0x%016" PRIx64 ")", h->header_check);
	if (h->header_bytes != TRACE_HEADER_BYTES || h->chunk_bytes || h->state > TRACE_STATE__EXIT ||
	    h->lost_why > TRACE_LOST_NESTED || h->v3_sealed > 1)
		return reader_fail(r, "is damaged: a version 3 header field out of range");
	/*
	 * A thread's index is handed out at its first call, recorded or lost:
	 * more threads than that is a header that would make a replay start
	 * threads the trace never had (as version 2 checks against its chunks).
	 */
	if (h->threads > 1 && h->threads - 1 > h->v3_calls &&
	    h->threads - 1 - h->v3_calls > h->lost)
		return reader_fail(r, "is damaged: header field threads is %" PRIu32 ", more than its "
				   "%" PRIu64 " calls (and %" PRIu64 " lost) could hold", h->threads,
				   h->v3_calls, h->lost);
	return 0;
}

/* ------------------------------------------------------------ the records */

struct open_realloc {
	uint64_t seq2, call;
	size_t pending;             /* its word for the sink, in dec's words */
	struct trace_event e;
};

/* A step decoded and told to AHEAD, its turn at SINK to come. */
struct due {
	struct trace_event e;
	uint64_t call;
	size_t pending;             /* in dec's words (0: a word no one reads) */
	unsigned half;
};

/* A thread's sizes, in a table by thread (only the threads met take room). */
struct sizes {
	uint64_t *v;
	size_t n, alloc;
	uint32_t thread;
	int used;
};

struct dec {
	struct reader *r;
	const struct trace *t;
	trace_sink_fn sink;
	trace_ahead_fn ahead;
	void *ctx;
	struct due due[MERGE_AHEAD];  /* a ring: the steps told to AHEAD, not yet to SINK */
	unsigned due_first, ndue;
	uint64_t *words;            /* the sink's words of the reallocs open; [0] for the rest */
	size_t nwords, words_alloc, words_free;  /* words_free: a list through the words, + 1 */
	struct lrank live;
	struct sizes *sizes;        /* open addressing by thread */
	size_t sizes_mask, nthreads_met;
	struct sizes *cur;          /* the current thread's */
	struct open_realloc *open;  /* a heap by seq2 (open_add()) */
	size_t nopen, open_alloc;
	uint64_t last_second;       /* the place of the last second half due (0: none) */
	uint32_t thread, nthreads;
	uint64_t prev, calls, cursor, block;
	const unsigned char *p, *end;  /* the block's records */
	const unsigned char *ranks;    /* its ranks: WIDTH planes of NRANKS bytes */
	size_t nranks, rank_next;
	uint64_t last_free;            /* the rank of the last free's chunk (V3_FREE_NEAR) */
	uint64_t resident, pages;      /* V3_PAGES for the next record (pages 0: none) */
	unsigned rank_width;
	const char *bad;
	int failed;                 /* 1 out of memory, 2 SINK failed (R->why left as it is) */
};

static uint64_t get_v(struct dec *d)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		unsigned char b;

		if (d->p >= d->end) {
			d->bad = d->bad ? d->bad : "a field runs past the block's records";
			return 0;
		}
		b = *d->p++;
		if (shift == 63 && b > 1)
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	d->bad = d->bad ? d->bad : "a varint larger than 64 bits";
	return 0;
}

/* The block's next rank (trace_v3.h). */
static uint64_t get_rank(struct dec *d)
{
	uint64_t v = 0;

	if (d->rank_next >= d->nranks) {
		d->bad = d->bad ? d->bad : "a record's rank past the block's ranks";
		return 0;
	}
	for (unsigned j = 0; j < d->rank_width; j++)
		v = v << 8 | d->ranks[j * d->nranks + d->rank_next];
	d->rank_next++;
	return v;
}

static int damaged(struct dec *d, const char *what)
{
	return reader_fail(d->r, "is damaged: block %" PRIu64 ": %s", d->block, what);
}

/* A size code given by the 4 bits N of a record's first byte (15: more follows). */
static uint64_t nib_code(struct dec *d, uint64_t n)
{
	uint64_t v;

	if (n < 15)
		return n;
	v = get_v(d);
	if (v > UINT64_MAX - 15)
		d->bad = d->bad ? d->bad : "a size index past 2^64";
	return 15 + v;
}

/* The size of size code CODE in the current thread (a new one follows code 0). */
static uint64_t get_size(struct dec *d, uint64_t code)
{
	struct sizes *z = d->cur;

	if (d->bad)
		return 0;
	if (!code) {
		uint64_t size = get_v(d);

		if (ALLOC_GROW(z->v, z->n, z->alloc)) {
			d->failed = 1;
			return 0;
		}
		z->v[z->n++] = size;
		return size;
	}
	if (code - 1 >= z->n) {
		d->bad = "a size index past the thread's sizes";
		return 0;
	}
	return z->v[code - 1];
}

static struct sizes *sizes_slot(struct sizes *tab, size_t mask, uint32_t thread)
{
	size_t j = (size_t)(thread * 0x9e3779b97f4a7c15ULL >> 17) & mask;

	while (tab[j].used && tab[j].thread != thread)
		j = (j + 1) & mask;
	return &tab[j];
}

/* Makes THREAD's sizes the current ones. Returns 0, or -1 out of memory. */
static int sizes_switch(struct dec *d, uint32_t thread)
{
	struct sizes *z;

	if ((d->nthreads_met + 1) * 2 > d->sizes_mask + 1) {
		size_t cap = d->sizes_mask ? (d->sizes_mask + 1) * 2 : 16;
		struct sizes *tab = calloc(cap, sizeof(*tab));

		if (!tab) {
			d->failed = 1;
			return -1;
		}
		for (size_t i = 0; d->sizes && i <= d->sizes_mask; i++)
			if (d->sizes[i].used)
				*sizes_slot(tab, cap - 1, d->sizes[i].thread) = d->sizes[i];
		free(d->sizes);
		d->sizes = tab;
		d->sizes_mask = cap - 1;
	}
	z = sizes_slot(d->sizes, d->sizes_mask, thread);
	if (!z->used) {
		z->used = 1;
		z->thread = thread;
		d->nthreads_met++;
	}
	d->cur = z;
	return 0;
}

/* The chunk of rank K: its slot, or UINT64_MAX (damage noted). */
static uint64_t live_at(struct dec *d, uint64_t k)
{
	if (k >= d->live.live) {
		d->bad = d->bad ? d->bad : "a rank past the live chunks";
		return UINT64_MAX;
	}
	return lrank_select(&d->live, k);
}

/* A new chunk's address: unique, aligned to ALIGN. */
static uint64_t new_addr(struct dec *d, uint64_t align)
{
	uint64_t a = (uint64_t)1 << trace_align_log2(align > 64 ? align : 64), at;

	if (__builtin_add_overflow(d->cursor, a - 1, &at) || at > UINT64_MAX - 64) {
		d->bad = d->bad ? d->bad : "more aligned chunks than an address space holds";
		return 64;
	}
	at &= ~(a - 1);
	d->cursor = at + 64;
	return at;
}

/* A word for a realloc's two halves: its index, or 0 out of memory (D->failed set). */
static size_t word_take(struct dec *d)
{
	size_t i;

	if (d->words_free) {
		i = d->words_free - 1;
		d->words_free = (size_t)d->words[i];
	} else {
		if (ALLOC_GROW(d->words, d->nwords, d->words_alloc)) {
			d->failed = 1;
			return 0;
		}
		i = d->nwords++;
	}
	d->words[i] = 0;
	return i;
}

static void word_give(struct dec *d, size_t i)
{
	d->words[i] = d->words_free;
	d->words_free = i + 1;
}

/* The oldest step due to SINK. Returns 0, or -1 (D->failed 2). */
static int due_sink(struct dec *d)
{
	struct due *u = &d->due[d->due_first];

	d->due_first = (d->due_first + 1) % MERGE_AHEAD;
	d->ndue--;
	if (d->sink(d->ctx, &u->e, u->half, u->call, &d->words[u->pending])) {
		d->failed = 2;
		return -1;
	}
	if (u->half)
		word_give(d, u->pending);
	return 0;
}

/*
 * Step E (HALF, CALL, its word PENDING) to SINK, MERGE_AHEAD steps later,
 * told to AHEAD now: a chunk's place in the sink's map fetched while the
 * steps before it are taken. Returns 0, or -1.
 */
static int due_add(struct dec *d, const struct trace_event *e, unsigned half, uint64_t call, size_t pending)
{
	if (d->ndue == MERGE_AHEAD && due_sink(d))
		return -1;
	d->due[(d->due_first + d->ndue++) % MERGE_AHEAD] = (struct due){ *e, call, pending, half };
	if (d->ahead)
		d->ahead(d->ctx, e, half);
	return 0;
}

static int push(struct dec *d, uint64_t addr)
{
	if (lrank_push(&d->live, addr) < 0)
		d->failed = 1;
	return d->failed ? -1 : 0;
}

/*
 * The reallocs open, a binary heap by their second place: a trace may
 * hold millions open at once (a few bytes of zstd frame each), and a
 * sorted array moved them all at each one's end.
 */
static int open_add(struct dec *d, const struct trace_event *e, uint64_t call, size_t pending)
{
	size_t i = d->nopen;

	if (ALLOC_GROW(d->open, d->nopen, d->open_alloc)) {
		d->failed = 1;
		return -1;
	}
	for (; i && d->open[(i - 1) / 2].seq2 > e->seq2; i = (i - 1) / 2)
		d->open[i] = d->open[(i - 1) / 2];
	d->open[i] = (struct open_realloc){ e->seq2, call, pending, *e };
	d->nopen++;
	return 0;
}

static struct open_realloc open_pop(struct dec *d)
{
	struct open_realloc top = d->open[0], last = d->open[--d->nopen];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < d->nopen) {
		if (c + 1 < d->nopen && d->open[c + 1].seq2 < d->open[c].seq2)
			c++;
		if (d->open[c].seq2 >= last.seq2)
			break;
		d->open[i] = d->open[c];
		i = c;
	}
	if (d->nopen)
		d->open[i] = last;
	return top;
}

/* The second halves of the reallocs due before place SEQ, in their order. */
static int flush_open(struct dec *d, uint64_t seq)
{
	while (d->nopen && d->open[0].seq2 < seq) {
		struct open_realloc o = open_pop(d);

		/* Popped in order: a place taken twice comes twice in a row. */
		if (o.seq2 == d->last_second)
			return damaged(d, "a place is taken twice");
		d->last_second = o.seq2;
		if (o.e.ret && push(d, o.e.ret))
			return -1;
		if (d->sink && due_add(d, &o.e, 1, o.call, o.pending))
			return -1;
	}
	return 0;
}

/* A control record (N its high bits); GAP set to the gap it gives. */
static int control(struct dec *d, unsigned n, uint64_t *gap, int *has_gap)
{
	uint64_t v = get_v(d), at, k, slot;

	if (d->bad)
		return damaged(d, d->bad);
	if (n == V3_THREAD) {
		if (!d->bad && v >= d->t->header.threads)
			return damaged(d, "a thread out of range");
		d->thread = (uint32_t)v;
		return sizes_switch(d, d->thread);
	}
	if (n == V3_GAP) {
		*gap = v;
		*has_gap = 1;
		return 0;
	}
	if (n == V3_PAGES) {
		d->resident = v;
		d->pages = get_v(d);
		d->bad = d->bad ? d->bad : trace_pages_wrong(d->resident, d->pages);
		return d->bad ? damaged(d, d->bad) : 0;
	}
	if (n != V3_DROP)
		return damaged(d, "a control record of no known kind");
	k = get_rank(d);
	if (d->bad || __builtin_add_overflow(d->prev, v, &at))
		return damaged(d, d->bad ? d->bad : "a place past 2^64");
	if (flush_open(d, at))
		return -1;
	if ((slot = live_at(d, k)) == UINT64_MAX)
		return damaged(d, d->bad);
	lrank_remove(&d->live, slot);
	return 0;
}

/* The next record's place (GAP when given); its second places skipped. */
static int place(struct dec *d, uint64_t gap, int has_gap, uint64_t *seq)
{
	uint64_t s;

	if (__builtin_add_overflow(d->prev, 1, &s) || (has_gap && __builtin_add_overflow(s, gap, &s)))
		return damaged(d, "a place past 2^64");
	while (!has_gap && d->nopen && d->open[0].seq2 == s) {
		if (flush_open(d, s + 1))
			return -1;
		if (++s == 0)
			return damaged(d, "a place past 2^64");
	}
	if (flush_open(d, s))
		return -1;
	if (d->nopen && d->open[0].seq2 == s)
		return damaged(d, "a place is taken twice");
	*seq = s;
	return 0;
}

/* The fields of an allocation of KIND (N its size code); E's kind and thread set. */
static void alloc_fields(struct dec *d, struct trace_event *e, uint64_t n)
{
	e->size = get_size(d, n);
	if (e->kind == TRACE_CALLOC || e->kind == TRACE_POSIX_MEMALIGN ||
	    e->kind == TRACE_ALIGNED_ALLOC || e->kind == TRACE_MEMALIGN)
		e->align = get_v(d);
}

static void realloc_fields(struct dec *d, struct trace_event *e, unsigned n, uint64_t *slot)
{
	unsigned mode = n & 12;
	uint64_t done = 1;

	*slot = UINT64_MAX;
	if (mode == 0 && (*slot = live_at(d, get_rank(d))) != UINT64_MAX)
		e->ptr = d->live.addr[*slot];
	else if (mode == 8)
		e->ptr = 1;         /* no live chunk: no chunk is at an odd address */
	else if (mode != 4)
		d->bad = d->bad ? d->bad : "a realloc's pointer of no known kind";
	e->size = get_size(d, get_v(d));
	if (n & 2)
		done = get_v(d) + 2;
	if (!(n & 1))
		e->ret = 1;         /* given its address below */
	if (done < 2 && (n & 2))
		d->bad = d->bad ? d->bad : "a realloc done past 2^64";
	if (__builtin_add_overflow(e->seq, done, &e->seq2))
		d->bad = d->bad ? d->bad : "a realloc done past 2^64";
}

/* What a successful allocation may have asked for (as version 2's reader checks). */
static const char *alloc_wrong(const struct trace_event *e)
{
	if (e->size > TRACE_SIZE_MAX)
		return "an allocation larger than an address space returned a chunk";
	if ((e->kind == TRACE_POSIX_MEMALIGN || e->kind == TRACE_ALIGNED_ALLOC ||
	     e->kind == TRACE_MEMALIGN) && (e->align > TRACE_SIZE_MAX ||
	     (e->kind == TRACE_POSIX_MEMALIGN && (e->align & (e->align - 1)))))
		return "an alignment no call takes returned a chunk";
	return NULL;
}

/* One call's record (B its first byte, SEQ its place). */
static int record(struct dec *d, unsigned b, uint64_t seq)
{
	struct trace_event e = { .seq = seq, .seq2 = seq, .thread = d->thread, .kind = b & 15 };
	unsigned n = b >> 4;
	uint64_t slot = UINT64_MAX, call = ++d->calls;
	size_t pending = 0;

	if (e.kind == V3_FAILED) {
		e.kind = d->p < d->end ? *d->p++ : 0;
		if (!e.kind || e.kind >= TRACE_KINDS || e.kind == TRACE_FREE || e.kind == TRACE_REALLOC)
			return damaged(d, "a failed call of no allocating kind");
		alloc_fields(d, &e, get_v(d));
		e.ret = 0;
	} else if (e.kind == TRACE_FREE || e.kind == V3_FREE_NEAR) {
		int near = e.kind == V3_FREE_NEAR;
		uint64_t k = near ? d->last_free + n - 1 : n == 13 ? get_rank(d) : n;

		e.kind = TRACE_FREE;
		if (near && !(d->last_free + n))
			d->bad = d->bad ? d->bad : "a free nearer than the newest chunk";
		else if (!near && n == 13 && __builtin_add_overflow(k, 13, &k))
			d->bad = d->bad ? d->bad : "a rank past 2^64";
		if (!near && n >= 14)
			e.ptr = n == 14 ? 0 : 1;
		else if (!d->bad && (slot = live_at(d, k)) != UINT64_MAX) {
			e.ptr = d->live.addr[slot];
			d->last_free = k;
		}
	} else if (e.kind == TRACE_REALLOC) {
		realloc_fields(d, &e, n, &slot);
	} else if (e.kind && e.kind < TRACE_KINDS) {
		alloc_fields(d, &e, nib_code(d, n));
		e.ret = 1;
		if (!d->bad && alloc_wrong(&e))
			return damaged(d, alloc_wrong(&e));
	} else {
		return damaged(d, "a record of no known kind");
	}
	if (d->bad || d->failed)
		return d->failed ? -1 : damaged(d, d->bad);
	if (d->pages) {
		if (e.kind != TRACE_FREE || slot == UINT64_MAX)
			return damaged(d, "pages for a record that frees no live chunk");
		e.size = d->resident;
		e.align = d->pages;
		d->pages = 0;
	}
	if (e.ret) {
		e.ret = new_addr(d, e.kind == TRACE_REALLOC ? 0 : e.align);
		if (d->bad)
			return damaged(d, d->bad);
	}
	if (slot != UINT64_MAX && (e.kind == TRACE_FREE || e.ret || !e.size))
		lrank_remove(&d->live, slot);
	if (e.kind != TRACE_REALLOC && e.ret && push(d, e.ret))
		return -1;
	if (e.thread + 1 > d->nthreads)
		d->nthreads = e.thread + 1;
	d->prev = seq;
	if (e.kind == TRACE_REALLOC && d->sink && !(pending = word_take(d)))
		return -1;
	if (d->sink && due_add(d, &e, 0, call, pending))
		return -1;
	return e.kind == TRACE_REALLOC ? open_add(d, &e, call, pending) : 0;
}

/* The records of one block (RAW, N bytes: trace_v3.h). */
static int block_records(struct dec *d, const unsigned char *raw, size_t n)
{
	uint64_t gap = 0, seq = 0, nrec;
	const unsigned char *after;
	int has_gap = 0;

	d->p = raw;
	d->end = raw + n;
	nrec = get_v(d);
	if (d->bad || nrec > (uint64_t)(d->end - d->p))
		return damaged(d, "its records' length is past its end");
	after = d->p + nrec;
	d->nranks = d->rank_next = 0;
	d->rank_width = 0;
	if (after < d->end) {
		d->rank_width = *after;
		d->ranks = after + 1;
		if (d->rank_width < 1 || d->rank_width > 8 ||
		    (size_t)(d->end - d->ranks) % d->rank_width)
			return damaged(d, "its ranks are not whole");
		d->nranks = (size_t)(d->end - d->ranks) / d->rank_width;
	}
	d->end = after;
	while (d->p < d->end) {
		unsigned b = *d->p++;

		if (!(b & 15)) {
			if (control(d, b >> 4, &gap, &has_gap))
				return -1;
			continue;
		}
		if (place(d, gap, has_gap, &seq) || record(d, b, seq))
			return -1;
		has_gap = 0;
	}
	if (has_gap)
		return damaged(d, "a gap with no record after it");
	return d->rank_next < d->nranks ? damaged(d, "ranks no record takes") : 0;
}

/* Block D->block at *AT into ZBUF and RAW; *AT moved past it; its records decoded. */
static int block_next(struct dec *d, uint64_t *at, unsigned char *zbuf, size_t zmax, unsigned char *raw)
{
	struct trace_block b;
	size_t got;

	if (d->r->size - *at < sizeof(b))
		return reader_fail(d->r, "is truncated: block %" PRIu64 " of %" PRIu64 " is missing",
				   d->block, d->t->header.chunks);
	if (reader_read_at(d->r, *at, &b, sizeof(b)))
		return -1;
	if (b.zbytes > zmax || b.raw > V3_BLOCK_RAW || b.zbytes > d->r->size - *at - sizeof(b))
		return reader_fail(d->r, "is damaged: block %" PRIu64 " at byte %" PRIu64 ": its sizes "
				   "are out of range", d->block, *at);
	if (reader_read_at(d->r, *at + sizeof(b), zbuf, b.zbytes))
		return -1;
	if (b.check != trace_block_checksum(&b, zbuf))
		return reader_fail(d->r, "is damaged: block %" PRIu64 " at byte %" PRIu64 ": its checksum "
				   "does not match", d->block, *at);
	got = ZSTD_decompress(raw, V3_BLOCK_RAW, zbuf, b.zbytes);
	if (ZSTD_isError(got) || got != b.raw)
		return reader_fail(d->r, "is damaged: block %" PRIu64 " at byte %" PRIu64 ": it does not "
				   "decompress to its %" PRIu32 " bytes", d->block, *at, b.raw);
	*at += sizeof(b) + b.zbytes;
	return block_records(d, raw, got);
}

int v3_run(struct reader *r, const struct trace *t, struct scan *s, trace_sink_fn sink,
	   trace_ahead_fn ahead, void *ctx)
{
	struct dec d = { .r = r, .t = t, .sink = sink, .ahead = ahead, .ctx = ctx, .cursor = 64 };
	size_t zmax = ZSTD_compressBound(V3_BLOCK_RAW);
	unsigned char *zbuf = malloc(zmax), *raw = malloc(V3_BLOCK_RAW);
	uint64_t at = TRACE_HEADER_BYTES;
	int ret = -1;

	/* words[0]: the word of the steps that are no realloc's. */
	if (!zbuf || !raw || sizes_switch(&d, 0) || (sink && (word_take(&d), d.failed))) {
		d.failed = 1;
		goto out;
	}
	for (; d.block < t->header.chunks; d.block++)
		if (block_next(&d, &at, zbuf, zmax, raw))
			goto out;
	if (at != r->size) {
		reader_fail(r, "is damaged: %" PRIu64 " bytes past its last block", r->size - at);
		goto out;
	}
	if (flush_open(&d, UINT64_MAX))
		goto out;
	while (d.ndue)
		if (due_sink(&d))
			goto out;
	if (d.calls != t->header.v3_calls) {
		reader_fail(r, "is damaged: %" PRIu64 " records, its header says %" PRIu64, d.calls,
			    t->header.v3_calls);
		goto out;
	}
	if (s)
		s->nthreads = d.nthreads;
	ret = 0;
out:
	if (ret && d.failed == 1)
		reader_fail(r, "cannot be read: out of memory");
	for (size_t i = 0; d.sizes && i <= d.sizes_mask; i++)
		free(d.sizes[i].v);
	free(d.sizes);
	free(d.open);
	free(d.words);
	free(zbuf);
	free(raw);
	lrank_release(&d.live);
	return ret;
}
