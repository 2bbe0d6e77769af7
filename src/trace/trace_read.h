/*
 * trace_read.h - what the parts of the trace reader share: where the
 * bytes come from (trace_file.c), what each chunk held (trace_decode.c
 * decodes it, trace.c reads and checks the chunks, trace_merge.c goes
 * through them in order); and trace_align_log2(), which trace_analyze.c
 * uses too. Private to src/trace/trace*.c: trace.h is the reader's
 * interface.
 */
#ifndef ALLOCBENCH_TRACE_READ_H
#define ALLOCBENCH_TRACE_READ_H

#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

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

/*
 * Opens the regular file PATH into *R. Returns 0, or -1 with WHY (WHY_SIZE
 * bytes) saying why not ("cannot read trace 'PATH': ...").
 */
int reader_open(struct reader *r, const char *path, char *why, size_t why_size);

/* Sets R->why to "trace 'NAME' " and FMT; returns -1. */
int reader_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Reads N bytes at AT into DST. Returns 0, or -1 (said in R->why) when the
 * file changed or failed.
 */
int reader_read_at(struct reader *r, uint64_t at, void *dst, size_t n);

/* Chunks read at once, and their bytes: large sequential reads. */
#define READ_CHUNKS 256
#define READ_BYTES (READ_CHUNKS * TRACE_CHUNK_BYTES)

/* The most records a chunk holds: each takes 2 bytes or more. */
#define CHUNK_EVENTS_MAX (TRACE_CHUNK_BYTES / 2)

/* The log2 of the smallest power of two >= ALIGN (0 for 0 and 1); ALIGN <= 2^63. */
static inline unsigned trace_align_log2(uint64_t align)
{
	return align > 1 ? 64 - (unsigned)__builtin_clzll(align - 1) : 0;
}

/*
 * A free's pages (TRACE_FREE_PAGES, version 3's V3_PAGES): RESIDENT of
 * the PAGES its chunk spans. NULL where a recorder could have written
 * them, else what is wrong (pages of at least 4 KiB, in a chunk of at most
 * TRACE_SIZE_MAX bytes).
 */
static inline const char *trace_pages_wrong(uint64_t resident, uint64_t pages)
{
	if (!pages || pages > (TRACE_SIZE_MAX >> 12) + 1)
		return "a free's chunk spans more pages than an address space holds, or none";
	return resident < pages ? NULL : "a free with its pages has as many resident as it spans";
}

/* What one chunk held, while the trace is read (trace_scan()). */
struct chunk_meta {
	uint64_t index;        /* its place in the file */
	uint64_t base_seq;
	uint64_t last_seq;     /* its last record's seq (base_seq when it has none) */
	uint64_t min_seq;      /* the least place its records take; after trace_scan(), the
				  least of its and its thread's later chunks' (a bound for
				  what is still to come from the thread) */
	uint32_t thread;
	uint32_t used;
	uint32_t n;            /* its records */
	int32_t net;           /* chunks its records return minus those they free: what the
				  live count moves by, as far as the records tell */
	uint8_t sealed;        /* version 2, its check verified */
	uint8_t dropped;       /* a copy of another (the recorder's window) */
};

/* A trace's chunks, checked (trace_scan()): what trace_merge() goes through. */
struct scan {
	struct chunk_meta *metas;  /* the chunks with records, by thread then base_seq */
	size_t nmetas;
	uint32_t chunk_header;     /* bytes of a chunk's header in this version */
	uint32_t nthreads;         /* 1 + the largest thread index that has records */
};

/* Chunk INDEX's place in the file. */
static inline uint64_t trace_chunk_offset(uint64_t index)
{
	return TRACE_HEADER_BYTES + index * TRACE_CHUNK_BYTES;
}

/*
 * The header's fields (RAW, TRACE_HEADER_BYTES, copied into *H) against
 * the file (R->size). Returns 0, or -1 with R->why set.
 */
int trace_header_check(struct reader *r, const unsigned char *raw, struct trace_header *h);

/*
 * Decodes chunk M's records (PAYLOAD, M->used bytes; M->index, thread and
 * base_seq set) into OUT (room for CHUNK_EVENTS_MAX), checking each field
 * that a recorder could not have written; sets M->n, last_seq and min_seq.
 * Returns 0, or -1 with R->why set.
 */
int chunk_decode(struct reader *r, struct chunk_meta *m, const unsigned char *payload,
		 uint32_t header_bytes, struct trace_event *out);

/*
 * Reads and decodes chunk M again (after trace_scan()), into OUT (room for
 * CHUNK_EVENTS_MAX). BLOCK (READ_BYTES) caches the file's chunks from
 * *BLOCK_FIRST (*BLOCK_N of them), read sequentially. Returns 0, or -1.
 */
int chunk_reread(struct reader *r, const struct scan *s, const struct chunk_meta *m,
		 unsigned char *block, uint64_t *block_first, uint64_t *block_n, uint64_t nchunks,
		 struct trace_event *out);

/*
 * Reads T's header and chunks from R (T->file_bytes set), each chunk's
 * records decoded and checked and left, and puts them in order into *S
 * (trace_chunks_order()). Returns 0, or -1 with R->why set.
 */
int trace_scan(struct reader *r, struct trace *t, struct scan *s);

/*
 * What trace_merge() hands on, one step at a time in the process's order:
 * each call at its place (HALF 0), a realloc's allocation half again at its
 * second (HALF 1). CALL is the call's number from 1 in the order of first
 * places; PENDING is a word the sink keeps for a realloc from one half to
 * the other. Returns 0, or -1 (the merge stops; the sink says why).
 */
typedef int (*trace_sink_fn)(void *ctx, const struct trace_event *e, unsigned half, uint64_t call,
			     uint64_t *pending);

/* Told of a step some steps before SINK is (to prefetch what it will need). */
typedef void (*trace_ahead_fn)(void *ctx, const struct trace_event *e, unsigned half);

/*
 * Goes through the chunks S holds in the process's order, a chunk read
 * only when its thread's next place is due, and hands each step to SINK
 * (and, MERGE_AHEAD steps of its chunk before, to AHEAD when it is not
 * NULL), checking that each place is taken once. Memory: the chunks being
 * merged, about one per thread. Returns 0; -1 with R->why set (a place
 * taken twice, out of memory), or -1 from SINK with R->why left empty.
 */
int trace_merge(struct reader *r, const struct trace *t, const struct scan *s, trace_sink_fn sink,
		trace_ahead_fn ahead, void *ctx);

/* How many steps before its turn AHEAD hears of one. */
#define MERGE_AHEAD 16

/*
 * The most chunks S's records leave live at once, as the chunks of a
 * one-thread trace tell it in their order; 0 (no guess) for more threads,
 * whose chunks interleave, and for version 3, which keeps no chunks.
 */
uint64_t trace_live_guess(const struct scan *s);

void scan_release(struct scan *s);

#endif
