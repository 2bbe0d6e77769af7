/*
 * trace_v3_write.c - converting a trace of version 1 or 2 to version 3
 * (trace_v3.h): its calls taken in the process's order (trace_merge()),
 * each chunk followed by address as report's analysis follows it
 * (trace_analyze.c), so that the reader of version 3 hands on the same
 * steps and report and replay give the same figures.
 */
#include "trace/trace.h"
#include "trace/trace_live.h"
#include "trace/trace_read.h"
#include "trace/trace_v3.h"
#include "platform/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* A thread's size and its index + 1 (0: an empty place). */
struct size_entry {
	uint64_t size;
	uint32_t thread;
	uint32_t code;
};

struct enc {
	int fd;
	uint64_t at;                /* where the next block goes */
	unsigned char *raw, *zbuf;  /* the block's records; its frame */
	unsigned char *blk;         /* the block as it is compressed: records, then ranks */
	size_t n, zmax;
	uint32_t *ranks;            /* the block's ranks, in its records' order */
	size_t nranks;
	uint32_t rank_max;
	uint64_t last_free;         /* the rank of the last free's chunk (V3_FREE_NEAR) */
	ZSTD_CCtx *cctx;
	int level;
	uint64_t blocks, calls;
	struct addr_map map;        /* the live chunks by address: their slot in LIVE */
	struct lrank live;
	struct size_entry *sizes;   /* open addressing by (thread, size) */
	size_t sizes_mask, nsizes;
	uint32_t *thread_sizes;     /* per thread: sizes it has used */
	uint32_t thread;
	uint64_t prev;              /* the last record's place */
	uint64_t next;              /* the place a record takes when no gap is said:
				       prev's next, past the second halves there */
	int err;                    /* an errno, or ENOMEM */
	const volatile sig_atomic_t *stop;  /* set: stop (EINTR) */
	uint32_t steps;             /* since STOP was last looked at */
};

static void put_b(struct enc *w, unsigned b)
{
	w->raw[w->n++] = (unsigned char)b;
}

/* V as a varint at P; the bytes written. */
static size_t varint_at(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)((v & 0x7f) | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static void put_v(struct enc *w, uint64_t v)
{
	w->n += varint_at(w->raw + w->n, v);
}

/* A chunk's rank, into the block's ranks (below its records: trace_v3.h). */
static void put_rank(struct enc *w, uint64_t k)
{
	w->ranks[w->nranks++] = (uint32_t)k;
	if (k > w->rank_max)
		w->rank_max = (uint32_t)k;
}

/* The bytes of a rank up to V in the block's planes. */
static unsigned rank_width(uint64_t v)
{
	unsigned n = 1;

	while (n < 8 && v >> (8 * n))
		n++;
	return n;
}

/*
 * What the block would take with EXTRA more ranks, each at most LIVE: its
 * length (a varint, up to 10 bytes), its records, and every rank at the
 * width of the largest.
 */
static size_t block_bytes(const struct enc *w, size_t extra, uint64_t live)
{
	unsigned width = rank_width(w->rank_max > live ? w->rank_max : live);

	return 10 + w->n + (w->nranks + extra) * width;
}

static int write_all(struct enc *w, const void *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = pwrite(w->fd, (const char *)p + done, n - done, (off_t)(w->at + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? errno : EIO;
			return -1;
		}
		done += (size_t)k;
	}
	w->at += n;
	return 0;
}

/* The records gathered, compressed into a block. */
static int flush_block(struct enc *w)
{
	struct trace_block b = { 0 };
	size_t z, at;

	if (!w->n)
		return 0;
	at = varint_at(w->blk, w->n);
	memcpy(w->blk + at, w->raw, w->n);
	at += w->n;
	if (w->nranks) {
		unsigned width = rank_width(w->rank_max);

		w->blk[at++] = (unsigned char)width;
		for (unsigned j = width; j--; )
			for (size_t i = 0; i < w->nranks; i++)
				w->blk[at++] = (unsigned char)(w->ranks[i] >> (8 * j));
	}
	z = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zmax, w->blk, at, w->level);
	if (ZSTD_isError(z)) {
		w->err = ENOMEM;
		return -1;
	}
	b.zbytes = (uint32_t)z;
	b.raw = (uint32_t)at;
	b.check = trace_block_checksum(&b, w->zbuf);
	if (write_all(w, &b, sizeof(b)) || write_all(w, w->zbuf, z))
		return -1;
	w->blocks++;
	w->n = 0;
	w->nranks = 0;
	w->rank_max = 0;
	return 0;
}

