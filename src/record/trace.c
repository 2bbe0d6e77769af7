/*
 * trace.c - reading a trace and following its chunks by address (trace.h).
 */
#include "record/trace.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[TRACE_KINDS] = {
	[TRACE_MALLOC] = "malloc",
	[TRACE_CALLOC] = "calloc",
	[TRACE_REALLOC] = "realloc",
	[TRACE_FREE] = "free",
	[TRACE_POSIX_MEMALIGN] = "posix_memalign",
	[TRACE_ALIGNED_ALLOC] = "aligned_alloc",
	[TRACE_MEMALIGN] = "memalign",
	[TRACE_VALLOC] = "valloc",
	[TRACE_PVALLOC] = "pvalloc",
};

const char *trace_kind_name(unsigned kind)
{
	return kind < TRACE_KINDS ? kind_names[kind] : NULL;
}

const char *trace_state_name(uint32_t state)
{
	switch (state) {
	case TRACE_STATE_EXIT: return "complete (exit)";
	case TRACE_STATE_EXEC: return "ended by exec";
	case TRACE_STATE__EXIT: return "ended by _exit";
	default: return "cut short";
	}
}

/* ------------------------------------------------------------ reading */

/*
 * Where a trace's bytes come from: a descriptor read with pread() (never
 * mapped: a file cut shorter while it is read would kill the reader with
 * SIGBUS), or a buffer (the fuzz target).
 */
struct reader {
	const char *name;
	int fd;                        /* -1: buf */
	const unsigned char *buf;
	uint64_t size;                 /* the file's size when it was opened */
	char *why;
	size_t why_size;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->why, r->why_size, "trace '%s' ", r->name);

	if (n < 0 || (size_t)n >= r->why_size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->why + n, r->why_size - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Reads N bytes at AT into DST. Returns 0, or -1 (said in R->why) when the file changed or failed. */
static int read_at(struct reader *r, uint64_t at, void *dst, size_t n)
{
	size_t done = 0;

	if (r->fd < 0) {
		if (at > r->size || n > r->size - at)
			return fail(r, "changed while it was read: %" PRIu64 " bytes, none at byte %" PRIu64,
				    r->size, at + n);
		memcpy(dst, r->buf + at, n);
		return 0;
	}
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)dst + done, n - done, (off_t)(at + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return fail(r, "cannot be read at byte %" PRIu64 ": %s", at + done, strerror(errno));
		if (!got)
			return fail(r, "changed while it was read: it was %" PRIu64 " bytes, it ends "
				    "at byte %" PRIu64 " now", r->size, at + done);
		done += (size_t)got;
	}
	return 0;
}

/* Chunks read at once, and their bytes. */
#define READ_CHUNKS 16
#define READ_BYTES (READ_CHUNKS * TRACE_CHUNK_BYTES)

struct cursor {
	const unsigned char *p, *end;
	uint64_t prev_ptr;
	const char *bad;    /* what is wrong, or NULL */
};

