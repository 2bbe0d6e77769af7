/*
 * trace_decode.c - a version 1 or 2 chunk's records (trace_format.h),
 * decoded and each field checked that a recorder could not have written
 * (trace_read.h: chunk_decode(), chunk_reread()).
 */
#include "trace/trace.h"
#include "trace/trace_read.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const unsigned char *p, *end;
	uint64_t prev_ptr;
	const char *bad;    /* what is wrong, or NULL */
};

/* A varint read by varint_long(): the value, where the cursor goes on, what is wrong. */
struct varint_read {
	uint64_t v;
	const unsigned char *p;
	const char *bad;
};

/*
 * A varint at P, bounds checked byte by byte (BAD: what was already wrong,
 * when nothing more is read). Returned by value, so that the decoder's
 * cursor never leaves its registers.
 */
static __attribute__((noinline)) struct varint_read varint_long(const unsigned char *p,
							 const unsigned char *end, const char *bad)
{
	struct varint_read r = { 0, p, bad };

	for (unsigned shift = 0; shift < 64 && !r.bad; shift += 7) {
		unsigned char b;

		if (r.p >= end) {
			r.bad = "a field runs past the chunk's used bytes";
			r.v = 0;
			return r;
		}
		b = *r.p++;
		if (shift == 63 && b > 1) {
			r.bad = "a varint larger than 64 bits";
			r.v = 0;
			return r;
		}
		r.v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return r;
	}
	if (!r.bad)
		r.bad = "a varint larger than 64 bits";
	r.v = 0;
	return r;
}

static inline uint64_t get_varint_long(struct cursor *c)
{
	struct varint_read r = varint_long(c->p, c->end, c->bad);

	c->p = r.p;
	c->bad = r.bad;
	return r.v;
}

/*
 * With room for the longest varint ahead, one of up to 8 bytes is read
 * without a branch on its length (pointers take 1 to 5 bytes, at random:
 * a branch per byte would be mispredicted): its 8 bytes as a word, cut
 * after the first byte without the high bit, its 7-bit groups packed.
 * The rest (near the end, longer, and every damage) out of line.
 */
static inline uint64_t get_varint(struct cursor *c)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned char *p = c->p;
	uint64_t w, stop;

	if (__builtin_expect(c->end - p < 10, 0))
		return get_varint_long(c);
	memcpy(&w, p, 8);
	stop = ~w & 0x8080808080808080ULL;
	if (__builtin_expect(!stop, 0))
		return get_varint_long(c);
	c->p = p + (__builtin_ctzll(stop) + 1) / 8;
	w &= (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7fULL;
	w = (w & 0x007f007f007f007fULL) | ((w & 0x7f007f007f007f00ULL) >> 1);
	w = (w & 0x00003fff00003fffULL) | ((w & 0x3fff00003fff0000ULL) >> 2);
	return (w & 0x000000000fffffffULL) | ((w & 0x0fffffff00000000ULL) >> 4);
#else
	return get_varint_long(c);
#endif
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint64_t get_ptr(struct cursor *c)
{
	uint64_t v = get_varint(c);
	uint64_t d;

	if (!v)
		return 0;
	v--;
	d = (uint64_t)unzigzag(v >> 1);
	if (!(v & 1))
		d *= 16;
	c->prev_ptr += d;
	return c->prev_ptr;
}

/* Reads one record's fields into *E (kind set); 0, or -1 for a kind out of range. */
static inline int get_fields(struct cursor *c, struct trace_event *e, uint64_t *done)
{
	switch (e->kind) {
	case TRACE_MALLOC:
	case TRACE_VALLOC:
	case TRACE_PVALLOC:
		e->size = get_varint(c);
		e->ret = get_ptr(c);
		return 0;
	case TRACE_CALLOC: {
		uint64_t n = get_varint(c), size = get_varint(c);

		e->align = n;
		if (__builtin_mul_overflow(n, size, &e->size))
			e->size = UINT64_MAX;
		e->ret = get_ptr(c);
		return 0;
	}
	case TRACE_POSIX_MEMALIGN:
	case TRACE_ALIGNED_ALLOC:
	case TRACE_MEMALIGN:
		e->align = get_varint(c);
		e->size = get_varint(c);
		e->ret = get_ptr(c);
		return 0;
	case TRACE_REALLOC:
		e->ptr = get_ptr(c);
		e->size = get_varint(c);
		e->ret = get_ptr(c);
		*done = get_varint(c);
		return 0;
	case TRACE_FREE:
		e->ptr = get_ptr(c);
		return 0;
	case TRACE_FREE_PAGES:
		e->kind = TRACE_FREE;
		e->ptr = get_ptr(c);
		e->size = get_varint(c);
		e->align = get_varint(c);
		if (!c->bad && !e->ptr)
			c->bad = "a free of NULL with its pages";
		else if (!c->bad)
			c->bad = trace_pages_wrong(e->size, e->align);
		return 0;
	default:
		return -1;
	}
}

/* What a call that succeeded can have asked for, in an address space; 0 or -1 with R->why. */
static int check_fields(struct reader *r, const struct chunk_meta *m, uint64_t at,
			const struct trace_event *e)
{
	const char *name = trace_kind_name(e->kind);

	if (e->ret && e->kind != TRACE_FREE && e->size > TRACE_SIZE_MAX)
		return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
			    ": a %s of %" PRIu64 " bytes returned a chunk (more than an "
			    "address space holds)", m->index, at, name, e->size);
	if (e->ret && (e->kind == TRACE_POSIX_MEMALIGN || e->kind == TRACE_ALIGNED_ALLOC ||
		       e->kind == TRACE_MEMALIGN)) {
		if (e->align > TRACE_SIZE_MAX ||
		    (e->kind == TRACE_POSIX_MEMALIGN && (e->align & (e->align - 1))))
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": a %s of alignment %" PRIu64 " returned a chunk (it "
				    "takes a power of two up to 2^56)", m->index, at, name,
				    e->align);
		if (e->ret & (((uint64_t)1 << trace_align_log2(e->align)) - 1))
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": a %s of alignment %" PRIu64 " returned 0x%" PRIx64
				    ", not so aligned", m->index, at, name, e->align, e->ret);
	}
	return 0;
}

