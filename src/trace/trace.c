/*
 * trace.c - reading a trace (trace.h): its header, its chunks, their records;
 * the checks that need more than one chunk are in trace_check.c.
 */
#include "trace/trace.h"
#include "trace/trace_read.h"
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
		uint64_t at = trace_chunk_offset(m->index) + header_bytes + (uint64_t)(c.p - payload);
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
				return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": kind %u is none of 1..%d", m->index, at, e.kind,
					    TRACE_KINDS - 1);
		}
		if (c.bad)
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64 ": %s",
				    m->index, at, c.bad);
		name = trace_kind_name(e.kind);
		if ((delta < 0 && (uint64_t)-(delta + 1) >= seq) ||
		    (delta > 0 && (uint64_t)delta > UINT64_MAX - seq))
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": its seq is outside 1..2^64-1", m->index, at);
		seq += (uint64_t)delta;
		e.seq = e.seq2 = seq;
		if (e.kind == TRACE_REALLOC) {
			if (!done || done > UINT64_MAX - seq)
				return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": a realloc done %" PRIu64 " calls after it started (it "
					    "takes 1 or more)", m->index, at, done);
			e.seq2 = seq + done;
		}
		/* What a call that succeeded can have asked for, in an address space. */
		if (e.ret && e.kind != TRACE_FREE && e.size > TRACE_SIZE_MAX)
			return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
				    ": a %s of %" PRIu64 " bytes returned a chunk (more than an "
				    "address space holds)", m->index, at, name, e.size);
		if (e.ret && (e.kind == TRACE_POSIX_MEMALIGN || e.kind == TRACE_ALIGNED_ALLOC ||
			      e.kind == TRACE_MEMALIGN)) {
			if (e.align > TRACE_SIZE_MAX ||
			    (e.kind == TRACE_POSIX_MEMALIGN && (e.align & (e.align - 1))))
				return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": a %s of alignment %" PRIu64 " returned a chunk (it "
					    "takes a power of two up to 2^56)", m->index, at, name,
					    e.align);
			if (e.ret & (((uint64_t)1 << trace_align_log2(e.align)) - 1))
				return reader_fail(r, "is damaged: chunk %" PRIu64 ", record at byte %" PRIu64
					    ": a %s of alignment %" PRIu64 " returned 0x%" PRIx64
					    ", not so aligned", m->index, at, name, e.align, e.ret);
		}
		if (ALLOC_GROW(t->events, t->nevents, *alloc))
			return reader_fail(r, "cannot be read: out of memory");
		t->events[t->nevents++] = e;
	}
	m->n = t->nevents - m->first;
	m->last_seq = seq;
	return 0;
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

/* What trace_load_from() gathers as it reads the chunks. */
struct load {
	struct chunk_meta *metas;  /* the chunks with records, in the file's order */
	size_t nmetas, metas_alloc;
	size_t events_alloc;       /* of T's events */
	uint32_t chunk_header;     /* bytes of a chunk's header in this version */
	uint32_t payload_max;      /* bytes of records a chunk holds */
};

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

/*
 * Checks chunk K (its bytes at AT) against the header, and decodes its
 * records into T when it has any. Returns 0, or -1 with R->why set.
 */
static int load_chunk(struct reader *r, struct trace *t, struct load *l, uint64_t k,
		      const unsigned char *at)
{
	struct trace_chunk c = { 0 };
	struct chunk_meta *m;

	memcpy(&c, at, l->chunk_header);
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
	if (ALLOC_GROW(l->metas, l->nmetas, l->metas_alloc))
		return reader_fail(r, "cannot be read: out of memory");
	m = &l->metas[l->nmetas++];
	*m = (struct chunk_meta){ .index = k, .thread = c.thread, .used = c.used,
		.base_seq = c.base_seq, .sealed = c.check != 0 };
	return chunk_decode(r, t, &l->events_alloc, m, at + l->chunk_header, l->chunk_header);
}

/*
 * Reads T's first NCHUNKS chunks, READ_CHUNKS at a time into BLOCK
 * (READ_BYTES), through load_chunk(). Returns 0, or -1 with R->why set.
 */
static int load_chunks(struct reader *r, struct trace *t, struct load *l, unsigned char *block,
		       uint64_t nchunks)
{
	for (uint64_t k = 0; k < nchunks; k += READ_CHUNKS) {
		uint64_t n = nchunks - k < READ_CHUNKS ? nchunks - k : READ_CHUNKS;

		if (reader_read_at(r, trace_chunk_offset(k), block, (size_t)n * TRACE_CHUNK_BYTES))
			return -1;
		for (uint64_t i = 0; i < n; i++)
			if (load_chunk(r, t, l, k + i, block + i * TRACE_CHUNK_BYTES))
				return -1;
	}
	return 0;
}

/* Keeps one copy of each chunk's records in T (the others METAS says are dropped), in the process's order. */
static void load_keep(struct trace *t, struct chunk_meta *metas, size_t nmetas)
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
	for (size_t i = 1; i < t->nevents; i++) {
		if (t->events[i - 1].seq > t->events[i].seq) {
			qsort(t->events, t->nevents, sizeof(*t->events), event_cmp);
			break;
		}
	}
}

static int trace_load_from(struct reader *r, struct trace *t)
{
	struct load l = { 0 };
	unsigned char *block = NULL;
	uint64_t nchunks;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	t->file_bytes = r->size;
	if (load_header(r, t))
		return -1;
	l.chunk_header = t->header.version == 1 ? TRACE_CHUNK_HEADER_V1_BYTES :
			 (uint32_t)sizeof(struct trace_chunk);
	l.payload_max = TRACE_CHUNK_BYTES - l.chunk_header;
	nchunks = (r->size - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
	if (t->header.chunks < nchunks)
		nchunks = t->header.chunks;
	t->trace_bytes = trace_chunk_offset(nchunks);
	block = malloc(READ_BYTES);
	if (!block) {
		reader_fail(r, "cannot be read: out of memory");
		goto out;
	}
	if (t->header.chunks == nchunks && trace_tail_zero(r, block, nchunks))
		goto out;
	if (load_chunks(r, t, &l, block, nchunks) ||
	    trace_chunks_order(r, t, l.metas, l.nmetas) || trace_seqs_unique(r, t, l.metas, l.nmetas))
		goto out;
	t->sealed = t->header.version >= 2 && t->header.state != TRACE_STATE_WRITING;
	load_keep(t, l.metas, l.nmetas);
	ret = 0;
out:
	free(block);
	free(l.metas);
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