static uint64_t get_varint(struct cursor *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64 && !c->bad; shift += 7) {
		unsigned char b;

		if (c->p >= c->end) {
			c->bad = "a field runs past the chunk's used bytes";
			return 0;
		}
		b = *c->p++;
		if (shift == 63 && b > 1) {
			c->bad = "a varint larger than 64 bits";
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	if (!c->bad)
		c->bad = "a varint larger than 64 bits";
	return 0;
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint64_t get_ptr(struct cursor *c)
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

/* The log2 of the smallest power of two >= ALIGN (0 for 0 and 1); ALIGN <= 2^63. */
static unsigned align_log2(uint64_t align)
{
	return align > 1 ? 64 - (unsigned)__builtin_clzll(align - 1) : 0;
}

/* What one chunk held, while the trace is read (trace_load()). */
struct chunk_meta {
	uint64_t index;        /* its place in the file */
	uint32_t thread;
	uint32_t used;
	uint64_t base_seq;
	uint64_t last_seq;     /* its last record's seq (base_seq when it has none) */
	size_t first, n;       /* its records: events[first .. first + n) as decoded */
	int sealed;            /* version 2, its check verified */
	int dropped;           /* a copy of another (the recorder's window) */
};

static uint64_t chunk_at(uint64_t index)
{
	return TRACE_HEADER_BYTES + index * TRACE_CHUNK_BYTES;
}

/*
 * Decodes the records of chunk M (PAYLOAD, M->used bytes) into T's events,
 * checking each field that a recorder could not have written. Returns 0,
 * or -1 with R->why set (out of memory included).
 */
static int chunk_decode(struct reader *r, struct trace *t, size_t *alloc, struct chunk_meta *m,
			const unsigned char *payload, uint32_t header_bytes)
{
	struct cursor c = { payload, payload + m->used, 0, NULL };
	uint64_t seq = m->base_seq;

	m->first = t->nevents;
	while (c.p < c.end) {
		struct trace_event e = { 0 };
		uint64_t at = chunk_at(m->index) + header_bytes + (uint64_t)(c.p - payload);
		uint64_t h = get_varint(&c), done = 0;
		int64_t delta = unzigzag(h >> 4);
		const char *name;

		e.kind = (uint8_t)(h & 15);
		e.thread = m->thread;
		switch (e.kind) {
		case TRACE_MALLOC:
		case TRACE_VALLOC:
		case TRACE_PVALLOC:
			e.size = get_varint(&c);
			e.ret = get_ptr(&c);
			break;
		case TRACE_CALLOC: {
			uint64_t n = get_varint(&c), size = get_varint(&c);

			e.align = n;
			if (__builtin_mul_overflow(n, size, &e.size))
				e.size = UINT64_MAX;
			e.ret = get_ptr(&c);
			break;
		}
		case TRACE_POSIX_MEMALIGN:
		case TRACE_ALIGNED_ALLOC:
		case TRACE_MEMALIGN:
			e.align = get_varint(&c);
			e.size = get_varint(&c);
			e.ret = get_ptr(&c);
			break;
		case TRACE_REALLOC:
			e.ptr = get_ptr(&c);
			e.size = get_varint(&c);
			e.ret = get_ptr(&c);
			done = get_varint(&c);
			break;
		case TRACE_FREE:
			e.ptr = get_ptr(&c);
			break;
		default:
			if (!c.bad)
				return fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": kind %u is none of 1..%d", m->index, at, e.kind,
					    TRACE_KINDS - 1);
		}
		if (c.bad)
			return fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64 ": %s",
				    m->index, at, c.bad);
		name = trace_kind_name(e.kind);
		if ((delta < 0 && (uint64_t)-(delta + 1) >= seq) ||
		    (delta > 0 && (uint64_t)delta > UINT64_MAX - seq))
			return fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": its seq is outside 1..2^64-1", m->index, at);
		seq += (uint64_t)delta;
		e.seq = e.seq2 = seq;
		if (e.kind == TRACE_REALLOC) {
			if (!done || done > UINT64_MAX - seq)
				return fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": a realloc done %" PRIu64 " calls after it started (it "
					    "takes 1 or more)", m->index, at, done);
			e.seq2 = seq + done;
		}
		/* What a call that succeeded can have asked for, in an address space. */
		if (e.ret && e.kind != TRACE_FREE && e.size > TRACE_SIZE_MAX)
			return fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": a %s of %" PRIu64 " bytes returned a chunk (more than an "
				    "address space holds)", m->index, at, name, e.size);
		if (e.ret && (e.kind == TRACE_POSIX_MEMALIGN || e.kind == TRACE_ALIGNED_ALLOC ||
			      e.kind == TRACE_MEMALIGN)) {
			if (e.align > TRACE_SIZE_MAX ||
			    (e.kind == TRACE_POSIX_MEMALIGN && (e.align & (e.align - 1))))
				return fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": a %s of alignment %" PRIu64 " returned a chunk (it "
					    "takes a power of two up to 2^56)", m->index, at, name,
					    e.align);
			if (e.ret & (((uint64_t)1 << align_log2(e.align)) - 1))
				return fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": a %s of alignment %" PRIu64 " returned 0x%" PRIx64
					    ", not so aligned", m->index, at, name, e.align, e.ret);
		}
		if (ALLOC_GROW(t->events, t->nevents, *alloc))
			return fail(r, "cannot be read: out of memory");
		t->events[t->nevents++] = e;
	}
	m->n = t->nevents - m->first;
	m->last_seq = seq;
	return 0;
}

