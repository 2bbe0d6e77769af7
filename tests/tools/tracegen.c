/*
 * tracegen.c - writes a valid, sealed trace (trace_format.h) of a made-up
 * program, for make bench and the report tests: as large as asked, its live
 * set bounded.
 *
 *   tracegen OUT CALLS LIVE [THREADS [SEED]]
 *   tracegen OUT CALLS LIVE fifo
 *
 * CALLS calls (malloc, free and a few realloc and calloc) in THREADS threads
 * (1 by default), each thread's calls in runs of 64 (the process's order
 * interleaves them), whose live chunks peak at exactly LIVE: the live set
 * climbs to LIVE, falls to LIVE/2 and climbs again, over and over. Frees
 * take a young chunk more often than an old one (most chunks die young):
 * the one chosen is 2^k-th from the youngest with k uniform in 0..19, so
 * that a quarter of the frees reach chunks older than 30000 allocations.
 * Addresses come from a free list per size class, as an allocator reuses
 * them. Each thread's chunks are in the file in its order, sealed.
 *
 * fifo: one thread, LIVE mallocs of 24 bytes, then pairs of a free of the
 * oldest chunk and a malloc, to CALLS calls: with P pairs, P <= LIVE, the
 * chunks freed lived LIVE, LIVE + 1, ... LIVE + P - 1 calls.
 *
 * Exit status 0, or 2 with a message.
 */
#include "trace/trace_format.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLASSES 16     /* size classes of 16 bytes: 16 .. 256 */

struct live {
	uint64_t addr;
	uint32_t size;
};

struct thread {
	unsigned char chunk[TRACE_CHUNK_BYTES];
	unsigned char *p;      /* where the next record goes */
	uint64_t prev_seq, prev_ptr;
};

static FILE *out;
static uint64_t chunks;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "tracegen: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned char *varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static unsigned char *pointer(struct thread *t, unsigned char *p, uint64_t ptr)
{
	uint64_t d = ptr - t->prev_ptr;

	if (!ptr)
		return varint(p, 0);
	t->prev_ptr = ptr;
	if (!(d & 15))
		return varint(p, 1 + (zigzag((int64_t)d / 16) << 1));
	return varint(p, 1 + (zigzag((int64_t)d) << 1 | 1));
}

static void chunk_write(struct thread *t, uint32_t index)
{
	struct trace_chunk *c = (struct trace_chunk *)(void *)t->chunk;

	c->used = (uint32_t)(t->p - (t->chunk + sizeof(*c)));
	c->thread = index;
	c->check = trace_chunk_checksum(c);
	if (fwrite(t->chunk, TRACE_CHUNK_BYTES, 1, out) != 1)
		die("cannot write", NULL);
	chunks++;
}

/* Room for one more record in T's chunk, starting a new one (its base is the last seq) when full. */
static void room(struct thread *t, uint32_t index)
{
	struct trace_chunk *c = (struct trace_chunk *)(void *)t->chunk;

	if (t->p && t->p + TRACE_RECORD_MAX <= t->chunk + TRACE_CHUNK_BYTES)
		return;
	if (t->p)
		chunk_write(t, index);
	memset(t->chunk, 0, sizeof(t->chunk));
	c->base_seq = t->prev_seq;
	t->prev_ptr = 0;
	t->p = t->chunk + sizeof(*c);
}

/* One record: header, then up to four fields (pointers where IS_PTR's bit is set). */
static void record(struct thread *t, uint32_t index, unsigned kind, uint64_t seq, unsigned n,
		   const uint64_t *f, unsigned is_ptr)
{
	unsigned char *p;

	room(t, index);
	p = varint(t->p, zigzag((int64_t)(seq - t->prev_seq)) << 4 | kind);
	for (unsigned i = 0; i < n; i++)
		p = is_ptr >> i & 1 ? pointer(t, p, f[i]) : varint(p, f[i]);
	t->p = p;
	t->prev_seq = seq;
}

/* The fifo trace (above): chunk i at 0x100000 + 32 i. */
static void fifo(struct thread *t, uint64_t calls, uint64_t live_max)
{
	uint64_t seq = 0, oldest = 0, next = 0;

	while (seq < calls) {
		uint64_t f[2] = { 24, 0x100000 + 32 * next };

		if (next >= live_max && seq + 1 < calls) {
			uint64_t addr = 0x100000 + 32 * oldest++;

			record(t, 0, TRACE_FREE, ++seq, 1, &addr, 1);
		}
		record(t, 0, TRACE_MALLOC, ++seq, 2, f, 2);
		next++;
	}
}

static uint64_t number(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (!*s || *end)
		die("not a number", what);
	return v;
}