/* Size SIZE of the current thread as a size code (a new one: 0, the size to follow). */
static uint64_t size_code(struct enc *w, uint64_t size)
{
	size_t j = (size_t)(size * 0x9e3779b97f4a7c15ULL ^ w->thread * 0xff51afd7ed558ccdULL) >> 7;
	struct size_entry *e;

	for (j &= w->sizes_mask; w->sizes[j].code; j = (j + 1) & w->sizes_mask)
		if (w->sizes[j].size == size && w->sizes[j].thread == w->thread)
			return w->sizes[j].code;
	if ((w->nsizes + 1) * 2 > w->sizes_mask + 1) {
		struct size_entry *old = w->sizes;
		size_t cap = (w->sizes_mask + 1) * 2;

		w->sizes = calloc(cap, sizeof(*w->sizes));
		if (!w->sizes) {
			w->sizes = old;
			w->err = ENOMEM;
			return 0;
		}
		w->sizes_mask = cap - 1;
		for (size_t i = 0; i <= cap / 2 - 1; i++) {
			size_t k;

			if (!old[i].code)
				continue;
			k = (size_t)(old[i].size * 0x9e3779b97f4a7c15ULL ^ old[i].thread * 0xff51afd7ed558ccdULL) >> 7;
			for (k &= w->sizes_mask; w->sizes[k].code; k = (k + 1) & w->sizes_mask)
				;
			w->sizes[k] = old[i];
		}
		free(old);
		return size_code(w, size);
	}
	e = &w->sizes[j];
	*e = (struct size_entry){ size, w->thread, ++w->thread_sizes[w->thread] };
	w->nsizes++;
	return 0;
}

/* A size code whose first part goes into a record's first byte (OP): the rest after it. */
static void put_size_nib(struct enc *w, unsigned op, uint64_t size)
{
	uint64_t code = size_code(w, size);

	put_b(w, op | (unsigned)(code < 15 ? code : 15) << 4);
	if (code >= 15)
		put_v(w, code - 15);
	if (!code)
		put_v(w, size);
}

static void put_size(struct enc *w, uint64_t size)
{
	uint64_t code = size_code(w, size);

	put_v(w, code);
	if (!code)
		put_v(w, size);
}

/* The live chunk at ADDR: its slot in W->live, or UINT64_MAX. */
static uint64_t slot_of(struct enc *w, uint64_t addr)
{
	struct live *e = addr ? map_find(&w->map, addr) : NULL;

	return e && e->addr ? e->slot : UINT64_MAX;
}

static void forget(struct enc *w, uint64_t addr)
{
	struct live *e = map_find(&w->map, addr);

	lrank_remove(&w->live, e->slot);
	map_remove(&w->map, e);
}

/* A chunk at ADDR handed out again without a free (at place AT): dropped, as report's analysis drops it. */
static void drop_if_live(struct enc *w, uint64_t addr, uint64_t at)
{
	uint64_t slot = slot_of(w, addr);

	if (slot == UINT64_MAX)
		return;
	put_b(w, V3_CONTROL | V3_DROP << 4);
	put_v(w, at - w->prev);
	put_rank(w, lrank_rank(&w->live, slot));
	forget(w, addr);
}

/* A new chunk at ADDR (at place AT). Returns 0, or -1 out of memory. */
static int born(struct enc *w, uint64_t addr, uint64_t at)
{
	uint64_t moved = w->live.next == w->live.cap;
	int64_t got;
	struct live *e;

	drop_if_live(w, addr, at);
	if ((map_full(&w->map) && map_grow(&w->map)) ||
	    (got = lrank_push(&w->live, addr)) < 0 || w->live.cap > UINT32_MAX) {
		w->err = ENOMEM;
		return -1;
	}
	e = map_find(&w->map, addr);
	*e = (struct live){ .addr = addr, .slot = (uint32_t)got };
	w->map.n++;
	for (uint64_t i = 0; moved && i < w->live.next; i++)
		map_find(&w->map, w->live.addr[i])->slot = (uint32_t)i;
	return 0;
}

