/*
 * trace_v3.h - version 3 of the trace format, for long recordings: the
 * calls of a version 1 or 2 trace (trace_format.h) in the process's order,
 * each encoded with what a replay and a report need and nothing else, in
 * blocks compressed with zstd. `allocbench record` converts each trace
 * that ended once its program is gone (never a thread of the program);
 * trace_v3_convert() converts any. Private to src/trace/; allocbench(1),
 * TRACE FORMAT, documents it.
 *
 * The file: the header (trace_format.h, version 3, chunk_bytes 0, chunks =
 * the blocks, always sealed), then the blocks, one after another to the
 * file's end: a struct trace_block, then zbytes of zstd frame that
 * decompress to raw bytes (at most V3_BLOCK_RAW): varint R, R bytes of
 * records, then, when they name chunks by rank (a free's N 13, a live
 * realloc's, a drop's), the ranks: a byte W (1 to 8), then W planes of as many
 * bytes as there are ranks, the most significant byte of every rank first,
 * in the records' order. (Planes, because a rank among many live chunks is
 * nearly random: apart, its high bytes compress and its low bytes cost
 * what they must; between the records, zstd compresses them worse.) check
 * is the FNV-1a of trace_checksum_words() over (zbytes | raw << 32) then
 * the frame, as version 2's chunk check. The state runs on across blocks.
 *
 * A record starts with a byte B: its low 4 bits the op, the high 4 bits N.
 *   1 malloc, 8 valloc, 9 pvalloc   a chunk: N size; ret a new chunk
 *   2 calloc                      N size (nmemb * size), varint nmemb
 *   5, 6, 7 the aligned kinds     N size, varint alignment
 *   4 free                        N < 13: the N-th most recently allocated
 *                                 live chunk (0: the newest); 13: the
 *                                 rank k - 13 follows; 14: free(NULL); 15:
 *                                 a pointer that is no live chunk
 *   11 free, near the last        the chunk of rank L + N - 1, L the rank
 *                                 the last free of a live chunk named (0
 *                                 before any): its older neighbour is N 1
 *                                 (a structure freed member by member)
 *   3 realloc                     N bits: 1 returned NULL, 2 its second
 *                                 half is not the next place (varint done
 *                                 - 2 last), 4|8 the pointer: 0 live
 *                                 (the rank k), 4 NULL, 8 not live; then a
 *                                 varint size code
 *   10 an allocation that failed  a byte kind, varint size code, then
 *                                 calloc's nmemb or the alignment
 *   0 control, by N               0 thread switch (varint thread); 1 gap
 *                                 (varint g: the next record's place is
 *                                 the previous one's + 1 + g); 2 drop
 *                                 (varint at - previous place, the rank k):
 *                                 at place AT, the k-th chunk is handed out
 *                                 again without a free, and forgotten;
 *                                 3 pages (varint resident, varint
 *                                 pages): the next record, a free of a
 *                                 live chunk, has them (version 2's
 *                                 TRACE_FREE_PAGES)
 * N size: a size code C when C < 15, else 15 and varint C - 15. Size code
 * 0: a size the thread has not used, varint size follows (the thread's
 * next index); C > 0: the thread's size of index C - 1. A record's place
 * is the previous record's + 1, skipping the second places of reallocs
 * still open (which come when their place is reached), unless a gap says.
 * Varints are LEB128; a realloc's chunk (realloc's second half) is newly
 * allocated for the order of "most recently allocated".
 */
#ifndef ALLOCBENCH_TRACE_V3_H
#define ALLOCBENCH_TRACE_V3_H

#include "trace/trace_read.h"

#include <stdint.h>

/* Each block's start. */
struct trace_block {
	uint32_t zbytes;         /* bytes of the zstd frame that follows */
	uint32_t raw;            /* bytes of records it decompresses to */
	uint64_t check;          /* see above; never 0 */
};

#define V3_BLOCK_RAW ((uint32_t)1 << 20)

enum v3_op { V3_CONTROL = 0, V3_FAILED = 10, V3_FREE_NEAR = 11 };
enum v3_control { V3_THREAD = 0, V3_GAP = 1, V3_DROP = 2, V3_PAGES = 3 };

static inline uint64_t trace_block_checksum(const struct trace_block *b, const void *frame)
{
	uint64_t w = (uint64_t)b->zbytes | (uint64_t)b->raw << 32;
	uint64_t h = trace_checksum_words(0xcbf29ce484222325ULL, &w, sizeof(w));

	h = trace_checksum_words(h, frame, b->zbytes);
	return h ? h : 1;
}

/*
 * The live chunks in the order they were allocated, by rank from the
 * newest: slots taken in that order, compacted when they run out; a bit
 * per slot, and a Fenwick tree over blocks of 512 slots (a cache line of
 * bits), small enough to stay in the cache where a tree over slots missed
 * it at every level. What both the writer and the reader keep.
 */
struct lrank {
	uint64_t *addr;          /* per slot: the chunk's address, 0 for none */
	uint64_t *bits;          /* per slot: 1 live */
	uint32_t *tree;          /* Fenwick's over the blocks' live counts, 1-based */
	uint64_t cap, next, live;  /* cap: a multiple of 512 */
};

void lrank_release(struct lrank *l);
/* A new newest chunk at ADDR: its slot, or -1 out of memory (slots may have moved). */
int64_t lrank_push(struct lrank *l, uint64_t addr);
/* The rank of SLOT from the newest (0). */
uint64_t lrank_rank(const struct lrank *l, uint64_t slot);
/* The slot of rank K (K < live). */
uint64_t lrank_select(const struct lrank *l, uint64_t k);
void lrank_remove(struct lrank *l, uint64_t slot);

/* Version 3's header check (r->size read), after trace_header_check()'s magic. */
int v3_header_check(struct reader *r, const unsigned char *raw, const struct trace_header *h);

/*
 * Reads every block of T (version 3) in order, checked, and hands each
 * step to SINK and, MERGE_AHEAD steps before, to AHEAD (when not NULL) as
 * trace_merge() does (SINK NULL: checked only, S->nthreads set). Returns
 * 0, or -1 with R->why set (or empty: SINK failed).
 */
int v3_run(struct reader *r, const struct trace *t, struct scan *s, trace_sink_fn sink,
	   trace_ahead_fn ahead, void *ctx);

#endif
