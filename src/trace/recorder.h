/*
 * recorder.h - what the files of the recording library share (recorder.c
 * explains its design): its state, and the functions each file offers the
 * others. Private to the library: nothing here is exported from it.
 *
 *   recorder.c         the interposed allocation calls, the records they write
 *   recorder_file.c    the trace file: reserving, growing, sealing, opening, ending
 *   recorder_window.c  each thread's window of chunks and its copies into the file,
 *                      the threads' state and the order's counter
 *   recorder_exit.c    where a process's trace starts and ends: the next allocator
 *                      resolved at the first call (or the constructor), fork,
 *                      exec, _exit and exit's destructor
 */
#ifndef ALLOCBENCH_RECORDER_H
#define ALLOCBENCH_RECORDER_H

#include "trace/record.h"
#include "trace/trace_format.h"

#include <pthread.h>
#include <stdint.h>

/* Every name below is the library's own: accessed directly, never through the GOT. */
#pragma GCC visibility push(hidden)

#define EXPORT __attribute__((visibility("default")))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Address space reserved for the mapping: at most TRACE_MAP_MAX, a quarter
 * of an address-space limit (ulimit -v) at most, never less than
 * TRACE_MAP_MIN (recorder_file.c); a larger trace counts as lost.
 */
#define TRACE_MAP_MAX ((uint64_t)1 << 36)
#define TRACE_MAP_MIN ((uint64_t)1 << 24)
/* Traces one process may leave, one per image (FILE.PROGRAM.PID.N, N < it). */
#define TRACE_IMAGES_MAX 1000000UL
/* Records a thread's signal handlers may queue while it writes one. */
#define STASH_RECORDS 64
/* Bytes a record may write past its end: the last varint's 8-byte store. */
#define RECORD_SLACK 7
#define RECORD_ROOM (TRACE_RECORD_MAX + RECORD_SLACK)

/* The definitions the recorder forwards to (recorder_exit.c's init_slow() resolves them). */
struct next_calls {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*usable_size)(void *);  /* malloc_usable_size; NULL where it has none */
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
};
extern struct next_calls next;

/* Where resolving them stands (init_state, atomically; recorder_exit.c). */
enum { INIT_NONE, INIT_RUNNING, INIT_READY };
extern int init_state;

/* Resolves the next definitions and opens the trace, once; ready()'s slow path. */
int init_slow(void);

/*
 * Whether the next definitions are resolved and the trace open, resolving
 * and opening them at the first call. Returns 1 when ready, 0 while they
 * are being resolved (dlsym may allocate: the boot buffer serves it).
 */
static inline int ready(void)
{
	return LIKELY(__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == INIT_READY) || init_slow();
}

/* ------------------------------------------------------------ the trace (recorder_file.c) */

extern struct trace_header *hdr;   /* the mapping; NULL when not recording */
extern uint64_t map_bytes;         /* the mapping's size (TRACE_MAP_MAX or less) */
extern uint64_t file_bytes;        /* the file's size, reserved from its start (trace_reserve()) */

/* Whether calls are recorded (rec_mode). */
enum {
	REC_ON,       /* recording */
	REC_STOPPED,  /* the trace could not grow or be written: calls counted in lost */
	REC_ENDED,    /* the trace ended (exit, exec, _exit) and is sealed: nothing touches it */
};
extern int rec_mode;               /* REC_*, atomically */
extern int rec_mode_before_end;    /* rec_mode before trace_end(), for an exec that fails */
/*
 * Changes whenever every thread must pass through window_next() before its
 * next record: a fork child's new trace, a stop, an end, a failed exec. The
 * hot path compares it with its own copy, so that no other check is added.
 */
extern unsigned generation;
extern unsigned fork_generation;   /* changes when a fork child starts its own trace */

/*
 * The window chunks of every thread (their index + 1; 0 while being
 * written), which trace_end() seals: reading every chunk's header instead
 * cost a page fault per 4 KiB of trace at exit (5% of a recorded run).
 * Beyond WINDOWS_KNOWN, trace_end() reads them all.
 */
#define WINDOWS_KNOWN 4096
extern uint32_t windows[WINDOWS_KNOWN];
extern uint32_t windows_n;         /* entries taken, atomically (may pass WINDOWS_KNOWN) */

/* The lock of the file's growth and end (a spin lock: it is rarely taken). */
void lock_grow(void);
void unlock_grow(void);

