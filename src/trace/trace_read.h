/*
 * trace_read.h - what the parts of the trace reader share (trace.c reads,
 * trace_check.c checks): where the bytes come from, what each chunk held;
 * and trace_align_log2(), which trace_analyze.c uses too. Private to
 * src/trace/trace*.c: trace.h is the reader's interface.
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

/* Sets R->why to "trace 'NAME' " and FMT; returns -1. */
int reader_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Reads N bytes at AT into DST. Returns 0, or -1 (said in R->why) when the
 * file changed or failed.
 */
int reader_read_at(struct reader *r, uint64_t at, void *dst, size_t n);

/* Chunks read at once, and their bytes. */
#define READ_CHUNKS 16
#define READ_BYTES (READ_CHUNKS * TRACE_CHUNK_BYTES)

/* The log2 of the smallest power of two >= ALIGN (0 for 0 and 1); ALIGN <= 2^63. */
static inline unsigned trace_align_log2(uint64_t align)
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
 * Bytes past the CHUNKS claimed (a trace cut short keeps the room it had
 * grown by) must be zero; BLOCK is READ_BYTES to read them into. Returns
 * 0, or -1 with R->why set.
 */
int trace_tail_zero(struct reader *r, unsigned char *block, uint64_t chunks);

/*
 * Puts the N chunks M in each thread's order, marking one of each pair of
 * copies dropped: two chunks of a thread that start at the same base_seq
 * are the recorder's window and its copy in the file (the shorter one
 * must be the start of the longer). Each thread's chunks must follow on:
 * the first starts at seq 0, each next one where the one before ended. An
 * unsealed chunk must be one of its thread's last TRACE_WINDOW_CHUNKS.
 * Returns 0, or -1 with R->why set.
 */
int trace_chunks_order(struct reader *r, const struct trace *t, struct chunk_meta *m, size_t n);

/*
 * Each place in the order taken once among the N chunks M not dropped.
 * Returns 0, or -1 with R->why set (out of memory included).
 */
int trace_seqs_unique(struct reader *r, const struct trace *t, const struct chunk_meta *m, size_t n);

#endif