/* By thread, then base_seq; of two copies the longer, then the sealed one, first. */
static int chunk_meta_cmp(const void *a, const void *b)
{
	const struct chunk_meta *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->base_seq != y->base_seq)
		return x->base_seq < y->base_seq ? -1 : 1;
	if (x->used != y->used)
		return x->used > y->used ? -1 : 1;
	if (x->sealed != y->sealed)
		return x->sealed ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* In the file's order of decoding. */
static int chunk_meta_first_cmp(const void *a, const void *b)
{
	const struct chunk_meta *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

static int event_cmp(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A place in the order and the chunk that holds it, to find one taken twice. */
struct seq_ref {
	uint64_t seq;
	uint64_t chunk;
};

static int seq_ref_cmp(const void *a, const void *b)
{
	const struct seq_ref *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->chunk < y->chunk ? -1 : x->chunk > y->chunk;
}

static int same_event(const struct trace_event *a, const struct trace_event *b)
{
	return a->seq == b->seq && a->seq2 == b->seq2 && a->ptr == b->ptr && a->ret == b->ret &&
	       a->size == b->size && a->align == b->align && a->kind == b->kind;
}

/*
 * The chunks in each thread's order, one of each pair of copies: two
 * chunks of a thread that start at the same base_seq are the recorder's
 * window and its copy in the file (the shorter one must be the start of
 * the longer). Each thread's chunks must follow on: the first starts at
 * seq 0, each next one where the one before ended. An unsealed chunk must
 * be one of its thread's last TRACE_WINDOW_CHUNKS. Returns 0, or -1.
 */
static int chunks_order(struct reader *r, const struct trace *t, struct chunk_meta *m, size_t n)
{
	if (n)
		qsort(m, n, sizeof(*m), chunk_meta_cmp);
	for (size_t i = 0; i < n; i++) {
		size_t end, kept = i;

		for (end = i + 1; end < n && m[end].thread == m[i].thread; end++)
			;
		for (size_t j = i + 1; j < end; j++) {
			struct chunk_meta *prev = &m[kept];

			if (m[j].base_seq == prev->base_seq) {
				for (size_t e = 0; e < m[j].n; e++)
					if (!same_event(&t->events[m[j].first + e], &t->events[prev->first + e]))
						return fail(r, "is damaged: chunks %" PRIu64 " and %" PRIu64
							    ", copies of thread %" PRIu32 "'s records from "
							    "seq %" PRIu64 ", differ at record %zu",
							    prev->index, m[j].index, m[j].thread,
							    m[j].base_seq, e + 1);
				m[j].dropped = 1;
				continue;
			}
			if (m[j].base_seq != prev->last_seq)
				return fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": thread %"
					    PRIu32 "'s records go on from seq %" PRIu64 ", but its chunk "
					    "before (%" PRIu64 ") ends at seq %" PRIu64, m[j].index,
					    chunk_at(m[j].index), m[j].thread, m[j].base_seq,
					    prev->index, prev->last_seq);
			kept = j;
		}
		if (m[i].base_seq != 0)
			return fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": thread %" PRIu32
				    "'s first chunk starts after seq %" PRIu64 ", not 0 (its chunks "
				    "before are missing)", m[i].index, chunk_at(m[i].index),
				    m[i].thread, m[i].base_seq);
		if (t->header.version >= 2) {
			size_t left = 0;

			for (size_t j = end; j-- > i;) {
				if (m[j].dropped)
					continue;
				if (!m[j].sealed && left >= TRACE_WINDOW_CHUNKS)
					return fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64
						    ": not sealed (check 0), yet not one of thread %"
						    PRIu32 "'s last %d chunks", m[j].index,
						    chunk_at(m[j].index), m[j].thread,
						    TRACE_WINDOW_CHUNKS);
				left++;
			}
		}
		i = end - 1;
	}
	return 0;
}

