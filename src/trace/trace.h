/*
 * trace.h - reading an allocation trace (trace_format.h) and turning it
 * into what report and replay need: every call in the process's order, and
 * the same sequence with addresses replaced by slots.
 *
 * Used by `allocbench record` (the summary), `allocbench report` and the
 * measuring child of `--workload replay`, so that all three read a trace
 * the same way.
 */
#ifndef ALLOCBENCH_TRACE_H
#define ALLOCBENCH_TRACE_H

#include "trace/trace_format.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The most bytes a call that succeeded can have asked for, and the most
 * that can be alive at once: what an address space holds (x86-64's with
 * 5-level page tables is 2^57 bytes). More is a damaged trace.
 */
#define TRACE_SIZE_MAX ((uint64_t)1 << 56)
#define TRACE_LIVE_MAX ((uint64_t)1 << 57)

/* One recorded call. */
struct trace_event {
	uint64_t seq;       /* its place in the process's order */
	uint64_t seq2;      /* realloc: the place of its allocation half; else seq */
	uint64_t ptr;       /* free, realloc: the pointer given (0 for NULL) */
	uint64_t ret;       /* allocations: the pointer returned (0 for NULL) */
	uint64_t size;      /* bytes asked for (calloc: nmemb * size); free: of ALIGN, the
			       pages of its chunk resident when freed */
	uint64_t align;     /* the aligned kinds: the alignment; calloc: nmemb; free: the
			       pages its chunk spans where they were recorded (TRACE_FREE_PAGES),
			       else 0 */
	uint32_t thread;    /* the thread's index in the trace */
	uint8_t kind;       /* enum trace_kind */
};

/* A trace file, read. */
struct trace {
	struct trace_header header;  /* as in the file */
	uint64_t file_bytes;         /* the file's size */
	uint64_t trace_bytes;        /* of it, the header and the chunks claimed (a trace
					cut short keeps the unused room it had grown by) */
	uint64_t unsealed_chunks;    /* version 2, cut short: chunks with records and no check */
	int sealed;                  /* 1: ended, and every chunk and the header verified by its
					checksum; 0: version 1, cut short, or a version 2 trace
					that ended with nothing sealed (a recorder that did not
					seal yet), checked by its fields only */
};

/* The kind's name as a C program calls it ("malloc", ...); NULL for none. */
const char *trace_kind_name(unsigned kind);

/* "complete (exit)", "ended by exec", "ended by _exit", "cut short". */
const char *trace_state_name(uint32_t state);

/* Why H's calls were not recorded (its lost_why), in words; BUF (SIZE bytes) holds an errno's. */
const char *trace_lost_reason(const struct trace_header *h, char *buf, size_t size);

/*
 * Converts the trace at FROM (version 1 or 2, read with trace_stats_load()'s
 * checks) to version 3 (trace_v3.h, its blocks compressed with zstd at
 * LEVEL), written to TO when complete (TO may be FROM: it is replaced).
 * Once *STOP (unless STOP is NULL) is set, by a signal handler, it stops
 * (EINTR). Returns 0, or -1 with WHY (WHY_SIZE bytes) saying why; FROM is
 * then as it was, and nothing of the conversion is left.
 */
#define TRACE_V3_LEVEL 3   /* zstd's level for `record --convert` */
int trace_v3_convert(const char *from, const char *to, int level, const volatile sig_atomic_t *stop,
		     char *why, size_t why_size);

/* What the replay does at one step. */
enum replay_op_kind {
	REPLAY_ALLOC,     /* malloc, valloc, pvalloc */
	REPLAY_ZALLOC,    /* calloc */
	REPLAY_ALIGNED,   /* posix_memalign, aligned_alloc, memalign */
	REPLAY_RESIZE,    /* realloc of a live chunk to size */
	REPLAY_FREE,      /* free, realloc(p, 0) */
};