int main(int argc, char **argv)
{
	struct trace_header h = { .magic = TRACE_MAGIC };
	uint64_t calls, live_max, seq = 0, bump = 0x10000000, *free_list[CLASSES];
	size_t nfree[CLASSES] = { 0 };
	struct live *live;
	struct thread *th;
	size_t nlive = 0;
	uint32_t nthreads = 1;
	int growing = 1;
	static char buf[1 << 20];

	if (argc < 4 || argc > 6)
		die("usage: tracegen OUT CALLS LIVE [THREADS [SEED]]", NULL);
	calls = number(argv[2], "CALLS");
	live_max = number(argv[3], "LIVE");
	if (argc > 4 && strcmp(argv[4], "fifo"))
		nthreads = (uint32_t)number(argv[4], "THREADS");
	if (argc > 5)
		rng += number(argv[5], "SEED");
	if (live_max < 2 || !nthreads || nthreads > 4096)
		die("LIVE must be 2 or more, THREADS 1 to 4096", NULL);
	live = malloc(live_max * sizeof(*live));
	th = calloc(nthreads, sizeof(*th));
	for (unsigned c = 0; c < CLASSES; c++)
		free_list[c] = malloc(live_max * sizeof(uint64_t));
	out = fopen(argv[1], "wb");
	if (!live || !th || !out || !free_list[CLASSES - 1])
		die("cannot start", argv[1]);
	setvbuf(out, buf, _IOFBF, sizeof(buf));
	if (fseek(out, TRACE_HEADER_BYTES, SEEK_SET))
		die("cannot write", argv[1]);
	if (argc > 4 && !strcmp(argv[4], "fifo")) {
		fifo(th, calls, live_max);
		calls = 0;  /* nothing more */
	}
	for (uint64_t n = 0; n < calls; n++) {
		uint32_t index = (uint32_t)(n / 64 % nthreads);
		struct thread *t = &th[index];
		uint64_t r = next_random();

		if (nlive == live_max)
			growing = 0;
		else if (nlive <= live_max / 2)
			growing = 1;
		if (nlive == live_max || (nlive && (growing ? r % 8 < 3 : r % 8 < 5))) {
			/* A free (or a realloc of the same class) of the 2^k-th youngest. */
			uint64_t back = ((uint64_t)1 << (r >> 8) % 20) - 1;
			size_t i = back < nlive ? nlive - 1 - back : nlive - 1;
			struct live victim = live[i];
			unsigned c = (victim.size - 1) / 16;

			if ((r >> 16) % 64 == 0) {
				uint64_t f[4] = { victim.addr, victim.size, victim.addr, 1 };

				record(t, index, TRACE_REALLOC, ++seq, 4, f, 5);
				seq++;  /* its allocation half's place */
				continue;
			}
			live[i] = live[--nlive];
			free_list[c][nfree[c]++] = victim.addr;
			record(t, index, TRACE_FREE, ++seq, 1, &victim.addr, 1);
		} else {
			unsigned c = (unsigned)(r >> 24) % CLASSES;
			uint32_t size = 16 * c + 1 + (uint32_t)(r >> 32) % 16;
			uint64_t addr = nfree[c] ? free_list[c][--nfree[c]] : (bump += 16 * (c + 1));

			live[nlive++] = (struct live){ addr, size };
			if ((r >> 40) % 32 == 0) {
				uint64_t f[3] = { 1, size, addr };

				record(t, index, TRACE_CALLOC, ++seq, 3, f, 4);
			} else {
				uint64_t f[2] = { size, addr };

				record(t, index, TRACE_MALLOC, ++seq, 2, f, 2);
			}
		}
	}
	for (uint32_t i = 0; i < nthreads; i++)
		if (th[i].p && th[i].p > th[i].chunk + sizeof(struct trace_chunk))
			chunk_write(&th[i], i);
	h.version = TRACE_VERSION;
	h.header_bytes = TRACE_HEADER_BYTES;
	h.chunk_bytes = TRACE_CHUNK_BYTES;
	h.state = TRACE_STATE_EXIT;
	h.chunks = chunks;
	h.threads = nthreads;
	h.pid = 4242;
	h.start_ns = (uint64_t)time(NULL) * 1000000000u;
	snprintf(h.command, sizeof(h.command), "tracegen");
	{
		unsigned char raw[TRACE_HEADER_BYTES] = { 0 };

		memcpy(raw, &h, sizeof(h));
		((struct trace_header *)(void *)raw)->header_check =
			trace_header_checksum((const struct trace_header *)(const void *)raw);
		if (fseek(out, 0, SEEK_SET) || fwrite(raw, sizeof(raw), 1, out) != 1 || fclose(out))
			die("cannot write", argv[1]);
	}
	for (unsigned c = 0; c < CLASSES; c++)
		free(free_list[c]);
	free(live);
	free(th);
	return 0;
}