/* Every place in the order is taken once: a call's seq, a realloc's second. */
static int seqs_unique(struct reader *r, const struct trace *t, const struct chunk_meta *m, size_t n)
{
	struct seq_ref *refs;
	size_t nrefs = 0, want = 0;

	for (size_t i = 0; i < n; i++)
		if (!m[i].dropped)
			want += 2 * m[i].n;
	refs = malloc((want ? want : 1) * sizeof(*refs));
	if (!refs)
		return fail(r, "cannot be read: out of memory");
	for (size_t i = 0; i < n; i++) {
		if (m[i].dropped)
			continue;
		for (size_t e = m[i].first; e < m[i].first + m[i].n; e++) {
			refs[nrefs++] = (struct seq_ref){ t->events[e].seq, m[i].index };
			if (t->events[e].kind == TRACE_REALLOC)
				refs[nrefs++] = (struct seq_ref){ t->events[e].seq2, m[i].index };
		}
	}
	qsort(refs, nrefs, sizeof(*refs), seq_ref_cmp);
	for (size_t i = 1; i < nrefs; i++) {
		if (refs[i].seq == refs[i - 1].seq) {
			struct seq_ref a = refs[i - 1], b = refs[i];

			free(refs);
			return fail(r, "is damaged: seq %" PRIu64 " is taken twice (in chunk %" PRIu64
				    " and chunk %" PRIu64 "): each call has its own place in the order",
				    a.seq, a.chunk, b.chunk);
		}
	}
	free(refs);
	return 0;
}

/* Bytes past the chunks claimed (a trace cut short keeps the room it had grown by): all zero. */
static int tail_zero(struct reader *r, unsigned char *block, uint64_t chunks)
{
	uint64_t from = chunk_at(chunks);

	for (uint64_t at = from; at < r->size;) {
		size_t n = r->size - at < READ_BYTES ? (size_t)(r->size - at) : READ_BYTES;

		if (read_at(r, at, block, n))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (block[i])
				return fail(r, "is damaged: byte %" PRIu64 ", past its %" PRIu64
					    " chunks (which end at byte %" PRIu64 "), is not zero",
					    at + i, chunks, from);
		at += n;
	}
	return 0;
}