/* One step of a replay. */
struct replay_op {
	uint64_t size;      /* bytes (0 for a free) */
	uint32_t slot;      /* the chunk's: a slot its thread freed, or a new one */
	uint32_t thread;    /* the thread that made the call */
	uint32_t version;   /* steps on this slot before this one (per-thread replay waits for it) */
	uint8_t kind;       /* enum replay_op_kind */
	uint8_t align_log2; /* REPLAY_ALIGNED: log2 of the alignment */
	uint16_t unwritten; /* an allocating step: of its chunk, the share the program never
			       wrote, in 65535ths (its free's pages); 0: it wrote it all */
};

/* Most distinct sizes the report lists by count. */
#define TRACE_TOP_SIZES 10
/*
 * Size histogram buckets: [0] 0 bytes, [b] more than 2^(b-2) and up to
 * 2^(b-1) bytes; the last, [65], up to 2^64 - 1.
 */
#define TRACE_SIZE_BUCKETS 66
/* Lifetime buckets: up to 10^1 .. 10^9 calls, then longer. */
#define TRACE_LIFETIME_BUCKETS 10

struct trace_thread_stats {
	uint32_t index;         /* the thread's index in the trace */
	uint64_t calls;         /* calls this thread made */
	uint64_t allocations;   /* of them, allocations that returned a chunk (realloc counted) */
	uint64_t frees;         /* of them, frees of a known chunk (realloc to 0 counted) */
	uint64_t bytes;         /* bytes it asked for */
	uint64_t remote_frees;  /* frees of a chunk another thread allocated */
};

/* What `allocbench report` prints: the trace as a program's allocation profile. */
struct trace_stats {
	uint64_t calls[TRACE_KINDS];   /* by kind (index 0: all kinds together) */
	uint64_t failed;               /* allocations that returned NULL */
	uint64_t free_null;            /* free(NULL) */
	uint64_t unknown_frees;        /* frees of a pointer not allocated in the trace */
	uint64_t requested_bytes;      /* bytes asked for by every allocation and realloc */
	uint64_t peak_live_bytes;      /* most bytes asked for and not yet freed */
	uint64_t peak_live_chunks;     /* most chunks alive at once */
	uint64_t peak_at_call;         /* the call (from 1) after which peak_live_bytes was first reached */
	uint64_t live_bytes_end;       /* still alive at the end */
	uint64_t live_chunks_end;
	uint64_t size_buckets[TRACE_SIZE_BUCKETS]; /* allocating calls by size */
	uint64_t top_size[TRACE_TOP_SIZES];       /* the most frequent sizes */
	uint64_t top_count[TRACE_TOP_SIZES];
	unsigned ntop;
	uint64_t lifetimes[TRACE_LIFETIME_BUCKETS]; /* freed chunks by lifetime in calls */
	uint64_t median_lifetime_calls;           /* of the freed chunks */
	uint64_t cross_thread_frees;   /* frees from a thread other than the allocating one */
	uint64_t paged_frees;          /* frees that said their chunk's pages (TRACE_FREE_PAGES) */
	uint64_t unwritten_bytes;      /* of their chunks, the bytes of pages never written */
	struct trace_thread_stats *threads;       /* the threads with calls, by index */
	uint32_t nthreads;
};

/*
 * A per-thread replay runs the threads alive through windows of at most
 * this many steps (replay.c); the plan hands a freed slot out again only
 * this many steps after its free, in an earlier window, which is done.
 */
#define REPLAY_WINDOW_STEPS 1024

/*
 * A trace as a replay: steps in the recorded order, chunks as slots. The
 * steps are in a file (replay_plan.c), never all in memory: the analysis
 * writes them as it makes them, and a replay maps a window of them at a
 * time (struct plan_view), so that a replay's memory grows with the
 * program's live chunks and not with its calls.
 */
struct replay_plan {
	size_t nops;
	uint32_t nslots;           /* slots used (about the most chunks alive at once) */
	uint32_t nthreads;         /* the threads with calls: ops' thread, in order of first call */
	uint64_t peak_live_bytes;  /* of the sequence; equals trace_stats.peak_live_bytes */
	uint64_t live_bytes_end;
	uint64_t checksum;         /* FNV-1a of the steps (kind, alignment, slot, thread, size) */
	uint64_t skipped;          /* calls with nothing to replay: failures, free(NULL), unknown frees */
	uint64_t alloc_bytes;      /* bytes of every allocating step (realloc's new size included) */
	uint64_t nallocs;          /* allocating steps */
	uint64_t max_align;        /* the largest alignment asked for */
	int fd;                    /* the file of the steps; -1: none (no step) */
};

