/*
 * trace.c - reading a trace (trace.h): its header, its chunks, their records;
 * the checks that need more than one chunk are in trace_check.c.
 */
#include "trace/trace.h"
#include "trace/trace_read.h"
#include "trace/trace_v3.h"
#include "platform/util.h"

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

const char *trace_lost_reason(const struct trace_header *h, char *buf, size_t size)
{
	switch (h->lost_why) {
	case TRACE_LOST_FULL:
		/* ENOMEM: the address-space limit (ulimit -v) left a smaller mapping. */
		return h->lost_errno == ENOMEM ? "the trace reached the largest size the "
			"process's address-space limit (ulimit -v) left it" :
			"the trace reached its largest size";
	case TRACE_LOST_WRITE:
		snprintf(buf, size, "the file could not be written: %s",
			 h->lost_errno > 0 ? strerror(h->lost_errno) : "error unknown");
		return buf;
	case TRACE_LOST_NESTED:
		return "signal handlers nested deeper than the recorder's queue";
	default:
		return h->version < 2 ? "the trace could not grow, or signal handlers nested too "
			"deep: a version 1 trace does not say which" : "reason not recorded";
	}
}

/* ------------------------------------------------------------ reading */

int reader_fail(struct reader *r, const char *fmt, ...)
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

int reader_read_at(struct reader *r, uint64_t at, void *dst, size_t n)
{
	size_t done = 0;

	/* A signal ends the command: every read (1 MiB at most, or a block) asks. */
	if (signal_caught)
		return reader_fail(r, "was not read to its end: interrupted by SIG%s",
				   sigabbrev_np(signal_caught));
	if (r->fd < 0) {
		if (at > r->size || n > r->size - at)
			return reader_fail(r, "changed while it was read: %" PRIu64 " bytes, none at byte %" PRIu64,
				    r->size, at + n);
		memcpy(dst, r->buf + at, n);
		return 0;
	}
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)dst + done, n - done, (off_t)(at + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return reader_fail(r, "cannot be read at byte %" PRIu64 ": %s", at + done, strerror(errno));
		if (!got)
			return reader_fail(r, "changed while it was read: it was %" PRIu64 " bytes, it ends "
				    "at byte %" PRIu64 " now", r->size, at + done);
		done += (size_t)got;
	}
	return 0;
}

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

/*
 * Reads and checks T's header (T->file_bytes is the file's size). Returns
 * 0, or -1 with R->why set.
 */
static int load_header(struct reader *r, struct trace *t)
{
	union {
		struct trace_header h;
		unsigned char raw[TRACE_HEADER_BYTES];
	} head;

	if (r->size < TRACE_HEADER_BYTES) {
		unsigned char start[sizeof(TRACE_MAGIC)];
		size_t n = r->size < sizeof(start) ? (size_t)r->size : sizeof(start);

		if (reader_read_at(r, 0, start, n))
			return -1;
		if (!memcmp(start, TRACE_MAGIC, n))
			return reader_fail(r, "is truncated: %" PRIu64 " bytes, shorter than its %d-byte header",
					   r->size, TRACE_HEADER_BYTES);
		return reader_fail(r, "is not an allocbench trace (%" PRIu64 " bytes, shorter than a header)",
				   r->size);
	}
	if (reader_read_at(r, 0, head.raw, sizeof(head.raw)) || trace_header_check(r, head.raw, &t->header))
		return -1;
	t->header.command[sizeof(t->header.command) - 1] = '\0';
	return 0;
}

/* What trace_scan() gathers as it reads the chunks. */
struct load {
	size_t metas_alloc;
	uint32_t payload_max;      /* bytes of records a chunk holds */
	struct trace_event *scratch;  /* one chunk's records, decoded to be checked */
};

/*
 * Checks chunk K (its bytes at AT) against the header, and decodes its
 * records when it has any. Returns 0, or -1 with R->why set.
 */