/* The header's fields, against the file (R->size). Returns 0, or -1. */
static int header_check(struct reader *r, const unsigned char *raw, struct trace_header *h)
{
	unsigned wrong = 0, where = 0;
	uint64_t need;

	const struct trace_header *whole = (const struct trace_header *)(const void *)raw;

	memcpy(h, raw, sizeof(*h));
	for (unsigned i = 0; i < sizeof(h->magic); i++)
		if (raw[i] != (unsigned char)TRACE_MAGIC[i])
			wrong++, where = i;
	if (wrong > 1)
		return fail(r, "is not an allocbench trace (no '%s' at its start)", TRACE_MAGIC);
	if (wrong)
		return fail(r, "is damaged: byte %u of its magic ('%s') is 0x%02x", where, TRACE_MAGIC,
			    raw[where]);
	if (h->version != 1 && h->version != 2) {
		if (h->header_check && h->header_check == trace_header_checksum(whole))
			return fail(r, "is of format version %" PRIu32 " (this allocbench reads "
				    "versions 1 and 2)", h->version);
		return fail(r, "is damaged: header field version is %" PRIu32 " (this allocbench "
			    "reads versions 1 and 2)", h->version);
	}
	if (h->version >= 2 && h->state != TRACE_STATE_WRITING && !h->header_check) {
		/* The recorder seals the header as it marks the end: a state without one is damage. */
		return fail(r, "is damaged: its header says it ended (%s) but is not sealed "
			    "(header_check 0)", trace_state_name(h->state));
	} else if (h->version >= 2 && h->state != TRACE_STATE_WRITING) {
		/* Sealed when it ended: every other field is checked by it. */
		if (h->header_check != trace_header_checksum(whole))
			return fail(r, "is damaged: its header's checksum does not match (header_check "
				    "0x%016" PRIx64 ", the header's bytes give 0x%016" PRIx64 ")",
				    h->header_check, trace_header_checksum(whole));
	} else {
		/* Version 1's header ends at command; version 2 while written has no check yet. */
		size_t from = h->version == 1 ? offsetof(struct trace_header, lost_why) :
			      sizeof(struct trace_header);

		if (h->version >= 2 && h->header_check)
			return fail(r, "is damaged: header_check is set (0x%016" PRIx64 ") in a trace "
				    "whose state says it is still being written", h->header_check);
		for (size_t i = from; i < TRACE_HEADER_BYTES; i++)
			if (raw[i])
				return fail(r, "is damaged: header byte %zu, unused in version %" PRIu32
					    ", is not zero", i, h->version);
	}
	if (h->header_bytes != TRACE_HEADER_BYTES)
		return fail(r, "is damaged: header field header_bytes is %" PRIu32 " (expected %d)",
			    h->header_bytes, TRACE_HEADER_BYTES);
	if (h->chunk_bytes != TRACE_CHUNK_BYTES)
		return fail(r, "is damaged: header field chunk_bytes is %" PRIu32 " (expected %d)",
			    h->chunk_bytes, TRACE_CHUNK_BYTES);
	if (h->state > TRACE_STATE__EXIT)
		return fail(r, "is damaged: header field state is %" PRIu32 " (expected 0..3)", h->state);
	if (h->lost_why > TRACE_LOST_NESTED)
		return fail(r, "is damaged: header field lost_why is %" PRIu32 " (expected 0..3)",
			    h->lost_why);
	if (h->chunks > (UINT64_MAX - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES)
		return fail(r, "is damaged: header field chunks is %" PRIu64 ", more than a file holds",
			    h->chunks);
	/* Each thread index handed out is followed by its first chunk's claim. */
	if (h->threads > h->chunks + 1)
		return fail(r, "is damaged: header field threads is %" PRIu32 ", more than its %"
			    PRIu64 " chunks could hold", h->threads, h->chunks);
	need = chunk_at(h->chunks);
	/*
	 * Shorter than its chunks: cut. Only a recorder that could not grow
	 * the file (calls lost, the trace full or its file unwritable) leaves
	 * chunks it claimed beyond the end: then the file's whole chunks are
	 * all there is.
	 */
	if (r->size < need && !(h->lost && (h->version == 1 || h->lost_why == TRACE_LOST_FULL ||
					    h->lost_why == TRACE_LOST_WRITE)))
		return fail(r, "is truncated: it ends at byte %" PRIu64 ", its header's %" PRIu64
			    " chunks at byte %" PRIu64, r->size, h->chunks, need);
	return 0;
}


static int trace_load_from(struct reader *r, struct trace *t)
{
	union {
		struct trace_header h;
		unsigned char raw[TRACE_HEADER_BYTES];
	} head;
	struct chunk_meta *metas = NULL;
	unsigned char *block = NULL;
	size_t nmetas = 0, metas_alloc = 0, alloc = 0;
	uint32_t chunk_header = 0, payload_max;
	uint64_t nchunks;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	t->file_bytes = r->size;
	if (r->size < TRACE_HEADER_BYTES) {
		unsigned char start[sizeof(TRACE_MAGIC)];
		size_t n = r->size < sizeof(start) ? (size_t)r->size : sizeof(start);

		if (read_at(r, 0, start, n))
			return -1;
		if (!memcmp(start, TRACE_MAGIC, n))
			return fail(r, "is truncated: %" PRIu64 " bytes, shorter than its %d-byte header",
				    r->size, TRACE_HEADER_BYTES);
		return fail(r, "is not an allocbench trace (%" PRIu64 " bytes, shorter than a header)",
			    r->size);
	}
	if (read_at(r, 0, head.raw, sizeof(head.raw)) || header_check(r, head.raw, &t->header))
		return -1;
	t->header.command[sizeof(t->header.command) - 1] = '\0';
	chunk_header = t->header.version == 1 ? TRACE_CHUNK_HEADER_V1_BYTES :
		       (uint32_t)sizeof(struct trace_chunk);
	payload_max = TRACE_CHUNK_BYTES - chunk_header;
	nchunks = (r->size - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
	if (t->header.chunks < nchunks)
		nchunks = t->header.chunks;
	t->trace_bytes = chunk_at(nchunks);
	block = malloc(READ_BYTES);
	if (!block) {
		fail(r, "cannot be read: out of memory");
		goto out;
	}
	if (t->header.chunks == nchunks && tail_zero(r, block, nchunks))
		goto out;
	for (uint64_t k = 0; k < nchunks; k += READ_CHUNKS) {
		uint64_t n = nchunks - k < READ_CHUNKS ? nchunks - k : READ_CHUNKS;

		if (read_at(r, chunk_at(k), block, (size_t)n * TRACE_CHUNK_BYTES))
			goto out;
		for (uint64_t i = 0; i < n; i++) {
			const unsigned char *at = block + i * TRACE_CHUNK_BYTES;
			struct trace_chunk c = { 0 };
			struct chunk_meta *m;

			memcpy(&c, at, chunk_header);
			if (c.used > payload_max) {
				fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": used %" PRIu32
				     " is more than a chunk's %" PRIu32 " bytes of records", k + i,
				     chunk_at(k + i), c.used, payload_max);
				goto out;
			}
			if (t->header.version >= 2 && c.check &&
			    c.check != trace_chunk_checksum((const struct trace_chunk *)(const void *)at)) {
				fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": its checksum "
				     "does not match", k + i, chunk_at(k + i));
				goto out;
			}
			if (t->header.version >= 2 && !c.check) {
				if (t->header.state != TRACE_STATE_WRITING) {
					fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": not sealed "
					     "(check 0) in a trace that ended (%s)", k + i, chunk_at(k + i),
					     trace_state_name(t->header.state));
					goto out;
				}
				if (c.used)
					t->unsealed_chunks++;
			}
			if (!c.used)
				continue;
			if (c.thread >= t->header.threads) {
				fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": thread %" PRIu32
				     " out of range (%" PRIu32 " thread%s)", k + i, chunk_at(k + i),
				     c.thread, t->header.threads, t->header.threads == 1 ? "" : "s");
				goto out;
			}
			if (ALLOC_GROW(metas, nmetas, metas_alloc)) {
				fail(r, "cannot be read: out of memory");
				goto out;
			}
			m = &metas[nmetas++];
			*m = (struct chunk_meta){ .index = k + i, .thread = c.thread, .used = c.used,
				.base_seq = c.base_seq, .sealed = c.check != 0 };
			if (chunk_decode(r, t, &alloc, m, at + chunk_header, chunk_header))
				goto out;
		}
	}
	if (chunks_order(r, t, metas, nmetas) || seqs_unique(r, t, metas, nmetas))
		goto out;
	t->sealed = t->header.version >= 2 && t->header.state != TRACE_STATE_WRITING;
	/* Keep one copy of each chunk's records, in the process's order. */
	{
		size_t kept = 0;

		if (nmetas)
			qsort(metas, nmetas, sizeof(*metas), chunk_meta_first_cmp);
		for (size_t i = 0; i < nmetas; i++) {
			if (metas[i].dropped)
				continue;
			memmove(&t->events[kept], &t->events[metas[i].first], metas[i].n * sizeof(*t->events));
			kept += metas[i].n;
		}
		t->nevents = kept;
	}
	for (size_t i = 1; i < t->nevents; i++) {
		if (t->events[i - 1].seq > t->events[i].seq) {
			qsort(t->events, t->nevents, sizeof(*t->events), event_cmp);
			break;
		}
	}
	ret = 0;