int chunk_decode(struct reader *r, struct chunk_meta *m, const unsigned char *payload,
		 uint32_t header_bytes, struct trace_event *out)
{
	struct cursor c = { payload, payload + m->used, 0, NULL };
	uint64_t seq = m->base_seq, min = UINT64_MAX;
	uint32_t n = 0;
	int32_t net = 0;

	while (c.p < c.end) {
		struct trace_event *e = &out[n];
		const unsigned char *start = c.p;
		uint64_t h = get_varint(&c), done = 0;
		int64_t delta = unzigzag(h >> 4);

		*e = (struct trace_event){ .kind = (uint8_t)(h & 15), .thread = m->thread };
		if (get_fields(&c, e, &done) && !c.bad)
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": kind %u is none of 1..%d", m->index,
				    trace_chunk_offset(m->index) + header_bytes + (uint64_t)(start - payload),
				    e->kind, TRACE_KINDS - 1);
		if (__builtin_expect(c.bad != NULL, 0))
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64 ": %s",
				    m->index, trace_chunk_offset(m->index) + header_bytes +
				    (uint64_t)(start - payload), c.bad);
		if ((delta < 0 && (uint64_t)-(delta + 1) >= seq) ||
		    (delta > 0 && (uint64_t)delta > UINT64_MAX - seq))
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": its seq is outside 1..2^64-1", m->index,
				    trace_chunk_offset(m->index) + header_bytes + (uint64_t)(start - payload));
		seq += (uint64_t)delta;
		e->seq = e->seq2 = seq;
		if (seq < min)
			min = seq;
		if (e->kind == TRACE_REALLOC) {
			if (!done || done > UINT64_MAX - seq)
				return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": a realloc done %" PRIu64 " calls after it started (it "
					    "takes 1 or more)", m->index, trace_chunk_offset(m->index) +
					    header_bytes + (uint64_t)(start - payload), done);
			e->seq2 = seq + done;
		}
		if (e->ret && (e->size > TRACE_SIZE_MAX || e->kind >= TRACE_POSIX_MEMALIGN) &&
		    check_fields(r, m, trace_chunk_offset(m->index) + header_bytes +
				 (uint64_t)(start - payload), e))
			return -1;
		net += (e->kind != TRACE_FREE && e->ret) -
		       ((e->kind == TRACE_FREE || e->kind == TRACE_REALLOC) && e->ptr);
		n++;
	}
	m->n = n;
	m->net = net;
	m->last_seq = seq;
	m->min_seq = min;
	return 0;
}

int chunk_reread(struct reader *r, const struct scan *s, const struct chunk_meta *m,
		 unsigned char *block, uint64_t *block_first, uint64_t *block_n, uint64_t nchunks,
		 struct trace_event *out)
{
	struct chunk_meta again = *m;
	const unsigned char *at;

	if (m->index < *block_first || m->index >= *block_first + *block_n) {
		uint64_t n = nchunks - m->index < READ_CHUNKS ? nchunks - m->index : READ_CHUNKS;

		*block_n = 0;
		if (reader_read_at(r, trace_chunk_offset(m->index), block, (size_t)n * TRACE_CHUNK_BYTES))
			return -1;
		*block_first = m->index;
		*block_n = n;
	}
	at = block + (m->index - *block_first) * TRACE_CHUNK_BYTES;
	/* The file may have changed since it was checked: the same checks again. */
	if (((const struct trace_chunk *)(const void *)at)->used != m->used)
		return reader_fail(r, "changed while it was read: chunk %" PRIu64 " at byte %" PRIu64,
				   m->index, trace_chunk_offset(m->index));
	if (chunk_decode(r, &again, at + s->chunk_header, s->chunk_header, out))
		return -1;
	if (again.n != m->n || again.last_seq != m->last_seq)
		return reader_fail(r, "changed while it was read: chunk %" PRIu64 " at byte %" PRIu64,
				   m->index, trace_chunk_offset(m->index));
	return 0;
}
