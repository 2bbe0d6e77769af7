/*
 * trace_format.h - the on-disk layout of an allocation trace, version 1,
 * shared by the recording library (recorder.c), which writes it, and the
 * reader (trace.c), which record, report and the replaying child use.
 * allocbench(1), section TRACE FORMAT, documents it for other tools.
 *
 * A trace is one file per process image: a header of TRACE_HEADER_BYTES,
 * then chunks of TRACE_CHUNK_BYTES. Each chunk belongs to one thread and
 * starts with a struct trace_chunk; its payload is a run of records (the
 * bytes after `used` mean nothing). A thread's chunks are in its order by
 * base_seq, not by their place in the file; two chunks of one thread with
 * the same base_seq are copies (the recorder's window and its copy in the
 * file, recorder.c), of which a reader keeps the one with the larger used. All
 * integers in the header and chunk headers are little-endian; records are
 * made of LEB128 varints (7 bits a byte, low group first, high bit = more).
 *
 * Record: a varint H = (zigzag(seq - prev_seq) << 4) | kind, then per kind
 *   malloc, valloc, pvalloc       size, ret
 *   calloc                        nmemb, size, ret
 *   realloc                       ptr, size, ret, done (the call's second
 *                                 sequence number minus its first)
 *   free                          ptr
 *   posix_memalign, aligned_alloc,
 *   memalign                      alignment, size, ret
 * seq is the call's place in the process's order (one counter for all
 * threads, from 1): an allocation takes it when the allocator has
 * returned, a free before it is called, a realloc both (its free half
 * first), so that an address is never handed out again before its free in
 * that order. prev_seq is the previous record's seq in the same chunk (the
 * chunk's base_seq for its first). Pointers (ptr, ret) are 0 for NULL, else
 * 1 + P where D = pointer - previous pointer of the chunk (0 at its start,
 * NULL not counted) and P = zigzag(D / 16) << 1 when D is a multiple of 16,
 * zigzag(D) << 1 | 1 otherwise. zigzag(x) = (x << 1) ^ (x >> 63).
 */
#ifndef ALLOCBENCH_TRACE_FORMAT_H
#define ALLOCBENCH_TRACE_FORMAT_H

#include <stdint.h>

#define TRACE_MAGIC "ABTRACE"       /* 8 bytes with its NUL */
#define TRACE_VERSION 1
#define TRACE_HEADER_BYTES 256
#define TRACE_CHUNK_BYTES 4096

/* The kinds of record (the low 4 bits of a record's first varint). */
enum trace_kind {
	TRACE_MALLOC = 1,
	TRACE_CALLOC,
	TRACE_REALLOC,
	TRACE_FREE,
	TRACE_POSIX_MEMALIGN,
	TRACE_ALIGNED_ALLOC,
	TRACE_MEMALIGN,
	TRACE_VALLOC,
	TRACE_PVALLOC,
	TRACE_KINDS
};

/* How the process image that wrote the trace ended (header.state). */
enum trace_state {
	TRACE_STATE_WRITING = 0, /* no end was seen: killed, crashed or cut short */
	TRACE_STATE_EXIT = 1,    /* exit() or a return from main */
	TRACE_STATE_EXEC = 2,    /* it called an exec function */
	TRACE_STATE__EXIT = 3,   /* _exit() or _Exit() */
};

/* The file's first TRACE_HEADER_BYTES (the rest of them zero). */
struct trace_header {
	char magic[8];           /* TRACE_MAGIC */
	uint32_t version;        /* TRACE_VERSION */
	uint32_t header_bytes;   /* TRACE_HEADER_BYTES */
	uint32_t chunk_bytes;    /* TRACE_CHUNK_BYTES */
	uint32_t state;          /* enum trace_state */
	uint64_t chunks;         /* chunks claimed so far (some may be empty) */
	uint64_t session;        /* the `allocbench record` run that wrote it */
	uint32_t pid;            /* the process */
	uint32_t ppid;           /* its parent when it started */
	uint64_t start_ns;       /* CLOCK_REALTIME at its first call, ns */
	uint64_t lost;           /* calls not recorded (trace too large, nested too deep) */
	int32_t exit_status;     /* exit()'s status; -1 when not known */
	uint32_t threads;        /* thread indexes handed out */
	char command[128];       /* the program (/proc/self/exe's target, cut) */
};

/* The start of every chunk; the payload follows it. */
struct trace_chunk {
	uint32_t used;           /* payload bytes of complete records */
	uint32_t thread;         /* the thread's index, from 0 in order of first call */
	uint64_t base_seq;       /* prev_seq of the chunk's first record */
};

#define TRACE_PAYLOAD_BYTES (TRACE_CHUNK_BYTES - (uint32_t)sizeof(struct trace_chunk))

/* Longest record: a varint of up to 10 bytes for each of five fields. */
#define TRACE_RECORD_MAX 50

#endif