out:
	free(block);
	free(metas);
	if (ret)
		trace_release(t);
	return ret;
}

int trace_load(const char *path, struct trace *t, char *why, size_t why_size)
{
	struct reader r = { .name = path, .fd = -1, .why = why, .why_size = why_size };
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0 || fstat(r.fd, &st)) {
		snprintf(why, why_size, "cannot read trace '%s': %s", path, strerror(errno));
		if (r.fd >= 0)
			close(r.fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(r.fd);
		snprintf(why, why_size, "cannot read trace '%s': not a regular file", path);
		return -1;
	}
	r.size = (uint64_t)st.st_size;
	ret = trace_load_from(&r, t);
	close(r.fd);
	return ret;
}

int trace_load_buffer(const char *name, const void *data, size_t size, struct trace *t, char *why,
		      size_t why_size)
{
	struct reader r = { .name = name, .fd = -1, .buf = data, .size = size, .why = why,
			    .why_size = why_size };

	return trace_load_from(&r, t);
}

void trace_release(struct trace *t)
{
	free(t->events);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------ following chunks */

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
	op->align_log2 = (uint8_t)align_log2(align);  /* align <= TRACE_SIZE_MAX (trace_load()) */
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
	for (size_t i = 0; i < t->nevents; i++) {
		const struct trace_event *e = &t->events[i];

		st->calls[e->kind]++;
		st->calls[0]++;
		st->threads[e->thread].calls++;
		steps[nsteps++] = (struct step){ e->seq, (uint32_t)i, 0 };
		if (e->kind == TRACE_REALLOC)
			steps[nsteps++] = (struct step){ e->seq2, (uint32_t)i, 1 };
		/* Every allocating call, failed or not; realloc when it asks for bytes. */
		if (e->kind != TRACE_FREE && !(e->kind == TRACE_REALLOC && !e->size)) {
			if (__builtin_add_overflow(st->requested_bytes, e->size, &st->requested_bytes))
				st->requested_bytes = UINT64_MAX;
			if (__builtin_add_overflow(st->threads[e->thread].bytes, e->size,
						   &st->threads[e->thread].bytes))
				st->threads[e->thread].bytes = UINT64_MAX;
			st->size_buckets[size_bucket(e->size)]++;
			if (note_size(&a, e->size))
				goto out;
		}
	}
	for (size_t i = 1; i < nsteps; i++) {
		if (step_cmp(&steps[i - 1], &steps[i]) > 0) {
			qsort(steps, nsteps, sizeof(*steps), step_cmp);
			break;
		}
	}
	if (analyze_steps(&a, steps, nsteps, pending))
		goto out;
	st->live_bytes_end = a.live_bytes;
	st->live_chunks_end = a.live_chunks;
	/* The most frequent sizes. */
	{
		struct size_count *all = malloc((a.nsizes + 1) * sizeof(*all));
		size_t n = 0;

		if (!all)
			goto out;
		for (size_t i = 0; i <= a.sizes_mask; i++)
			if (a.sizes[i].count)
				all[n++] = a.sizes[i];
		qsort(all, n, sizeof(*all), size_count_cmp);
		for (st->ntop = 0; st->ntop < TRACE_TOP_SIZES && st->ntop < n; st->ntop++) {
			st->top_size[st->ntop] = all[st->ntop].size;
			st->top_count[st->ntop] = all[st->ntop].count;
		}
		free(all);
	}
	/* Lifetimes, in calls between the allocation and the free. */
	for (size_t i = 0; i < a.nlifetimes; i++) {
		unsigned b = 0;

		for (uint64_t limit = 10; b < TRACE_LIFETIME_BUCKETS - 1 && a.lifetimes[i] > limit; limit *= 10)
			b++;
		st->lifetimes[b]++;
	}
	if (a.nlifetimes) {
		qsort(a.lifetimes, a.nlifetimes, sizeof(*a.lifetimes), u64_cmp);
		st->median_lifetime_calls = a.lifetimes[a.nlifetimes / 2];
	}
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