/*
 * Reads the trace at PATH, with pread() (a file that shrinks meanwhile is
 * an error, never a signal), believing nothing: every field is checked
 * against the header and the file, version 2's checksums verified (an
 * unsealed chunk only in a trace cut short, among its thread's last
 * TRACE_WINDOW_CHUNKS), each thread's chunks must follow on from seq 0,
 * each place in the order be taken once, a realloc end after it starts, a
 * successful call's size and alignment fit an address space, no more bytes
 * alive at once than TRACE_LIVE_MAX. A trace cut short (the process killed
 * or crashed: state WRITING) is read up to its last complete record. Each
 * chunk is read twice (checked, then in the process's order) in large
 * sequential reads, the calls followed from allocation to free by address
 * in that order: fills *T (the header and sizes), *STATS and, when PLAN is
 * not NULL, the plan (the replay's: its steps written to an unnamed file in
 * $TMPDIR or /tmp, PLAN->fd). Memory grows with the program's live chunks
 * and the trace's chunks (about 50 bytes per 4 KiB chunk), not with the
 * calls; a median lifetime longer than 65536 calls takes another pass. Returns 0, or -1 with WHY (WHY_SIZE bytes) a
 * message naming the trace and what is wrong: "trace 'x' is truncated:
 * ...", "trace 'x' is damaged: chunk 12 at byte 49408: thread 4294967295
 * out of range (1 thread)", not a trace, another version, not readable,
 * more calls than a slot can number, out of memory; -2 with WHY when the
 * plan's file could not be written (this machine's fault, not the
 * trace's).
 */
int trace_stats_load(const char *path, struct trace *t, struct trace_stats *stats,
		     struct replay_plan *plan, char *why, size_t why_size);

/* trace_stats_load() on SIZE bytes at DATA, a trace called NAME in messages (the fuzz target). */
int trace_stats_load_buffer(const char *name, const void *data, size_t size, struct trace *t,
			    struct trace_stats *stats, struct replay_plan *plan, char *why,
			    size_t why_size);

void trace_stats_release(struct trace_stats *stats);

/* The plan in FD, a file trace_stats_load() wrote, into *PLAN (PLAN->fd is FD). Returns 0, or -1 with WHY. */
int replay_plan_map(int fd, struct replay_plan *plan, char *why, size_t why_size);

/* Closes PLAN's file. */
void replay_plan_release(struct replay_plan *plan);

/* Steps a plan_view maps at once: 6 MiB. */
#define PLAN_VIEW_STEPS ((size_t)1 << 18)

/*
 * A window of a plan's steps, mapped read-only from its file: steps [base,
 * base + n), base a multiple of PLAN_VIEW_STEPS. Every window of a plan of
 * more steps maps PLAN_VIEW_STEPS (its file padded), so that its resident
 * pages stay the same from one to the next.
 */
struct plan_view {
	const struct replay_op *ops;
	size_t base, n;
	void *map;                 /* the mapping, at ops */
	size_t map_bytes;
};

/* plan_view_at() where step K is not in V's window: V moved to it. */
const struct replay_op *plan_view_move(struct plan_view *v, const struct replay_plan *plan,
				       size_t k);

/*
 * Step K (< PLAN->nops) of PLAN in V, the window moved to it when it is not
 * there (V zeroed at first): &V->ops[K - V->base], and the steps up to
 * V->base + V->n after it. NULL, with errno, when the window cannot be mapped.
 */
static inline const struct replay_op *plan_view_at(struct plan_view *v,
						   const struct replay_plan *plan, size_t k)
{
	return k - v->base < v->n ? &v->ops[k - v->base] : plan_view_move(v, plan, k);
}

/* Unmaps V's window. */
void plan_view_close(struct plan_view *v);

#endif
