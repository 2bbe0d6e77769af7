/*
 * trace.c - a trace read (trace.h): its header checked against the file,
 * its chunks read and decoded (trace_decode.c), the bytes past them, and
 * each thread's chunks following on; a version 3 trace's blocks are
 * trace_v3.c's.
 */
#include "trace/trace.h"
#include "trace/trace_read.h"
#include "trace/trace_v3.h"
#include "platform/util.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ checks */

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

static int same_event(const struct trace_event *a, const struct trace_event *b)
{
	return a->seq == b->seq && a->seq2 == b->seq2 && a->ptr == b->ptr && a->ret == b->ret &&
	       a->size == b->size && a->align == b->align && a->kind == b->kind;
}

/*
 * Copies (the same thread and base_seq): the records of SHORTER, read
 * again, must be the first of LONGER's. Returns 0, or -1 with R->why set.
 */
static int copies_agree(struct reader *r, const struct trace *t, const struct scan *s,
			const struct chunk_meta *longer, const struct chunk_meta *shorter)
{
	uint64_t nchunks = (t->trace_bytes - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
	unsigned char *block = malloc(READ_BYTES);
	struct trace_event *a = malloc(2 * CHUNK_EVENTS_MAX * sizeof(*a));
	uint64_t first = 0, n = 0;
	int ret = -1;

	if (!block || !a) {
		reader_fail(r, "cannot be read: out of memory");
		goto out;
	}
	if (chunk_reread(r, s, longer, block, &first, &n, nchunks, a) ||
	    chunk_reread(r, s, shorter, block, &first, &n, nchunks, a + CHUNK_EVENTS_MAX))
		goto out;
	ret = 0;
	for (size_t e = 0; e < shorter->n && !ret; e++)
		if (!same_event(&a[CHUNK_EVENTS_MAX + e], &a[e]))
			ret = reader_fail(r, "is damaged: chunks %" PRIu64 " and %" PRIu64 ", copies of "
					  "thread %" PRIu32 "'s records from seq %" PRIu64 ", differ at "
					  "record %zu", longer->index, shorter->index, shorter->thread,
					  shorter->base_seq, e + 1);
out:
	free(block);
	free(a);
	return ret;
}

/* The unsealed chunks of the thread in M[I .. END) must be among its last ones. Returns 0, or -1. */
static int unsealed_last(struct reader *r, const struct chunk_meta *m, size_t i, size_t end)
{
	size_t left = 0;

	for (size_t j = end; j-- > i;) {
		if (m[j].dropped)
			continue;
		if (!m[j].sealed && left >= TRACE_WINDOW_CHUNKS)
			return reader_fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64
				    ": not sealed (check 0), yet not one of thread %"
				    PRIu32 "'s last %d chunks", m[j].index,
				    trace_chunk_offset(m[j].index), m[j].thread,
				    TRACE_WINDOW_CHUNKS);
		left++;
	}
	return 0;
}

/*
 * Puts S's N chunks in each thread's order, marking one of each pair of
 * copies dropped: two chunks of a thread that start at the same base_seq
 * are the recorder's window and its copy in the file (the shorter one
 * must be the start of the longer, both read again to compare). Each
 * thread's chunks must follow on: the first starts at seq 0, each next one
 * where the one before ended. An unsealed chunk must be one of its
 * thread's last TRACE_WINDOW_CHUNKS. Returns 0, or -1 with R->why set.
 */
static int trace_chunks_order(struct reader *r, const struct trace *t, struct scan *s)
{
	struct chunk_meta *m = s->metas;
	size_t n = s->nmetas;

	if (n)
		qsort(m, n, sizeof(*m), chunk_meta_cmp);
	for (size_t i = 0; i < n; i++) {
		size_t end, kept = i;
		uint64_t least = UINT64_MAX;

		for (end = i + 1; end < n && m[end].thread == m[i].thread; end++)
			;
		for (size_t j = i + 1; j < end; j++) {
			struct chunk_meta *prev = &m[kept];

			if (m[j].base_seq == prev->base_seq) {
				if (copies_agree(r, t, s, prev, &m[j]))
					return -1;
				m[j].dropped = 1;
				continue;
			}
			if (m[j].base_seq != prev->last_seq)
				return reader_fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": thread %"
					    PRIu32 "'s records go on from seq %" PRIu64 ", but its chunk "
					    "before (%" PRIu64 ") ends at seq %" PRIu64, m[j].index,
					    trace_chunk_offset(m[j].index), m[j].thread, m[j].base_seq,
					    prev->index, prev->last_seq);
			kept = j;
		}
		if (m[i].base_seq != 0)
			return reader_fail(r, "is damaged: chunk %" PRIu64 " at byte %" PRIu64 ": thread %" PRIu32
				    "'s first chunk starts after seq %" PRIu64 ", not 0 (its chunks "
				    "before are missing)", m[i].index, trace_chunk_offset(m[i].index),
				    m[i].thread, m[i].base_seq);
		if (t->header.version >= 2 && unsealed_last(r, m, i, end))
			return -1;
		/* What is still to come from the thread, from each of its chunks on. */
		for (size_t j = end; j-- > i;) {
			if (m[j].dropped)
				continue;
			if (m[j].min_seq < least)
				least = m[j].min_seq;
			m[j].min_seq = least;
		}
		i = end - 1;
	}
	return 0;
}

