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
 * - fork: the child unmaps the parent's trace and starts its own, FILE.PID,
 *   with its own order from 1. exec and _exit end the trace; exit ends it
 *   in a destructor: the window chunks and the header are sealed with
 *   their checksums (a copy out of the window is sealed as it is written).
 *   Without an end the trace was cut short, its window chunks unsealed.
 */
#include "record.h"
#include "trace_format.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Address space reserved for the mapping; a larger trace counts as lost. */
#define TRACE_MAP_BYTES ((uint64_t)1 << 36)
/* Records a thread's signal handlers may queue while it writes one. */
#define STASH_RECORDS 64

/* ------------------------------------------------------------ the next allocator */

static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
} next;

enum { INIT_NONE, INIT_RUNNING, INIT_READY };
static int init_state;   /* INIT_*, atomically */

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

/* ------------------------------------------------------------ the trace */

static struct trace_header *hdr;   /* the mapping; NULL when not recording */
static int trace_fd = -1;
static dev_t trace_dev;
static ino_t trace_ino;
static char trace_path[RECORD_PATH_MAX];
static uint64_t file_bytes;        /* the file's size, reserved from its start (trace_reserve()) */
static int grow_lock;
static uint64_t seq_counter;       /* the last place in the order handed out */
static int threaded;               /* the process may have a second thread (seq_next()) */

/* Whether calls are recorded (rec_mode). */
enum {
	REC_ON,       /* recording */
	REC_STOPPED,  /* the trace could not grow or be written: calls counted in lost */
	REC_ENDED,    /* the trace ended (exit, exec, _exit) and is sealed: nothing touches it */
};
static int rec_mode;               /* REC_*, atomically */
static int rec_mode_before_end;    /* rec_mode before trace_end(), for an exec that fails */
/*
 * Changes whenever every thread must pass through window_next() before its
 * next record: a fork child's new trace, a stop, an end, a failed exec. The
 * hot path compares it with its own copy, so that no other check is added.
 */
static unsigned generation;
static unsigned fork_generation;   /* changes when a fork child starts its own trace */

/*
 * The window chunks of every thread (their index + 1; 0 while being
 * written), which trace_end() seals: reading every chunk's header instead
 * cost a page fault per 4 KiB of trace at exit (5% of a recorded run).
 * Beyond WINDOWS_KNOWN, trace_end() reads them all.
 */
#define WINDOWS_KNOWN 4096
static uint32_t windows[WINDOWS_KNOWN];
static uint32_t windows_n;         /* entries taken, atomically (may pass WINDOWS_KNOWN) */

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

static __thread struct thread_state ts __attribute__((tls_model("initial-exec")));