static int load_chunk(struct reader *r, struct trace *t, struct scan *s, struct load *l, uint64_t k,
		      const unsigned char *at)
{
	struct trace_chunk c = { 0 };
	struct chunk_meta *m;

	memcpy(&c, at, s->chunk_header);
	if (c.used > l->payload_max)
		return reader_fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": used %" PRIu32
				   " is more than a chunk's %" PRIu32 " bytes of records", k,
				   trace_chunk_offset(k), c.used, l->payload_max);
	if (t->header.version >= 2 && c.check &&
	    c.check != trace_chunk_checksum((const struct trace_chunk *)(const void *)at))
		return reader_fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": its checksum "
				   "does not match", k, trace_chunk_offset(k));
	if (t->header.version >= 2 && !c.check) {
		if (t->header.state != TRACE_STATE_WRITING)
			return reader_fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": not sealed "
					   "(check 0) in a trace that ended (%s)", k, trace_chunk_offset(k),
					   trace_state_name(t->header.state));
		if (c.used)
			t->unsealed_chunks++;
	}
	if (!c.used)
		return 0;
	if (c.thread >= t->header.threads)
		return reader_fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": thread %" PRIu32
				   " out of range (%" PRIu32 " thread%s)", k, trace_chunk_offset(k),
				   c.thread, t->header.threads, t->header.threads == 1 ? "" : "s");
	if (ALLOC_GROW(s->metas, s->nmetas, l->metas_alloc))
		return reader_fail(r, "cannot be read: out of memory");
	m = &s->metas[s->nmetas++];
	*m = (struct chunk_meta){ .index = k, .thread = c.thread, .used = c.used,
		.base_seq = c.base_seq, .sealed = c.check != 0 };
	if (c.thread >= s->nthreads)
		s->nthreads = c.thread + 1;
	return chunk_decode(r, m, at + s->chunk_header, s->chunk_header, l->scratch);
}

/*
 * Reads T's first NCHUNKS chunks, READ_CHUNKS at a time into BLOCK
 * (READ_BYTES), through load_chunk(). Returns 0, or -1 with R->why set.
 */
static int load_chunks(struct reader *r, struct trace *t, struct scan *s, struct load *l,
		       unsigned char *block, uint64_t nchunks)
{
	for (uint64_t k = 0; k < nchunks; k += READ_CHUNKS) {
		uint64_t n = nchunks - k < READ_CHUNKS ? nchunks - k : READ_CHUNKS;

		if (reader_read_at(r, trace_chunk_offset(k), block, (size_t)n * TRACE_CHUNK_BYTES))
			return -1;
		for (uint64_t i = 0; i < n; i++)
			if (load_chunk(r, t, s, l, k + i, block + i * TRACE_CHUNK_BYTES))
				return -1;
	}
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

int trace_scan(struct reader *r, struct trace *t, struct scan *s)
{
	struct load l = { 0 };
	unsigned char *block = NULL;
	uint64_t nchunks;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (load_header(r, t))
		return -1;
	if (t->header.version == TRACE_VERSION_V3) {
		t->trace_bytes = r->size;
		t->unsealed_chunks = t->header.v3_unsealed;
		t->sealed = (int)t->header.v3_sealed;
		return v3_run(r, t, s, NULL, NULL, NULL);
	}
	s->chunk_header = t->header.version == 1 ? TRACE_CHUNK_HEADER_V1_BYTES :
			  (uint32_t)sizeof(struct trace_chunk);
	l.payload_max = TRACE_CHUNK_BYTES - s->chunk_header;
	nchunks = (r->size - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
	if (t->header.chunks < nchunks)
		nchunks = t->header.chunks;
	t->trace_bytes = trace_chunk_offset(nchunks);
	block = malloc(READ_BYTES);
	l.scratch = malloc(CHUNK_EVENTS_MAX * sizeof(*l.scratch));
	if (!block || !l.scratch) {
		reader_fail(r, "cannot be read: out of memory");
		goto out;
	}
	if (t->header.chunks == nchunks && trace_tail_zero(r, block, nchunks))
		goto out;
	if (load_chunks(r, t, s, &l, block, nchunks) || trace_chunks_order(r, t, s))
		goto out;
	t->sealed = t->header.version >= 2 && t->header.state != TRACE_STATE_WRITING;
	ret = 0;
out:
	free(block);
	free(l.scratch);
	if (ret)
		scan_release(s);
	return ret;
}

void scan_release(struct scan *s)
{
	free(s->metas);
	memset(s, 0, sizeof(*s));
}

int reader_open(struct reader *r, const char *path, char *why, size_t why_size)
{
	struct stat st;

	*r = (struct reader){ .name = path, .fd = -1, .why = why, .why_size = why_size };
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		snprintf(why, why_size, "cannot read trace '%s': %s", path, strerror(errno));
		if (r->fd >= 0)
			close(r->fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(r->fd);
		snprintf(why, why_size, "cannot read trace '%s': not a regular file", path);
		return -1;
	}
	r->size = (uint64_t)st.st_size;
	return 0;
}