/*
 * The trace's descriptor, reopened by path if the program closed or reused
 * it. Returns it, or -1 with errno set (ENOENT: the file was removed or
 * replaced).
 */
int trace_fd_get(void);

/*
 * Reserves the file up to at least END bytes: by a quarter more (1 MiB at
 * least) where there is room, else exactly. Returns 0, or an errno.
 */
int trace_reserve(uint64_t end);

/* The checksum of a chunk's fields, where its payload's starts. */
uint64_t sum_fields(uint32_t used, uint32_t thread, uint64_t base_seq);
/* H continued over P's bytes from I to USED, 8 bytes a load; the final checksum. */
uint64_t sum_rest(uint64_t h, const unsigned char *p, uint64_t i, uint64_t used);
/* trace_chunk_checksum() of a chunk's fields and PAYLOAD. */
uint64_t chunk_sum(uint32_t used, uint32_t thread, uint64_t base_seq, const void *payload);
#define SUM_PRIME 0x100000001b3ULL

/* Chunk K's address (the file may not cover it). */
static inline struct trace_chunk *chunk_addr(uint64_t k)
{
	return (struct trace_chunk *)(void *)((char *)hdr + TRACE_HEADER_BYTES + k * TRACE_CHUNK_BYTES);
}

/* Records the first reason calls are lost (the calls themselves are counted by the caller). */
void trace_lose(enum trace_lost why, int err);

/*
 * The trace cannot go on (it is full, or cannot grow or be written): no
 * thread writes another record in this process, and its calls count as
 * lost. The trace is sealed as usual when the process ends.
 */
void trace_stop(enum trace_lost why, int err);

/*
 * Ends the trace: no more records, the file cut to the chunks claimed,
 * every chunk not sealed yet (the windows) sealed, then the header with
 * STATE. EXIT_STATUS: -1 when not known. Does nothing when not recording
 * or already ended.
 */
void trace_end(enum trace_state state, int exit_status);

/*
 * Opens this process image's trace: FILE.PROGRAM.PID (record.h),
 * FILE.PROGRAM.PID.N (N from 2) when that exists (the same program exec'd
 * again by the same process). Sets hdr, or leaves it NULL.
 */
void trace_open(void);

/* Unmaps and closes the trace a fork child inherited; hdr is NULL after. */
void trace_close_inherited(void);

/* ------------------------------------------------------------ each thread's window (recorder_window.c) */

struct rec {
	unsigned kind;
	uint64_t seq;
	uint64_t f[4];
};

struct thread_state {
	unsigned generation;       /* the last one window_next() saw */
	unsigned fork_generation;  /* of the chunks below */
	struct trace_chunk *window[TRACE_WINDOW_CHUNKS]; /* its chunks, claimed as first needed */
	struct trace_chunk *chunk;  /* the one being written: window[slot] */
	unsigned slot;
	uint32_t thread;           /* its index in this trace */
	int has_index;
	uint64_t prev_seq;
	uintptr_t prev_ptr;
	volatile int busy;         /* writing a record: a signal handler queues its own */
	volatile unsigned stash_head, stash_tail;
	struct rec stash[STASH_RECORDS];
};

/* The calling thread's (recorder_window.c). */
extern __thread struct thread_state ts __attribute__((tls_model("initial-exec")));

extern uint64_t seq_counter;       /* the last place in the order handed out (recorder.c's seq_next()) */
extern int threaded;               /* the process may have a second thread (set by pthread_create
				      and a thread's first record, cleared in a fork child) */

/*
 * The thread's next chunk with room for records: its current one when it
 * has room (after a failed exec, unsealed again), else the next of its
 * window (claimed the first time, so that a short-lived thread takes one
 * chunk), or, when all are full, the window copied out and started again
 * (its chunks emptied). NULL when the trace is not recording (stopped or
 * ended; the window keeps what it has).
 */
__attribute__((noinline)) struct trace_chunk *window_next(void);

/* A call that could not be recorded: counted while the trace is stopped, not after its end. */
__attribute__((noinline)) void rec_lost(void);

/* ------------------------------------------------------------ fork (recorder_exit.c) */

/* pthread_atfork()'s three: the child's trace starts clean, its own file, order and threads. */
void fork_prepare(void);
void fork_parent(void);
void fork_child(void);

#pragma GCC visibility pop

#endif
