/*
 * trace_format.h - the on-disk layout of an allocation trace, version 2,
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
 *   free, with its pages (10)     ptr, resident, pages: of the pages the
 *                                 chunk spans (from its page's start to
 *                                 its usable end) those resident when it
 *                                 was freed (mincore(2)), fewer than all;
 *                                 a free of a chunk of TRACE_PAGES_MIN_BYTES
 *                                 or more. Read as a free: 10 is no kind.
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
 *
 * Damage is told from data by checksums (version 2): a chunk is sealed when
 * no more records go into it (its copy out of the window, and every window
 * chunk when the trace ends) by storing trace_chunk_checksum() in `check`;
 * an unsealed chunk has check 0, which only a trace in TRACE_STATE_WRITING
 * (its program killed) may hold, and only in a thread's last
 * TRACE_WINDOW_CHUNKS.
 * The header is sealed when the trace ends (header_check). Version 1 had
 * no checksum and a chunk header of TRACE_CHUNK_HEADER_V1_BYTES: a reader
 * still reads it, finding what damage the fields allow.
 */
#ifndef ALLOCBENCH_TRACE_FORMAT_H
#define ALLOCBENCH_TRACE_FORMAT_H

#include <stdint.h>

#define TRACE_MAGIC "ABTRACE"       /* 8 bytes with its NUL */
#define TRACE_VERSION 2            /* what the recorder writes; version 1 still read */
#define TRACE_VERSION_V3 3         /* what `allocbench record` converts it to (trace_v3.h) */
#define TRACE_HEADER_BYTES 256
#define TRACE_CHUNK_BYTES 4096
/* A thread's window: the chunks it writes into, copied out when all are full
   (recorder.c); the only ones that may be unsealed in a trace cut short. */
#define TRACE_WINDOW_CHUNKS 8

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

/*
 * The record of a free that says how many of its chunk's pages the program
 * wrote (resident when freed), not a kind of call: recorded for chunks of
 * TRACE_PAGES_MIN_BYTES or more, where some were never written.
 */
#define TRACE_FREE_PAGES 10
#define TRACE_PAGES_MIN_BYTES 16384

/* How the process image that wrote the trace ended (header.state). */
enum trace_state {
	TRACE_STATE_WRITING = 0, /* no end was seen: killed, crashed or cut short */
	TRACE_STATE_EXIT = 1,    /* exit() or a return from main */
	TRACE_STATE_EXEC = 2,    /* it called an exec function */
	TRACE_STATE__EXIT = 3,   /* _exit() or _Exit() */
};

/* The file's first TRACE_HEADER_BYTES (a field a version does not use is zero). */
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
	uint64_t lost;           /* calls not recorded (lost_why says why) */
	int32_t exit_status;     /* exit()'s status; -1 when not known */
	uint32_t threads;        /* thread indexes handed out */
	char command[128];       /* the program (/proc/self/exe's target, cut) */
	/* version 2 */
	uint32_t lost_why;       /* enum trace_lost: the first reason calls were lost */
	int32_t lost_errno;      /* errno of the failed write or growth (TRACE_LOST_WRITE) */
	uint64_t header_check;   /* trace_header_checksum() once the trace ended; 0 before */
	/* version 3 (trace_v3.h): what the trace it was converted from said */
	uint64_t v3_calls;       /* the records */
	uint64_t v3_unsealed;    /* its chunks with records and no check (cut short) */
	uint32_t v3_sealed;      /* 1: it ended with every chunk sealed */
	uint32_t v3_level;       /* the zstd level its blocks were compressed with */
	/*
	 * The process image's own figures, in what were the header's last 16
	 * zero bytes: a reader that does not know them skips them, the header's
	 * checksum covering them. Each is 0 where it was not measured (a trace
	 * recorded before they were kept, one cut short, a process record did
	 * not see). Only a trace that ended holds any.
	 */
	uint64_t run_ns;         /* CLOCK_REALTIME from start_ns to its end (exit, exec, _exit), ns */
	uint32_t hwm_kib;        /* VmHWM of /proc/self/status at its end: peak resident set, KiB */
	uint32_t anon_peak_kib;  /* the highest RssAnon `allocbench record` read while it ran, KiB */
};

/* Why calls were not recorded (header.lost_why): the first reason met. */
enum trace_lost {
	TRACE_LOST_NONE = 0,
	TRACE_LOST_FULL = 1,     /* the trace reached its largest size */
	TRACE_LOST_WRITE = 2,    /* the file could not grow or be written (lost_errno) */
	TRACE_LOST_NESTED = 3,   /* a signal handler's calls overflowed its queue */
};

/* The start of every chunk; the payload follows it. */
struct trace_chunk {
	uint32_t used;           /* payload bytes of complete records */
	uint32_t thread;         /* the thread's index, from 0 in order of first call */
	uint64_t base_seq;       /* prev_seq of the chunk's first record */
	uint64_t check;          /* version 2: trace_chunk_checksum() once sealed, else 0 */
};

_Static_assert(sizeof(struct trace_header) == TRACE_HEADER_BYTES, "the header fills its bytes");
_Static_assert(sizeof(struct trace_chunk) == 24, "a chunk header of 24 bytes");

#define TRACE_CHUNK_HEADER_V1_BYTES 16  /* version 1's chunk header: no check */
#define TRACE_PAYLOAD_BYTES (TRACE_CHUNK_BYTES - (uint32_t)sizeof(struct trace_chunk))

/*
 * FNV-1a over 8-byte little-endian words (the last one zero-padded), from
 * SEED: a change confined to one word always changes it, any other with
 * odds of 2^-64 not to. Never 0, which means "not sealed".
 */
static inline uint64_t trace_checksum_words(uint64_t h, const void *data, uint64_t bytes)
{
	const unsigned char *p = (const unsigned char *)data;

	for (uint64_t i = 0; i < bytes; i += 8) {
		uint64_t w = 0;

		for (unsigned b = 0; b < 8 && i + b < bytes; b++)
			w |= (uint64_t)p[i + b] << (8 * b);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	return h;
}

/*
 * The checksum of a chunk: its used, thread and base_seq, then its first
 * USED payload bytes (the caller checks that used fits the payload).
 */
static inline uint64_t trace_chunk_checksum(const struct trace_chunk *c)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uint64_t fields[2] = { (uint64_t)c->used | (uint64_t)c->thread << 32, c->base_seq };

	h = trace_checksum_words(h, fields, sizeof(fields));
	h = trace_checksum_words(h, c + 1, c->used);
	return h ? h : 1;
}

/* The checksum of a header: its TRACE_HEADER_BYTES with header_check taken as 0. */
static inline uint64_t trace_header_checksum(const struct trace_header *h)
{
	struct trace_header copy = *h;
	uint64_t sum;

	copy.header_check = 0;
	sum = trace_checksum_words(0xcbf29ce484222325ULL, &copy, sizeof(copy));
	sum = trace_checksum_words(sum, (const char *)h + sizeof(copy),
				   TRACE_HEADER_BYTES - sizeof(copy));
	return sum ? sum : 1;
}

/* Longest record: a varint of up to 10 bytes for each of five fields. */
#define TRACE_RECORD_MAX 50

#endif