static int realloc_half0(struct enc *w, const struct trace_event *e)
{
	uint64_t slot = slot_of(w, e->ptr), k = 0;
	unsigned n = e->ret ? 0 : 1;

	if (e->seq2 != e->seq + 1)
		n |= 2;
	if (!e->ptr)
		n |= 4;
	else if (slot == UINT64_MAX)
		n |= 8;
	else
		k = lrank_rank(&w->live, slot);
	put_b(w, TRACE_REALLOC | n << 4);
	if (!(n & 12))
		put_rank(w, k);
	put_size(w, e->size);
	if (n & 2)
		put_v(w, e->seq2 - e->seq - 2);
	if (slot != UINT64_MAX && (e->ret || !e->size))
		forget(w, e->ptr);
	return 0;
}

static void free_rec(struct enc *w, const struct trace_event *e)
{
	uint64_t slot = slot_of(w, e->ptr), k;

	if (!e->ptr || slot == UINT64_MAX) {
		put_b(w, TRACE_FREE | (e->ptr ? 15 : 14) << 4);
		return;
	}
	if (e->align) {
		put_b(w, V3_CONTROL | V3_PAGES << 4);
		put_v(w, e->size);
		put_v(w, e->align);
	}
	k = lrank_rank(&w->live, slot);
	if (k >= 13 && k + 1 >= w->last_free && k + 1 - w->last_free < 16) {
		put_b(w, V3_FREE_NEAR | (unsigned)(k + 1 - w->last_free) << 4);
	} else {
		put_b(w, TRACE_FREE | (unsigned)(k < 13 ? k : 13) << 4);
		if (k >= 13)
			put_rank(w, k - 13);
	}
	w->last_free = k;
	forget(w, e->ptr);
}

static int alloc_rec(struct enc *w, const struct trace_event *e)
{
	int extra = e->kind == TRACE_CALLOC || e->kind == TRACE_POSIX_MEMALIGN ||
		    e->kind == TRACE_ALIGNED_ALLOC || e->kind == TRACE_MEMALIGN;

	if (!e->ret) {
		put_b(w, V3_FAILED);
		put_b(w, e->kind);
		put_size(w, e->size);
	} else {
		put_size_nib(w, e->kind, e->size);
	}
	if (extra)
		put_v(w, e->align);
	return e->ret ? born(w, e->ret, e->seq) : 0;
}

/* trace_merge()'s sink: each step of the trace converted, in the process's order. */
static int enc_step(void *ctx, const struct trace_event *e, unsigned half, uint64_t call,
		    uint64_t *pending)
{
	struct enc *w = ctx;

	(void)call;
	(void)pending;
	if (!(++w->steps & 0xffff) && w->stop && *w->stop) {
		w->err = EINTR;
		return -1;
	}
	/* A step writes up to 5 records (thread, gap, drop, pages, call) and 2 ranks. */
	if (block_bytes(w, 2, w->live.live + 2) + 5 * TRACE_RECORD_MAX > V3_BLOCK_RAW &&
	    flush_block(w))
		return -1;
	if (half) {
		/* The reader skips it too, being open there (trace_v3.h). */
		if (e->seq2 == w->next)
			w->next++;
		return e->ret ? born(w, e->ret, e->seq2) : 0;
	}
	if (e->kind != TRACE_FREE && e->kind != TRACE_REALLOC && e->ret)
		drop_if_live(w, e->ret, e->seq);
	if (e->thread != w->thread) {
		w->thread = e->thread;
		put_b(w, V3_CONTROL | V3_THREAD << 4);
		put_v(w, e->thread);
	}
	if (e->seq != w->next) {
		put_b(w, V3_CONTROL | V3_GAP << 4);
		put_v(w, e->seq - w->prev - 1);
	}
	w->prev = e->seq;
	w->next = e->seq + 1;
	w->calls++;
	if (e->kind == TRACE_FREE)
		free_rec(w, e);
	else if (e->kind == TRACE_REALLOC)
		return realloc_half0(w, e) || w->err ? -1 : 0;
	else
		return alloc_rec(w, e) || w->err ? -1 : 0;
	return w->err ? -1 : 0;
}

