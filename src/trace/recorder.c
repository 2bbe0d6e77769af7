/*
 * recorder.c - allocbench's recording library (liballocbench-record.so),
 * preloaded by `allocbench record` into the program it runs. It defines
 * malloc, calloc, realloc, reallocarray, free, posix_memalign,
 * aligned_alloc, memalign, valloc and pvalloc, calls the next definition
 * (the C library's, or a preloaded allocator's) and appends one record per
 * call to the trace (trace_format.h).
 *
 * Why it is built this way:
 * - The trace file is mapped MAP_SHARED and each thread writes its records
 *   straight into a chunk of it that it alone owns, its window: no lock
 *   and no system call on the hot path (one increment for the call's place
 *   in the order), and a record is in the kernel's page cache the moment it
 *   is committed, so a crash, abort, kill or _exit loses nothing that was
 *   written. A chunk's `used` is stored after the record's bytes, so a
 *   reader never sees half a record.
 * - A thread's window is TRACE_WINDOW_CHUNKS chunks (claimed as it first needs
 *   each). When all are full they are copied with one pwritev() into as
 *   many fresh chunks of the file, and the thread starts again at the
 *   window's first: it writes into the same, cache-hot 32 KiB all along. Writing through the mapping
 *   into ever new pages cost more than the records (a fault or a cache miss
 *   per page; 40% of the recorder's time in make bench). Between the copy
 *   and the restart the window and its copy hold the same records with the
 *   same (thread, base_seq): the reader keeps one (TRACE FORMAT).
 * - A record's fields are written by stores of 8 bytes, each varint
 *   shaped without a branch on its length: a loop per byte mispredicted
 *   on the sizes and pointer deltas of real programs.
 * - It never allocates. Calls made while it resolves the next malloc with
 *   dlsym (which may call calloc) are served from a static buffer and not
 *   recorded: they are the recorder's, not the program's.
 * - The descriptor is only needed to grow the file (rarely); a program that
 *   closes every descriptor, or reuses the number, makes it reopen the file
 *   by its absolute path.
 * - A signal handler that allocates while the same thread is writing a
 *   record puts its own records into a small per-thread queue, written
 *   after the interrupted one.
 * - The program is never harmed by its trace. A store into a part of a
 *   shared file mapping that has no block behind it, when none can be had
 *   (a full disk, a quota), is SIGBUS: every part is reserved with
 *   fallocate() before a record goes into it. When the trace cannot grow or
 *   be written, recording stops in the process (trace_stop()) and its calls
 *   are counted as lost, with the reason, in the header.
 * - fork: the child unmaps the parent's trace, starts FILE.PROGRAM.PID,
 *   with its own order from 1. exec and _exit end the trace; exit ends it
 *   in a destructor: the window chunks and the header are sealed with
 *   their checksums (a copy out of the window is sealed as it is written).
 *   Without an end the trace was cut short, its window chunks unsealed.
 *
 * The library is four files (recorder.h lists them); this one holds the
 * interposed calls and the hot path of their records.
 */
#include "trace/recorder.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------ before the next allocator is known */

/* What dlsym allocates while it resolves: never freed, never recorded. */
static unsigned char boot[1 << 16] __attribute__((aligned(64)));
static size_t boot_used;