/* Bytes past the chunks claimed (a trace cut short keeps the room it had grown by): all zero. */
static int trace_tail_zero(struct reader *r, unsigned char *block, uint64_t chunks)
{
	uint64_t from = trace_chunk_offset(chunks);

	for (uint64_t at = from; at < r->size;) {
		size_t n = r->size - at < READ_BYTES ? (size_t)(r->size - at) : READ_BYTES;

		if (reader_read_at(r, at, block, n))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (block[i])
				return reader_fail(r, "is damaged: byte %" PRIu64 ", past its %" PRIu64
					    " chunks (which end at byte %" PRIu64 "), is not zero",
					    at + i, chunks, from);
		at += n;
	}
	return 0;
}

/* The header's fields, against the file (R->size). Returns 0, or -1. */
int trace_header_check(struct reader *r, const unsigned char *raw, struct trace_header *h)
{
	unsigned wrong = 0, where = 0;
	uint64_t need;

	const struct trace_header *whole = (const struct trace_header *)(const void *)raw;

	memcpy(h, raw, sizeof(*h));
	for (unsigned i = 0; i < sizeof(h->magic); i++)
		if (raw[i] != (unsigned char)TRACE_MAGIC[i])
			wrong++, where = i;
	if (wrong > 1)
		return reader_fail(r, "is not an allocbench trace (no '%s' at its start)", TRACE_MAGIC);
	if (wrong)
		return reader_fail(r, "is damaged: byte %u of its magic ('%s') is 0x%02x", where, TRACE_MAGIC,
			    raw[where]);
	if (h->version == TRACE_VERSION_V3)
		return v3_header_check(r, raw, h);
	if (h->version != 1 && h->version != 2) {
		if (h->header_check && h->header_check == trace_header_checksum(whole))
			return reader_fail(r, "is of format version %" PRIu32 " (this allocbench reads "
				    "versions 1 to 3)", h->version);
		return reader_fail(r, "is damaged: header field version is %" PRIu32 " (this allocbench "
			    "reads versions 1 to 3)", h->version);
	}
	if (h->version >= 2 && h->state != TRACE_STATE_WRITING && !h->header_check) {
		/* The recorder seals the header as it marks the end: a state without one is damage. */
		return reader_fail(r, "is damaged: its header says it ended (%s) but is not sealed "
			    "(header_check 0)", trace_state_name(h->state));
	} else if (h->version >= 2 && h->state != TRACE_STATE_WRITING) {
		/* Sealed when it ended: every other field is checked by it. */
		if (h->header_check != trace_header_checksum(whole))
			return reader_fail(r, "is damaged: its header's checksum does not match (header_check "
				    "0x%016" PRIx64 ", the header's bytes give 0x%016" PRIx64 ")",
				    h->header_check, trace_header_checksum(whole));
	} else {
		/* Version 1's header ends at command; version 2 while written has no check yet. */
		size_t from = h->version == 1 ? offsetof(struct trace_header, lost_why) :
			      offsetof(struct trace_header, v3_calls);

		if (h->version >= 2 && h->header_check)
			return reader_fail(r, "is damaged: header_check is set (0x%016" PRIx64 ") in a trace "
				    "whose state says it is still being written", h->header_check);
		for (size_t i = from; i < TRACE_HEADER_BYTES; i++)
			if (raw[i])
				return reader_fail(r, "is damaged: header byte %zu, unused in version %" PRIu32
					    ", is not zero", i, h->version);
	}
	if (h->header_bytes != TRACE_HEADER_BYTES)
		return reader_fail(r, "is damaged: header field header_bytes is %" PRIu32 " (expected %d)",
			    h->header_bytes, TRACE_HEADER_BYTES);
	if (h->chunk_bytes != TRACE_CHUNK_BYTES)
		return reader_fail(r, "is damaged: header field chunk_bytes is %" PRIu32 " (expected %d)",
			    h->chunk_bytes, TRACE_CHUNK_BYTES);
	if (h->state > TRACE_STATE__EXIT)
		return reader_fail(r, "is damaged: header field state is %" PRIu32 " (expected 0..3)", h->state);
	if (h->lost_why > TRACE_LOST_NESTED)
		return reader_fail(r, "is damaged: header field lost_why is %" PRIu32 " (expected 0..3)",
			    h->lost_why);
	if (h->chunks > (UINT64_MAX - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES)
		return reader_fail(r, "is damaged: header field chunks is %" PRIu64 ", more than a file holds",
			    h->chunks);
	/* Each thread index handed out is followed by its first chunk's claim. */
	if (h->threads > h->chunks + 1)
		return reader_fail(r, "is damaged: header field threads is %" PRIu32 ", more than its %"
			    PRIu64 " chunks could hold", h->threads, h->chunks);
	need = trace_chunk_offset(h->chunks);
	/*
	 * Shorter than its chunks: cut. Only a recorder that could not grow
	 * the file (calls lost, the trace full or its file unwritable) leaves
	 * chunks it claimed beyond the end: then the file's whole chunks are
	 * all there is.
	 */
	if (r->size < need && !(h->lost && (h->version == 1 || h->lost_why == TRACE_LOST_FULL ||
					    h->lost_why == TRACE_LOST_WRITE)))
		return reader_fail(r, "is truncated: it ends at byte %" PRIu64 ", its header's %" PRIu64
			    " chunks at byte %" PRIu64, r->size, h->chunks, need);
	return 0;
}

/* ------------------------------------------------------------ reading */

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

uint64_t trace_live_guess(const struct scan *s)
{
	int64_t live = 0, most = 0;

	if (s->nthreads != 1)
		return 0;
	for (size_t i = 0; i < s->nmetas; i++) {
		if (s->metas[i].dropped)
			continue;
		live += s->metas[i].net;
		if (live > most)
			most = live;
	}
	return (uint64_t)most;
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