static int enc_init(struct enc *w, uint32_t threads, int level, uint64_t live_guess)
{
	w->level = level;
	w->at = TRACE_HEADER_BYTES;
	w->next = 1;
	w->zmax = ZSTD_compressBound(V3_BLOCK_RAW);
	w->raw = malloc(V3_BLOCK_RAW);
	w->blk = malloc(V3_BLOCK_RAW);
	w->ranks = malloc(V3_BLOCK_RAW * sizeof(*w->ranks));
	w->zbuf = malloc(w->zmax);
	w->cctx = ZSTD_createCCtx();
	w->sizes_mask = 63;
	w->sizes = calloc(64, sizeof(*w->sizes));
	w->thread_sizes = calloc(threads ? threads : 1, sizeof(*w->thread_sizes));
	if (!w->raw || !w->blk || !w->ranks || !w->zbuf || !w->cctx || !w->sizes || !w->thread_sizes || map_init(&w->map, map_cap_for(live_guess)))
		return -1;
	return 0;
}

static void enc_release(struct enc *w)
{
	free(w->raw);
	free(w->blk);
	free(w->ranks);
	free(w->zbuf);
	ZSTD_freeCCtx(w->cctx);
	free(w->sizes);
	free(w->thread_sizes);
	if (w->map.e)
		map_release(&w->map);
	lrank_release(&w->live);
}

/* T's header as version 3's, sealed, at the file's start. */
static int write_header(struct enc *w, const struct trace *t)
{
	union {
		struct trace_header h;
		unsigned char raw[TRACE_HEADER_BYTES];
	} head;

	memset(&head, 0, sizeof(head));
	head.h = t->header;
	head.h.version = TRACE_VERSION_V3;
	head.h.chunk_bytes = 0;
	head.h.chunks = w->blocks;
	head.h.v3_calls = w->calls;
	head.h.v3_unsealed = t->unsealed_chunks;
	head.h.v3_sealed = (uint32_t)t->sealed;
	head.h.v3_level = (uint32_t)w->level;
	head.h.header_check = 0;
	head.h.header_check = trace_header_checksum(&head.h);
	w->at = 0;
	return write_all(w, head.raw, sizeof(head.raw));
}

/* FROM's calls, read from R into T and S, written to the descriptor in W. Returns 0, or -1. */
static int convert_into(struct reader *r, struct trace *t, struct scan *s, struct enc *w)
{
	r->why[0] = '\0';
	if (trace_merge(r, t, s, enc_step, NULL, w)) {
		if (!r->why[0])
			reader_fail(r, "cannot be converted: %s", strerror(w->err ? w->err : ENOMEM));
		return -1;
	}
	if (flush_block(w) || write_header(w, t))
		return reader_fail(r, "cannot be converted: %s", strerror(w->err));
	return 0;
}

int trace_v3_convert(const char *from, const char *to, int level, const volatile sig_atomic_t *stop,
		     char *why, size_t why_size)
{
	struct reader r;
	struct trace t;
	struct scan s;
	struct enc w = { .fd = -1, .stop = stop };
	char tmp[PATH_MAX + 16], target[PATH_MAX];
	int ret = -1;

	memset(&t, 0, sizeof(t));
	if (reader_open(&r, from, why, why_size))
		return -1;
	t.file_bytes = r.size;
	if (trace_scan(&r, &t, &s))
		goto out_reader;
	if (t.header.version == TRACE_VERSION_V3) {
		reader_fail(&r, "is of format version 3 already");
		goto out_scan;
	}
	/* A symbolic link is written through: its target replaced, the link kept. */
	if (realpath(to, target))
		to = target;
	if (snprintf(tmp, sizeof(tmp), "%s.v3-XXXXXX", to) >= (int)sizeof(tmp)) {
		snprintf(why, why_size, "cannot write '%s': its name is too long", to);
		goto out_scan;
	}
	w.fd = mkstemp(tmp);
	if (w.fd < 0) {
		snprintf(why, why_size, "cannot write '%s': %s", to, strerror(errno));
		goto out_scan;
	}
	if (enc_init(&w, t.header.threads, level, trace_live_guess(&s))) {
		reader_fail(&r, "cannot be converted: out of memory");
	} else if (!convert_into(&r, &t, &s, &w)) {
		mode_t mask = umask(0);

		umask(mask);
		if (fchmod(w.fd, 0666 & ~mask) || rename(tmp, to))
			snprintf(why, why_size, "cannot write '%s': %s", to, strerror(errno));
		else
			ret = 0;
	}
	close(w.fd);
	if (ret)
		unlink(tmp);
	enc_release(&w);
out_scan:
	scan_release(&s);
out_reader:
	if (r.fd >= 0)
		close(r.fd);
	return ret;
}