static void *boot_alloc(size_t size, size_t align)
{
	size_t cur = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), at, end;

	if (align < 16)
		align = 16;
	do {
		at = (cur + align - 1) & ~(align - 1);
		end = at + size;
		if (end > sizeof(boot) || end < at)
			return NULL;
	} while (!__atomic_compare_exchange_n(&boot_used, &cur, end, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return boot + at;
}

static int is_boot(const void *p)
{
	return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + sizeof(boot);
}

/* ------------------------------------------------------------ records */

static unsigned char *put_varint_slow(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* Bytes of the varint of a value of B significant bits (B >= 1). */
static const unsigned char varint_bytes[65] = {
	1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10
};

/* The continuation bits of a varint of N bytes: all but the last byte's. */
static const uint64_t varint_more[9] = {
	0, 0, 0x80, 0x8080, 0x808080, 0x80808080, 0x8080808080, 0x808080808080,
	0x80808080808080
};

/*
 * V as a LEB128 varint at P; returns the end. Below 2^56 (every size and
 * pointer delta of a real program) the 7-bit groups are spread over one
 * 64-bit word by shifts and masks and stored at once, the continuation bits
 * set for all but the last byte, without a branch on the length; up to 7
 * bytes after the end are written.
 */
static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	unsigned n = varint_bytes[64 - __builtin_clzll(v | 1)];
	uint64_t w;

	if (LIKELY(v < (uint64_t)1 << 28)) {
		uint32_t x = (uint32_t)v;

		w = (x & 0x7f) | (x << 1 & 0x7f00) | (x << 2 & 0x7f0000) | (x << 3 & 0x7f000000);
	} else if (v < (uint64_t)1 << 56) {
		w = (v & 0x7f) |
		    (v << 1 & (uint64_t)0x7f << 8) |
		    (v << 2 & (uint64_t)0x7f << 16) |
		    (v << 3 & (uint64_t)0x7f << 24) |
		    (v << 4 & (uint64_t)0x7f << 32) |
		    (v << 5 & (uint64_t)0x7f << 40) |
		    (v << 6 & (uint64_t)0x7f << 48) |
		    (v << 7 & (uint64_t)0x7f << 56);
	} else {
		return put_varint_slow(p, v);
	}
	w |= varint_more[n];
	memcpy(p, &w, 8);
	return p + n;
#else
	return put_varint_slow(p, v);
#endif
}

/* The same for a value that is nearly always below 128 (a record's first). */
static inline unsigned char *put_varint_small(unsigned char *p, uint64_t v)
{
	if (LIKELY(v < 0x80)) {
		*p = (unsigned char)v;
		return p + 1;
	}
	return put_varint(p, v);
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline unsigned char *put_ptr(unsigned char *p, uint64_t ptr)
{
	int64_t d;
	uint64_t v;

	if (!ptr)
		return put_varint(p, 0);
	d = (int64_t)(ptr - ts.prev_ptr);
	v = (d & 15) ? zigzag(d) << 1 | 1 : zigzag(d / 16) << 1;
	ts.prev_ptr = ptr;
	return put_varint(p, v + 1);
}

/* The record's fields; the kind is a constant where it is inlined. */
static inline __attribute__((always_inline)) void
rec_write(unsigned kind, uint64_t seq, uint64_t a, uint64_t b, uint64_t c3, uint64_t d)
{
	struct trace_chunk *c = ts.chunk;
	unsigned char *start, *p;
	uint32_t used;

	if (UNLIKELY(!c || ts.generation != __atomic_load_n(&generation, __ATOMIC_RELAXED) ||
		     (used = c->used) > TRACE_PAYLOAD_BYTES - RECORD_ROOM)) {
		c = window_next();
		if (!c) {
			rec_lost();
			return;
		}
		used = c->used;
	}
	start = p = (unsigned char *)(c + 1) + used;
	p = put_varint_small(p, zigzag((int64_t)(seq - ts.prev_seq)) << 4 | kind);
	switch (kind) {
	case TRACE_MALLOC:
	case TRACE_VALLOC:
	case TRACE_PVALLOC:
		p = put_varint(p, a);
		p = put_ptr(p, b);
		break;
	case TRACE_CALLOC:
	case TRACE_POSIX_MEMALIGN:
	case TRACE_ALIGNED_ALLOC:
	case TRACE_MEMALIGN:
		p = put_varint(p, a);
		p = put_varint(p, b);
		p = put_ptr(p, c3);
		break;
	case TRACE_REALLOC:
		p = put_ptr(p, a);
		p = put_varint(p, b);
		p = put_ptr(p, c3);
		p = put_varint(p, d);
		break;
	case TRACE_FREE:
		p = put_ptr(p, a);
		break;
	case TRACE_FREE_PAGES:
		p = put_ptr(p, a);
		p = put_varint(p, b);
		p = put_varint(p, c3);
		break;
	}
	ts.prev_seq = seq;
	__atomic_store_n(&c->used, used + (uint32_t)(p - start), __ATOMIC_RELEASE);
}

/* What a signal handler queued while this thread wrote a record. */
static __attribute__((noinline)) void stash_drain(void)
{
	while (ts.stash_tail != ts.stash_head) {
		struct rec q = ts.stash[ts.stash_tail % STASH_RECORDS];

		/* Not a constant here: rec_write() switches on it, as the stash is rare. */
		rec_write(q.kind, q.seq, q.f[0], q.f[1], q.f[2], q.f[3]);
		ts.stash_tail = ts.stash_tail + 1;
	}
}

/* A signal handler interrupted this thread's own record: queue this one. */
static __attribute__((noinline)) void stash_push(unsigned kind, uint64_t seq, uint64_t a,
						 uint64_t b, uint64_t c, uint64_t d)
{
	unsigned head = ts.stash_head;

	if (head - ts.stash_tail >= STASH_RECORDS) {
		if (__atomic_load_n(&rec_mode, __ATOMIC_ACQUIRE) != REC_ENDED) {
			trace_lose(TRACE_LOST_NESTED, 0);
			__atomic_fetch_add(&hdr->lost, 1, __ATOMIC_RELAXED);
		}
		return;
	}
	ts.stash[head % STASH_RECORDS] = (struct rec){ kind, seq, { a, b, c, d } };
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts.stash_head = head + 1;
}

static inline __attribute__((always_inline)) void
emit(unsigned kind, uint64_t seq, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	if (UNLIKELY(ts.busy)) {
		stash_push(kind, seq, a, b, c, d);
		return;
	}
	ts.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rec_write(kind, seq, a, b, c, d);
	if (UNLIKELY(ts.stash_tail != ts.stash_head))
		stash_drain();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ts.busy = 0;
}

/*
 * 1 once the process may have a second thread: pthread_create() sets it
 * before the thread exists, a thread's first record (a thread the C
 * library started itself) too. Until then the order is one thread's and
 * needs no atomic increment (a locked instruction is a third of what the
 * recorder adds to a malloc).
 */
static inline uint64_t seq_next(void)
{
#if defined(__x86_64__)
	/*
	 * One xadd without the lock prefix: a signal handler (which comes
	 * between two instructions) cannot split it, as it could split a load
	 * and a store.
	 */
	if (__builtin_expect(!__atomic_load_n(&threaded, __ATOMIC_RELAXED), 1)) {
		uint64_t v = 1;

		__asm__ volatile("xaddq %0, %1" : "+r"(v), "+m"(seq_counter));
		return v + 1;
	}
#endif
	return __atomic_add_fetch(&seq_counter, 1, __ATOMIC_RELAXED);
}

EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			  void *(*start)(void *), void *arg)
{
	__atomic_store_n(&threaded, 1, __ATOMIC_SEQ_CST);
	ready();
	return next.pthread_create(thread, attr, start, arg);
}

#define RECORD(KIND, SEQ, A, B, C, D)                                          \
	do {                                                                   \
		if (hdr)                                                       \
			emit((KIND), (SEQ), (uint64_t)(A), (uint64_t)(B),      \
			     (uint64_t)(C), (uint64_t)(D));                    \
	} while (0)

/* ------------------------------------------------------------ the interface */

EXPORT void *malloc(size_t size)
{
	void *p;

	if (UNLIKELY(!ready()))
		return boot_alloc(size, 16);
	p = next.malloc(size);
	RECORD(TRACE_MALLOC, seq_next(), size, (uintptr_t)p, 0, 0);
	return p;
}

EXPORT void *calloc(size_t nmemb, size_t size)
{
	void *p;

	if (UNLIKELY(!ready())) {
		size_t bytes;

		return __builtin_mul_overflow(nmemb, size, &bytes) ? NULL : boot_alloc(bytes, 16);
	}
	p = next.calloc(nmemb, size);
	RECORD(TRACE_CALLOC, seq_next(), nmemb, size, (uintptr_t)p, 0);
	return p;
}

/*
 * The free of a chunk of TRACE_PAGES_MIN_BYTES or more (USABLE, as its
 * allocator says): how many of the pages it spans are resident, by
 * mincore(2), recorded with it where some are not (TRACE FORMAT), so that
 * a replay writes what the program wrote, not every byte it asked for.
 * One system call, on a page-table walk over the chunk's pages.
 */
static __attribute__((noinline)) void record_free_pages(void *ptr, size_t usable)
{
	static uintptr_t page;
	unsigned char vec[256];
	uintptr_t start, span, resident = 0;

	if (!page)
		page = (uintptr_t)sysconf(_SC_PAGESIZE);
	start = (uintptr_t)ptr & ~(page - 1);
	span = ((uintptr_t)ptr + usable - start + page - 1) / page;
	for (uintptr_t at = 0, n; at < span; at += n) {
		n = span - at < sizeof(vec) ? span - at : sizeof(vec);
		if (mincore((void *)(start + at * page), n * page, vec)) {
			resident = span;  /* not known: as if all were written */
			break;
		}
		for (uintptr_t i = 0; i < n; i++)
			resident += vec[i] & 1;
	}
	if (resident < span)
		RECORD(TRACE_FREE_PAGES, seq_next(), (uintptr_t)ptr, resident, span, 0);
	else
		RECORD(TRACE_FREE, seq_next(), (uintptr_t)ptr, 0, 0, 0);
}

EXPORT void free(void *ptr)
{
	size_t usable;

	if (UNLIKELY(is_boot(ptr)))
		return;
	if (UNLIKELY(!ready()))
		return;
	if (ptr && hdr && next.usable_size &&
	    UNLIKELY((usable = next.usable_size(ptr)) >= TRACE_PAGES_MIN_BYTES)) {
		record_free_pages(ptr, usable);
		next.free(ptr);
		return;
	}
	/*
	 * Recorded before the chunk is freed, its place taken first as ever
	 * (a malloc that then returns the same address comes after it), and
	 * while the line of the chunk's header that the next free reads is
	 * fetched: the record's work hides that cache miss instead of adding
	 * to it (5% of the bare loop's recorded time).
	 */
	__builtin_prefetch((const void *)((uintptr_t)ptr - 16));  /* free(NULL) too: it cannot fault */
	RECORD(TRACE_FREE, seq_next(), (uintptr_t)ptr, 0, 0, 0);
	next.free(ptr);
}

EXPORT void *realloc(void *ptr, size_t size)
{
	uint64_t seq;
	void *p;

	if (UNLIKELY(is_boot(ptr) || !ready())) {
		size_t have;

		p = ready() ? next.malloc(size) : boot_alloc(size, 16);
		if (p && ptr) {
			have = (size_t)(boot + sizeof(boot) - (unsigned char *)ptr);
			memcpy(p, ptr, have < size ? have : size);
		}
		return p;
	}
	seq = hdr ? seq_next() : 0;
	p = next.realloc(ptr, size);
	RECORD(TRACE_REALLOC, seq, (uintptr_t)ptr, size, (uintptr_t)p, seq_next() - seq);
	return p;
}

EXPORT void *reallocarray(void *ptr, size_t nmemb, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(nmemb, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, bytes);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	int ret;

	if (UNLIKELY(!ready())) {
		*out = boot_alloc(size, align);
		return *out ? 0 : ENOMEM;
	}
	ret = next.posix_memalign(out, align, size);
	RECORD(TRACE_POSIX_MEMALIGN, seq_next(), align, size, ret ? 0 : (uintptr_t)*out, 0);
	return ret;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	void *p;

	if (UNLIKELY(!ready()))
		return boot_alloc(size, align);
	p = next.aligned_alloc(align, size);
	RECORD(TRACE_ALIGNED_ALLOC, seq_next(), align, size, (uintptr_t)p, 0);
	return p;
}

EXPORT void *memalign(size_t align, size_t size)
{
	void *p;

	if (UNLIKELY(!ready()))
		return boot_alloc(size, align);
	p = next.memalign(align, size);
	RECORD(TRACE_MEMALIGN, seq_next(), align, size, (uintptr_t)p, 0);
	return p;
}

EXPORT void *valloc(size_t size)
{
	void *p;

	if (UNLIKELY(!ready()))
		return boot_alloc(size, 4096);
	p = next.valloc(size);
	RECORD(TRACE_VALLOC, seq_next(), size, (uintptr_t)p, 0, 0);
	return p;
}

EXPORT void *pvalloc(size_t size)
{
	void *p;

	if (UNLIKELY(!ready()))
		return boot_alloc(size, 4096);
	p = next.pvalloc(size);
	RECORD(TRACE_PVALLOC, seq_next(), size, (uintptr_t)p, 0, 0);
	return p;
}