static void lock_grow(void)
{
	while (__atomic_exchange_n(&grow_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void unlock_grow(void)
{
	__atomic_store_n(&grow_lock, 0, __ATOMIC_RELEASE);
}

/* Writes the decimal V at P; returns the end. */
static char *put_decimal(char *p, unsigned long v)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = digits[--n];
	*p = '\0';
	return p;
}

/*
 * The trace's descriptor, reopened by path if the program closed or reused
 * it. Returns it, or -1 with errno set (ENOENT: the file was removed or
 * replaced).
 */
static int trace_fd_get(void)
{
	struct stat st;
	int fd;

	if (trace_fd >= 0 && !fstat(trace_fd, &st) && st.st_dev == trace_dev && st.st_ino == trace_ino)
		return trace_fd;
	fd = open(trace_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != trace_dev || st.st_ino != trace_ino) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	trace_fd = fd;
	return fd;
}

/*
 * Gives the file blocks from FROM to TO (and that size, if larger), so that
 * a store into that part of the mapping never faults for want of space (a
 * hole that cannot be filled is SIGBUS to the program). Where fallocate()
 * is not supported, writes zeros. Returns 0, or an errno.
 */
static int file_reserve(int fd, uint64_t from, uint64_t to)
{
	static const unsigned char zeros[TRACE_CHUNK_BYTES];

	for (;;) {
		if (!fallocate(fd, 0, (off_t)from, (off_t)(to - from)))
			return 0;
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			break;  /* not here: zeros */
		if (errno != EINTR)
			return errno;
	}
	while (from < to) {
		size_t n = to - from < sizeof(zeros) ? (size_t)(to - from) : sizeof(zeros);
		ssize_t w = pwrite(fd, zeros, n, (off_t)from);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		from += (uint64_t)w;
	}
	return 0;
}

/*
 * Reserves the file up to at least END bytes: by a quarter more (1 MiB at
 * least) where there is room, else exactly. Returns 0, or an errno.
 */
static int trace_reserve(uint64_t end)
{
	int err = 0;

	lock_grow();
	if (end > file_bytes) {
		uint64_t want = file_bytes + file_bytes / 4;
		int fd = trace_fd_get();

		if (want < file_bytes + (1 << 20))
			want = file_bytes + (1 << 20);
		if (want > TRACE_MAP_BYTES)
			want = TRACE_MAP_BYTES;
		if (want < end)
			want = end;
		if (fd < 0)
			err = errno;
		else if (!(err = file_reserve(fd, file_bytes, want)))
			__atomic_store_n(&file_bytes, want, __ATOMIC_RELEASE);
		else if (want > end && !(err = file_reserve(fd, file_bytes, end)))
			__atomic_store_n(&file_bytes, end, __ATOMIC_RELEASE);
	}
	unlock_grow();
	return err;
}

#define SUM_PRIME 0x100000001b3ULL

/* The checksum of a chunk's fields, where its payload's starts. */
static uint64_t sum_fields(uint32_t used, uint32_t thread, uint64_t base_seq)
{
	uint64_t fields[2] = { (uint64_t)used | (uint64_t)thread << 32, base_seq };

	return trace_checksum_words(0xcbf29ce484222325ULL, fields, sizeof(fields));
}

/* H continued over P's bytes from I to USED, 8 bytes a load; the final checksum. */
static uint64_t sum_rest(uint64_t h, const unsigned char *p, uint64_t i, uint64_t used)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= used; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * SUM_PRIME;
	}
#endif
	h = trace_checksum_words(h, p + i, used - i);
	return h ? h : 1;
}

/* trace_chunk_checksum() of a chunk's fields and PAYLOAD. */
static uint64_t chunk_sum(uint32_t used, uint32_t thread, uint64_t base_seq, const void *payload)
{
	return sum_rest(sum_fields(used, thread, base_seq), payload, 0, used);
}

/*
 * The checksums of the window's chunks HEAD (copies of their headers,
 * whose check it sets), their payloads in the window. One chunk's is a
 * chain of multiplications, each waiting for the last: the window's are
 * computed side by side, as far as all go, so that they overlap (8 times
 * faster than one after the other).
 */
static void window_sums(struct trace_chunk head[TRACE_WINDOW_CHUNKS])
{
	const unsigned char *p[TRACE_WINDOW_CHUNKS];
	uint64_t h[TRACE_WINDOW_CHUNKS], common = TRACE_PAYLOAD_BYTES, i = 0;

	for (int c = 0; c < TRACE_WINDOW_CHUNKS; c++) {
		p[c] = (const unsigned char *)(ts.window[c] + 1);
		h[c] = sum_fields(head[c].used, head[c].thread, head[c].base_seq);
		if (head[c].used < common)
			common = head[c].used;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= common; i += 8) {
#pragma GCC unroll 8
		for (int c = 0; c < TRACE_WINDOW_CHUNKS; c++) {
			uint64_t w;

			memcpy(&w, p[c] + i, 8);
			h[c] = (h[c] ^ w) * SUM_PRIME;
		}
	}
#endif
	for (int c = 0; c < TRACE_WINDOW_CHUNKS; c++)
		head[c].check = sum_rest(h[c], p[c], i, head[c].used);
}

