/*
 * recorder_window.c - each thread's window of chunks (recorder.h): claimed
 * as first needed, copied into fresh chunks of the file with one write when
 * full, and started again.
 */
#include "trace/recorder.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

__thread struct thread_state ts __attribute__((tls_model("initial-exec")));
uint64_t seq_counter;
int threaded;

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

/*
 * Makes the file cover chunk K, its blocks reserved; returns its address,
 * or NULL after stopping the trace (the file cannot grow).
 */
static struct trace_chunk *chunk_at(uint64_t k)
{
	uint64_t end = TRACE_HEADER_BYTES + (k + 1) * TRACE_CHUNK_BYTES;
	int err;

	if (end > __atomic_load_n(&file_bytes, __ATOMIC_ACQUIRE) && (err = trace_reserve(end))) {
		trace_stop(TRACE_LOST_WRITE, err);
		return NULL;
	}
	return chunk_addr(k);
}

/* Claims N consecutive chunks that the file covers; the first, or NULL (the trace stopped). */
static struct trace_chunk *chunks_claim(uint64_t n)
{
	uint64_t k = __atomic_load_n(&hdr->chunks, __ATOMIC_ACQUIRE);

	/*
	 * Never past the mapping's end: chunks claimed below it by a claim
	 * that fails there would stay unsealed. ENOMEM: the address-space
	 * limit (ulimit -v) made the mapping smaller.
	 */
	do {
		if (TRACE_HEADER_BYTES + (k + n) * TRACE_CHUNK_BYTES > map_bytes) {
			trace_stop(TRACE_LOST_FULL, map_bytes < TRACE_MAP_MAX ? ENOMEM : 0);
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&hdr->chunks, &k, k + n, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
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
__attribute__((noinline)) struct trace_chunk *window_next(void)
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
__attribute__((noinline)) void rec_lost(void)
{
	if (__atomic_load_n(&rec_mode, __ATOMIC_ACQUIRE) == REC_STOPPED)
		__atomic_fetch_add(&hdr->lost, 1, __ATOMIC_RELAXED);
}

