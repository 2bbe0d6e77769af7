/*
 * recorder_file.c - the recording library's trace file (recorder.h): its
 * descriptor, its blocks reserved before a record goes into them, its
 * growth, the checksums that seal it, its opening and its end.
 */
#include "trace/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct trace_header *hdr;
static int trace_fd = -1;
static dev_t trace_dev;
static ino_t trace_ino;
static char trace_path[RECORD_PATH_MAX];
uint64_t map_bytes;
uint64_t file_bytes;
static int grow_lock;
int rec_mode;
int rec_mode_before_end;
unsigned generation;
unsigned fork_generation;
uint32_t windows[WINDOWS_KNOWN];
uint32_t windows_n;

void lock_grow(void)
{
	while (__atomic_exchange_n(&grow_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

void unlock_grow(void)
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
int trace_fd_get(void)
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
int trace_reserve(uint64_t end)
{
	int err = 0;

	lock_grow();
	if (end > file_bytes) {
		uint64_t want = file_bytes + file_bytes / 4;
		int fd = trace_fd_get();

		if (want < file_bytes + (1 << 20))
			want = file_bytes + (1 << 20);
		if (want > map_bytes)
			want = map_bytes;
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

/* The checksum of a chunk's fields, where its payload's starts. */
uint64_t sum_fields(uint32_t used, uint32_t thread, uint64_t base_seq)
{
	uint64_t fields[2] = { (uint64_t)used | (uint64_t)thread << 32, base_seq };

	return trace_checksum_words(0xcbf29ce484222325ULL, fields, sizeof(fields));
}

/* H continued over P's bytes from I to USED, 8 bytes a load; the final checksum. */
uint64_t sum_rest(uint64_t h, const unsigned char *p, uint64_t i, uint64_t used)
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
uint64_t chunk_sum(uint32_t used, uint32_t thread, uint64_t base_seq, const void *payload)
{
	return sum_rest(sum_fields(used, thread, base_seq), payload, 0, used);
}

/* Seals chunk C as it is now (its used read once). */
static void chunk_seal(struct trace_chunk *c)
{
	uint32_t used = __atomic_load_n(&c->used, __ATOMIC_ACQUIRE);

	if (used > TRACE_PAYLOAD_BYTES)
		return;  /* not ours to judge: the reader will */
	__atomic_store_n(&c->check, chunk_sum(used, c->thread, c->base_seq, c + 1), __ATOMIC_RELEASE);
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
void trace_lose(enum trace_lost why, int err)
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
void trace_stop(enum trace_lost why, int err)
{
	int on = REC_ON;

	trace_lose(why, err);
	if (__atomic_compare_exchange_n(&rec_mode, &on, REC_STOPPED, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
	chunks_clip();
}

/*
 * VmHWM of /proc/self/status, KiB; 0 when unread. No allocation, a few
 * microseconds: it runs once, at the process image's end.
 */
static uint32_t status_hwm_kib(void)
{
	char buf[4096], *at;
	ssize_t n = 0, got;
	uint64_t kib = 0;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       ((got = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? got : 0;
	close(fd);
	buf[n] = '\0';
	at = strstr(buf, "\nVmHWM:");
	if (!at)
		return 0;
	for (at += 7; *at == ' ' || *at == '\t'; at++)
		;
	for (; *at >= '0' && *at <= '9' && kib < UINT32_MAX; at++)
		kib = kib * 10 + (uint64_t)(*at - '0');
	return kib < UINT32_MAX ? (uint32_t)kib : 0;
}

/*
 * Ends the trace: no more records, the file cut to the chunks claimed,
 * every chunk not sealed yet (the windows) sealed, then the header with
 * STATE. Calls other threads make after it are neither recorded nor
 * counted: they come after the end. A thread caught in the middle of a
 * record (a few instructions) may still change its chunk after the seal,
 * which a reader then reports as damage. EXIT_STATUS: -1 when not known.
 */
void trace_end(enum trace_state state, int exit_status)
{
	uint64_t chunks, end, end_ns;
	uint32_t known, hwm_kib;
	struct timespec now;
	int fd, before, saved = errno;

	if (!hdr)
		return;
	/* Ended before the lock: a signal handler's record now never waits for it. */
	before = __atomic_exchange_n(&rec_mode, REC_ENDED, __ATOMIC_ACQ_REL);
	if (before == REC_ENDED)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	end_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	hwm_kib = status_hwm_kib();
	errno = saved;
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
	/* The image's own figures, read at its end: record adds its peak anonymous memory. */
	hdr->hwm_kib = hwm_kib;
	hdr->run_ns = end_ns > hdr->start_ns ? end_ns - hdr->start_ns : 0;
	__atomic_store_n(&hdr->state, (uint32_t)state, __ATOMIC_RELEASE);
	__atomic_store_n(&hdr->header_check, trace_header_checksum(hdr), __ATOMIC_RELEASE);
	unlock_grow();
}

/*
 * The program's name for its trace's: the last part of /proc/self/exe's
 * target, at most RECORD_PROGRAM_MAX bytes, a byte other than a letter,
 * digit, '.', '_', '+' or '-' written as '_'. "program" when unknown.
 * Returns the end (a NUL there).
 */
static char *put_program(char *p)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *name = "program";
	size_t len;

	if (n > 0) {
		exe[n] = '\0';
		name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		if (!*name)
			name = "program";
	}
	for (len = 0; name[len] && len < RECORD_PROGRAM_MAX; len++) {
		char c = name[len];

		*p++ = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		       c == '.' || c == '_' || c == '+' || c == '-' ? c : '_';
	}
	*p = '\0';
	return p;
}

/*
 * Maps FD's trace: TRACE_MAP_MAX of address space, a quarter of an
 * address-space limit (ulimit -v) at most, the program keeping the rest;
 * where even that fails, half as much again, down to TRACE_MAP_MIN. Sets
 * map_bytes; returns the address, or MAP_FAILED.
 */
static void *map_trace(int fd)
{
	struct rlimit lim;
	void *map;

	map_bytes = TRACE_MAP_MAX;
	if (!getrlimit(RLIMIT_AS, &lim) && lim.rlim_cur != RLIM_INFINITY &&
	    lim.rlim_cur / 4 < map_bytes)
		map_bytes = lim.rlim_cur / 4 & ~(uint64_t)(TRACE_CHUNK_BYTES - 1);
	for (;;) {
		if (map_bytes < TRACE_MAP_MIN)
			map_bytes = TRACE_MAP_MIN;
		map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
			   fd, 0);
		if (map != MAP_FAILED || errno != ENOMEM || map_bytes == TRACE_MAP_MIN)
			return map;
		map_bytes /= 2;
	}
}

/*
 * Opens this process image's trace: FILE.PROGRAM.PID, FILE.PROGRAM.PID.N
 * (N from 2) when that exists (the same program exec'd again by the same
 * process, as often as it likes: a program that execs itself 20 times
 * once stopped being recorded at the tenth, silently). Sets hdr, or leaves
 * it NULL.
 */
void trace_open(void)
{
	const char *path = getenv("ALLOCBENCH_RECORD_FILE");
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
	for (unsigned long attempt = 1; attempt < TRACE_IMAGES_MAX && fd < 0; attempt++) {
		memcpy(trace_path, path, len + 1);
		end = trace_path + len;
		*end++ = '.';
		end = put_program(end);
		*end++ = '.';
		end = put_decimal(end, pid);
		if (attempt > 1) {
			*end++ = '.';
			put_decimal(end, attempt);
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
	map = map_trace(fd);
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

void trace_close_inherited(void)
{
	if (hdr)
		munmap(hdr, map_bytes);
	if (trace_fd >= 0)
		close(trace_fd);
	hdr = NULL;
	trace_fd = -1;
}