/* Seals chunk C as it is now (its used read once). */
static void chunk_seal(struct trace_chunk *c)
{
	uint32_t used = __atomic_load_n(&c->used, __ATOMIC_ACQUIRE);

	if (used > TRACE_PAYLOAD_BYTES)
		return;  /* not ours to judge: the reader will */
	__atomic_store_n(&c->check, chunk_sum(used, c->thread, c->base_seq, c + 1), __ATOMIC_RELEASE);
}

/* Chunk K's address (the file may not cover it). */
static inline struct trace_chunk *chunk_addr(uint64_t k)
{
	return (struct trace_chunk *)(void *)((char *)hdr + TRACE_HEADER_BYTES + k * TRACE_CHUNK_BYTES);
}

/* The chunks the file covers. */
static uint64_t chunks_covered(void)
{
	uint64_t bytes = __atomic_load_n(&file_bytes, __ATOMIC_ACQUIRE);

	return bytes < TRACE_HEADER_BYTES ? 0 : (bytes - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
}

/* Takes back the chunks claimed beyond what the file covers (their claims failed). */
static void chunks_clip(void)
{
	uint64_t covered = chunks_covered(), n = __atomic_load_n(&hdr->chunks, __ATOMIC_ACQUIRE);

	while (n > covered &&
	       !__atomic_compare_exchange_n(&hdr->chunks, &n, covered, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
}

/* Records the first reason calls are lost (the calls themselves are counted by the caller). */
static void trace_lose(enum trace_lost why, int err)
{
	uint32_t none = TRACE_LOST_NONE;

	if (__atomic_compare_exchange_n(&hdr->lost_why, &none, (uint32_t)why, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		__atomic_store_n(&hdr->lost_errno, err, __ATOMIC_RELEASE);
}

/*
 * The trace cannot go on (it is full, or cannot grow or be written): no
 * thread writes another record in this process, and its calls count as
 * lost. The trace is sealed as usual when the process ends.
 */
static void trace_stop(enum trace_lost why, int err)
{
	int on = REC_ON;

	trace_lose(why, err);
	if (__atomic_compare_exchange_n(&rec_mode, &on, REC_STOPPED, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
	chunks_clip();
}

/*
 * Ends the trace: no more records, the file cut to the chunks claimed,
 * every chunk not sealed yet (the windows) sealed, then the header with
 * STATE. Calls other threads make after it are neither recorded nor
 * counted: they come after the end. A thread caught in the middle of a
 * record (a few instructions) may still change its chunk after the seal,
 * which a reader then reports as damage. EXIT_STATUS: -1 when not known.
 */
static void trace_end(enum trace_state state, int exit_status)
{
	uint64_t chunks, end;
	uint32_t known;
	int fd, before;

	if (!hdr)
		return;
	/* Ended before the lock: a signal handler's record now never waits for it. */
	before = __atomic_exchange_n(&rec_mode, REC_ENDED, __ATOMIC_ACQ_REL);
	if (before == REC_ENDED)
		return;
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
	lock_grow();
	rec_mode_before_end = before;
	chunks_clip();
	chunks = __atomic_load_n(&hdr->chunks, __ATOMIC_ACQUIRE);
	end = TRACE_HEADER_BYTES + chunks * TRACE_CHUNK_BYTES;
	fd = trace_fd_get();
	if (fd >= 0 && end < file_bytes && !ftruncate(fd, (off_t)end))
		__atomic_store_n(&file_bytes, end, __ATOMIC_RELEASE);
	known = __atomic_load_n(&windows_n, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < known && known <= WINDOWS_KNOWN; i++)
		if (!__atomic_load_n(&windows[i], __ATOMIC_ACQUIRE))
			known = WINDOWS_KNOWN + 1;  /* one being written: read them all */
	for (uint64_t i = 0; i < (known <= WINDOWS_KNOWN ? known : chunks); i++) {
		uint64_t k = known <= WINDOWS_KNOWN ? windows[i] - 1 : i;
		struct trace_chunk *c = chunk_addr(k);

		if (k < chunks && !__atomic_load_n(&c->check, __ATOMIC_ACQUIRE))
			chunk_seal(c);
	}
	hdr->exit_status = exit_status;
	__atomic_store_n(&hdr->state, (uint32_t)state, __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->header_check, trace_header_checksum(hdr), __ATOMIC_RELEASE);
	unlock_grow();
}

/*
 * Opens this process's trace: FILE for the process `allocbench record`
 * started, FILE.PID for any other, FILE.PID.N when that exists (the same
 * process after an exec). Sets hdr, or leaves it NULL.
 */
static void trace_open(void)
{
	const char *path = getenv("ALLOCBENCH_RECORD_FILE");
	const char *root = getenv("ALLOCBENCH_RECORD_ROOT");
	const char *session = getenv("ALLOCBENCH_RECORD_SESSION");
	unsigned long pid = (unsigned long)getpid();
	size_t len;
	struct stat st;
	struct timespec now;
	void *map;
	int fd = -1, err;
	char *end;

	if (!path || path[0] != '/' || (len = strlen(path)) > RECORD_FILE_MAX)
		return;
	for (int attempt = 0; attempt < 10 && fd < 0; attempt++) {
		memcpy(trace_path, path, len + 1);
		end = trace_path + len;
		if (attempt == 0) {
			if (!root || strtoul(root, NULL, 10) != pid)
				continue;
		} else {
			*end++ = '.';
			end = put_decimal(end, pid);
			if (attempt > 1) {
				*end++ = '.';
				put_decimal(end, (unsigned long)attempt);
			}
		}
		fd = open(trace_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return;
	}
	if (fd < 0)
		return;
	/* Out of the way of a program that dup2()s onto low numbers. */
	{
		int high = fcntl(fd, F_DUPFD_CLOEXEC, 500);

		if (high >= 0) {
			close(fd);
			fd = high;
		}
	}
	/*
	 * Room for the header and 16 chunks, else for the header alone: a
	 * trace that says why nothing is in it (no space) is better than none.
	 */
	file_bytes = TRACE_HEADER_BYTES + 16 * TRACE_CHUNK_BYTES;
	if (fstat(fd, &st) || ((err = file_reserve(fd, 0, file_bytes)) &&
			       file_reserve(fd, 0, file_bytes = TRACE_HEADER_BYTES))) {
		close(fd);
		return;
	}
	map = mmap(NULL, TRACE_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return;
	}
	trace_fd = fd;
	trace_dev = st.st_dev;
	trace_ino = st.st_ino;
	rec_mode = REC_ON;
	windows_n = 0;
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
	hdr = map;
	if (err)
		trace_stop(TRACE_LOST_WRITE, err);
	memcpy(hdr->magic, TRACE_MAGIC, sizeof(hdr->magic));
	hdr->version = TRACE_VERSION;
	hdr->header_bytes = TRACE_HEADER_BYTES;
	hdr->chunk_bytes = TRACE_CHUNK_BYTES;
	hdr->pid = (uint32_t)pid;
	hdr->ppid = (uint32_t)getppid();
	hdr->session = session ? strtoull(session, NULL, 10) : 0;
	clock_gettime(CLOCK_REALTIME, &now);
	hdr->start_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	hdr->exit_status = -1;
	{
		ssize_t n = readlink("/proc/self/exe", hdr->command, sizeof(hdr->command) - 1);

		if (n < 0)
			hdr->command[0] = '\0';
	}
}

static void trace_close_inherited(void)
{
	if (hdr)
		munmap(hdr, TRACE_MAP_BYTES);
	if (trace_fd >= 0)
		close(trace_fd);
	hdr = NULL;
	trace_fd = -1;
}

static void fork_prepare(void)
{
	lock_grow();
}

static void fork_parent(void)
{
	unlock_grow();
}

/* The child's trace starts clean: its own file, its own order, its own threads. */
static void fork_child(void)
{
	unlock_grow();
	if (!hdr)
		return;
	trace_close_inherited();
	memset(windows, 0, sizeof(windows));
	seq_counter = 0;
	threaded = 0;  /* the forking thread is the child's only one */
	fork_generation++;
	generation++;
	memset(ts.window, 0, sizeof(ts.window));
	ts.chunk = NULL;
	ts.has_index = 0;
	ts.busy = 0;
	ts.stash_head = ts.stash_tail = 0;
	trace_open();
}

/* Resolves the next allocator and opens the trace. Returns 1 when ready. */
static int init_slow(void)
{
	int expected = INIT_NONE;

	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == INIT_READY)
		return 1;
	if (!__atomic_compare_exchange_n(&init_state, &expected, INIT_RUNNING, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;  /* being resolved (by this thread, inside dlsym): the boot buffer */
	next.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	next.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	next.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	next.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	next.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	next.valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	next.pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
	next.execve = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
	next.execvpe = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
	next.fexecve = (int (*)(int, char *const[], char *const[]))dlsym(RTLD_NEXT, "fexecve");
	next.pthread_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
		dlsym(RTLD_NEXT, "pthread_create");
	if (!next.malloc || !next.calloc || !next.realloc || !next.free)
		abort();  /* nothing to forward to: no allocator at all */
	trace_open();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	__atomic_store_n(&init_state, INIT_READY, __ATOMIC_RELEASE);
	return 1;
}

static inline int ready(void)
{
	return LIKELY(__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == INIT_READY) || init_slow();
}

__attribute__((constructor)) static void recorder_start(void)
{
	ready();
}

__attribute__((destructor)) static void recorder_stop(void)
{
	trace_end(TRACE_STATE_EXIT, -1);
}

/* ------------------------------------------------------------ records */

/* Bytes a record may write past its end: the last varint's 8-byte store. */
#define RECORD_SLACK 7
#define RECORD_ROOM (TRACE_RECORD_MAX + RECORD_SLACK)

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

/*
 * Makes the file cover chunk K, its blocks reserved; returns its address,
 * or NULL after stopping the trace (it is full, or cannot grow).
 */
static struct trace_chunk *chunk_at(uint64_t k)
{
	uint64_t end = TRACE_HEADER_BYTES + (k + 1) * TRACE_CHUNK_BYTES;
	int err;

	if (end > TRACE_MAP_BYTES) {
		trace_stop(TRACE_LOST_FULL, 0);
		return NULL;
	}
	if (end > __atomic_load_n(&file_bytes, __ATOMIC_ACQUIRE) && (err = trace_reserve(end))) {
		trace_stop(TRACE_LOST_WRITE, err);
		return NULL;
	}
	return chunk_addr(k);
}

/* Claims N consecutive chunks that the file covers; the first, or NULL (the trace stopped). */
static struct trace_chunk *chunks_claim(uint64_t n)
{
	uint64_t k = __atomic_fetch_add(&hdr->chunks, n, __ATOMIC_ACQ_REL);

	return chunk_at(k + n - 1) ? chunk_addr(k) : NULL;
}

/*
 * Copies the full window into new chunks, each sealed in the copy, with
 * one write. Returns 0, or -1 after stopping the trace: the window keeps
 * its records, and the chunks claimed for the copy are left as empty
 * (sealed) copies of them, so that no half-written copy is in the file.
 */
static int window_flush(void)
{
	struct trace_chunk head[TRACE_WINDOW_CHUNKS];
	struct iovec iov[2 * TRACE_WINDOW_CHUNKS];
	struct trace_chunk *to = chunks_claim(TRACE_WINDOW_CHUNKS);
	size_t left = (size_t)TRACE_WINDOW_CHUNKS * TRACE_CHUNK_BYTES;
	off_t at;
	int fd, first = 0, err;

	if (!to)
		return -1;
	at = (off_t)((char *)to - (char *)hdr);
	for (int i = 0; i < TRACE_WINDOW_CHUNKS; i++) {
		head[i] = *ts.window[i];
		iov[2 * i] = (struct iovec){ &head[i], sizeof(head[i]) };
		iov[2 * i + 1] = (struct iovec){ ts.window[i] + 1, TRACE_PAYLOAD_BYTES };
	}
	window_sums(head);
	lock_grow();
	fd = trace_fd_get();
	err = errno;
	unlock_grow();
	while (fd >= 0 && left) {
		ssize_t n = pwritev(fd, iov + first, 2 * TRACE_WINDOW_CHUNKS - first, at);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err = n < 0 ? errno : EIO;
			break;
		}
		left -= (size_t)n;
		at += (off_t)n;
		while (n > 0 && (size_t)n >= iov[first].iov_len)
			n -= (ssize_t)iov[first++].iov_len;
		if (n > 0) {
			iov[first].iov_base = (char *)iov[first].iov_base + n;
			iov[first].iov_len -= (size_t)n;
		}
	}
	if (!left)
		return 0;
	/* The claimed chunks are reserved: storing into them is safe. */
	for (int i = 0; i < TRACE_WINDOW_CHUNKS; i++) {
		struct trace_chunk *c = to + i;

		c->used = 0;
		c->thread = head[i].thread;
		c->base_seq = head[i].base_seq;
		c->check = chunk_sum(0, c->thread, c->base_seq, c + 1);
	}
	trace_stop(TRACE_LOST_WRITE, err);
	return -1;
}

/*
 * The thread's next chunk with room for records: its current one when it
 * has room (after a failed exec, unsealed again), else the next of its
 * window (claimed the first time, so that a short-lived thread takes one
 * chunk), or, when all are full, the window copied out and started again
 * (its chunks emptied). NULL when the trace is not recording (stopped or
 * ended; the window keeps what it has).
 */
static __attribute__((noinline)) struct trace_chunk *window_next(void)
{
	int saved = errno;  /* the program's: a successful call leaves it */
	unsigned gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
	struct trace_chunk *c;
	unsigned slot;

	if (__atomic_load_n(&rec_mode, __ATOMIC_ACQUIRE) != REC_ON)
		return NULL;
	if (ts.fork_generation != fork_generation || !ts.has_index) {
		ts.fork_generation = fork_generation;
		ts.thread = __atomic_fetch_add(&hdr->threads, 1, __ATOMIC_RELAXED);
		if (ts.thread)
			__atomic_store_n(&threaded, 1, __ATOMIC_SEQ_CST);
		ts.has_index = 1;
		ts.prev_seq = 0;
		memset(ts.window, 0, sizeof(ts.window));
		ts.chunk = NULL;
	}
	ts.generation = gen;
	c = ts.chunk;
	if (c && c->used <= TRACE_PAYLOAD_BYTES - RECORD_ROOM) {
		__atomic_store_n(&c->check, 0, __ATOMIC_RELEASE);
		return c;
	}
	if (!c) {
		slot = 0;
	} else if (ts.slot + 1 < TRACE_WINDOW_CHUNKS) {
		slot = ts.slot + 1;
	} else if (!window_flush()) {
		/* The copies hold these records now: the window starts again (unsealed first). */
		for (unsigned i = 0; i < TRACE_WINDOW_CHUNKS; i++) {
			__atomic_store_n(&ts.window[i]->check, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&ts.window[i]->used, 0, __ATOMIC_RELEASE);
		}
		slot = 0;
	} else {
		errno = saved;
		return NULL;  /* the window keeps what it has */
	}
	if (!ts.window[slot]) {
		uint32_t known;
		uint64_t k;

		ts.window[slot] = chunks_claim(1);
		if (!ts.window[slot]) {
			errno = saved;
			return NULL;
		}
		ts.window[slot]->thread = ts.thread;
		k = (uint64_t)((char *)ts.window[slot] - (char *)chunk_addr(0)) / TRACE_CHUNK_BYTES;
		known = __atomic_fetch_add(&windows_n, 1, __ATOMIC_ACQ_REL);
		if (known < WINDOWS_KNOWN)
			__atomic_store_n(&windows[known], (uint32_t)k + 1, __ATOMIC_RELEASE);
	}
	ts.slot = slot;
	c = ts.chunk = ts.window[slot];
	__atomic_store_n(&c->check, 0, __ATOMIC_RELEASE);
	c->base_seq = ts.prev_seq;
	ts.prev_ptr = 0;
	errno = saved;
	return c;
}

/* A call that could not be recorded: counted while the trace is stopped, not after its end. */
static __attribute__((noinline)) void rec_lost(void)
{
	if (__atomic_load_n(&rec_mode, __ATOMIC_ACQUIRE) == REC_STOPPED)
		__atomic_fetch_add(&hdr->lost, 1, __ATOMIC_RELAXED);
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

EXPORT void free(void *ptr)
{
	uint64_t seq;

	if (UNLIKELY(is_boot(ptr)))
		return;
	if (UNLIKELY(!ready()))
		return;
	seq = hdr ? seq_next() : 0;
	next.free(ptr);
	RECORD(TRACE_FREE, seq, (uintptr_t)ptr, 0, 0, 0);
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

/* ------------------------------------------------------------ how the process ends */

/*
 * exec replaces the image: the trace ends here, unless the exec fails. A
 * vfork child shares the parent's memory (and trace): it marks nothing.
 */
static int exec_begin(void)
{
	if (!hdr || getpid() != (pid_t)hdr->pid)
		return 0;
	trace_end(TRACE_STATE_EXEC, -1);
	return 1;
}

/* The exec failed: the trace goes on, unsealed (each thread unseals its chunk as it writes again). */
static void exec_failed(int marked)
{
	if (!marked)
		return;
	lock_grow();
	__atomic_store_n(&hdr->header_check, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->state, TRACE_STATE_WRITING, __ATOMIC_RELEASE);
	__atomic_store_n(&rec_mode, rec_mode_before_end, __ATOMIC_RELEASE);
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
	unlock_grow();
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int marked, ret, saved;

	ready();
	marked = exec_begin();
	ret = next.execve(path, argv, envp);
	saved = errno;
	exec_failed(marked);
	errno = saved;
	return ret;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int marked, ret, saved;

	ready();
	marked = exec_begin();
	ret = next.execvpe(file, argv, envp);
	saved = errno;
	exec_failed(marked);
	errno = saved;
	return ret;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int marked, ret, saved;

	ready();
	marked = exec_begin();
	ret = next.fexecve(fd, argv, envp);
	saved = errno;
	exec_failed(marked);
	errno = saved;
	return ret;
}


EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: the arguments gathered into an array on the stack. */
#define EXECL_MAX 4096

static int execl_common(int kind, const char *path, const char *arg0, va_list ap)
{
	char *argv[EXECL_MAX];
	char *const *envp = environ;
	int n = 0;

	argv[n++] = (char *)(uintptr_t)arg0;
	while (arg0 && (argv[n] = va_arg(ap, char *))) {
		if (++n == EXECL_MAX) {
			errno = E2BIG;
			return -1;
		}
	}
	if (!arg0)
		argv[0] = NULL;
	if (kind == 'e')
		envp = va_arg(ap, char *const *);
	return kind == 'p' ? execvpe(path, argv, envp) : execve(path, argv, envp);
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common('l', path, arg, ap);
	va_end(ap);
	return ret;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common('p', file, arg, ap);
	va_end(ap);
	return ret;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common('e', path, arg, ap);
	va_end(ap);
	return ret;
}

EXPORT __attribute__((noreturn)) void _exit(int status)
{
	/* A vfork child shares the parent's trace: it leaves it alone. */
	if (hdr && getpid() == (pid_t)hdr->pid) {
		trace_end(TRACE_STATE__EXIT, status);
	}
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}
