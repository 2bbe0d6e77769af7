/*
 * tracetool.c - the tests' maker and breaker of traces (trace_format.h):
 *
 *   tracetool reseal IN OUT     IN as a sealed version 2 trace that ended by
 *                               exit: every chunk's check, then header_check
 *   tracetool v1 IN OUT         IN (version 2) rewritten as version 1: 16-byte
 *                               chunk headers, no checksums
 *   tracetool flip IN OUT SEED  IN with one bit flipped, chosen from SEED among
 *                               the bytes that mean something (the header,
 *                               each chunk's header and used bytes); prints
 *                               the byte offset
 *   tracetool flipany IN OUT SEED  the same, any bit of the file; prints the
 *                               offset, and "unused" when the byte means nothing
 *   tracetool threads IN OUT N  IN with its header's threads set to N and
 *                               its header_check computed again
 *   tracetool make OUT VERSION  a trace from the records on standard input,
 *                               one a line (sealed when VERSION is 2 and
 *                               the state not 0; else the chunks with seal=1):
 *                                 header threads=N state=S chunks=N lost=N
 *                                        [anon_kib=N hwm_kib=N run_ns=N]
 *                                 chunk thread=T base=SEQ [used=N] [seal=1]
 *                                 KIND seq=N [size= ptr= ret= align= nmemb= done=]
 *                                 free seq=N ptr=P pages=N resident=N (TRACE_FREE_PAGES)
 *                               (KIND as trace_kind_name(); numbers decimal
 *                               or 0x...)
 *   tracetool v3 OUT THREADS LOST CALLS HEX  a version 3 trace of one
 *                               block whose raw bytes are HEX (trace_v3.h:
 *                               varint R, R bytes of records, the ranks),
 *                               in a zstd frame that stores them as they
 *                               are; the header says THREADS, LOST, CALLS
 *
 * Exit status 0, or 2 with a message.
 */
#include "trace/trace_format.h"
#include "trace/trace_v3.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *data;
static size_t size;

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "tracetool: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n = 0;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read", path);
	size = (size_t)n;
	data = calloc(size + TRACE_CHUNK_BYTES, 1);
	if (!data || fread(data, 1, size, f) != size)
		die("cannot read", path);
	fclose(f);
}

static void save(const char *path, const unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, n, f) != n || fclose(f))
		die("cannot write", path);
}

static struct trace_header *header(void)
{
	return (struct trace_header *)(void *)data;
}

static uint64_t nchunks(void)
{
	uint64_t n = (size - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;

	return header()->chunks < n ? header()->chunks : n;
}

static struct trace_chunk *chunk(uint64_t k)
{
	return (struct trace_chunk *)(void *)(data + TRACE_HEADER_BYTES + k * TRACE_CHUNK_BYTES);
}

static void seal(void)
{
	for (uint64_t k = 0; k < nchunks(); k++)
		chunk(k)->check = trace_chunk_checksum(chunk(k));
	if (header()->state == TRACE_STATE_WRITING)
		header()->state = TRACE_STATE_EXIT;
	header()->header_check = trace_header_checksum(header());
}

/* xorshift64*: the same flips for the same seed everywhere. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Whether byte AT of a version 2 trace means something. */
static int covered(uint64_t at)
{
	uint64_t k, in;

	if (at < TRACE_HEADER_BYTES)
		return 1;
	k = (at - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
	in = (at - TRACE_HEADER_BYTES) % TRACE_CHUNK_BYTES;
	if (k >= nchunks())
		return 1;  /* past the chunks: must be zero */
	return in < sizeof(struct trace_chunk) + chunk(k)->used;
}

static void flip(const char *in, const char *out, const char *seed_text, int any)
{
	uint64_t seed = strtoull(seed_text, NULL, 0) * 0x9e3779b97f4a7c15ULL + 1, at;
	unsigned bit;

	load(in);
	if (!size)
		die("empty", in);
	do {
		at = next_random(&seed) % size;
	} while (!any && !covered(at));
	bit = (unsigned)(next_random(&seed) % 8);
	printf("%llu%s\n", (unsigned long long)at, covered(at) ? "" : " unused");
	data[at] ^= (unsigned char)(1u << bit);
	save(out, data, size);
}

static void to_v1(const char *in, const char *out)
{
	unsigned char *v1;

	load(in);
	if (header()->version != 2)
		die("not a version 2 trace", in);
	v1 = calloc(size + 1, 1);
	if (!v1)
		die("out of memory", NULL);
	memcpy(v1, data, TRACE_HEADER_BYTES);
	memset(v1 + offsetof(struct trace_header, lost_why), 0,
	       TRACE_HEADER_BYTES - offsetof(struct trace_header, lost_why));
	((struct trace_header *)(void *)v1)->version = 1;
	for (uint64_t k = 0; k < nchunks(); k++) {
		unsigned char *to = v1 + TRACE_HEADER_BYTES + k * TRACE_CHUNK_BYTES;

		memcpy(to, chunk(k), TRACE_CHUNK_HEADER_V1_BYTES);
		memcpy(to + TRACE_CHUNK_HEADER_V1_BYTES, chunk(k) + 1, chunk(k)->used);
	}
	save(out, v1, size);
}

/* ------------------------------------------------------------ make */

static unsigned char *pos, *start;
static uint64_t prev_seq, prev_ptr;
static struct trace_chunk *cur;
static int explicit_used;

/* The most chunks a made trace holds (16 MiB, taken as they are written). */
#define MAKE_CHUNKS 4096

static void varint(uint64_t v)
{
	while (v >= 0x80) {
		*pos++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*pos++ = (unsigned char)v;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void ptr(uint64_t p)
{
	int64_t d;

	if (!p) {
		varint(0);
		return;
	}
	d = (int64_t)(p - prev_ptr);
	prev_ptr = p;
	varint(((d & 15) ? zz(d) << 1 | 1 : zz(d / 16) << 1) + 1);
}

static uint64_t field(const char *line, const char *name, uint64_t dflt)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	return p ? strtoull(p + strlen(key), NULL, 0) : dflt;
}

static void chunk_close(void)
{
	if (cur && !explicit_used)
		cur->used = (uint32_t)(pos - start);
}

static void make(const char *out, unsigned version)
{
	static const char *const kinds[] = { "", "malloc", "calloc", "realloc", "free",
		"posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc" };
	size_t cap = TRACE_HEADER_BYTES + MAKE_CHUNKS * TRACE_CHUNK_BYTES;
	uint32_t hb = version == 1 ? TRACE_CHUNK_HEADER_V1_BYTES : (uint32_t)sizeof(struct trace_chunk);
	char line[512];
	uint64_t n = 0, chunks_field = UINT64_MAX;
	static int seal_chunk[MAKE_CHUNKS];

	data = calloc(cap, 1);
	size = TRACE_HEADER_BYTES;
	memcpy(header()->magic, TRACE_MAGIC, 8);
	header()->version = version;
	header()->header_bytes = TRACE_HEADER_BYTES;
	header()->chunk_bytes = TRACE_CHUNK_BYTES;
	header()->threads = 1;
	header()->state = TRACE_STATE_EXIT;
	header()->exit_status = 0;
	strcpy(header()->command, "tracetool");
	while (fgets(line, sizeof(line), stdin)) {
		char word[32] = "";
		unsigned kind = 0;

		line[strcspn(line, "\n")] = ' ';
		if (sscanf(line, "%31s", word) != 1 || word[0] == '#')
			continue;
		if (!strcmp(word, "header")) {
			header()->threads = (uint32_t)field(line, "threads", 1);
			header()->state = (uint32_t)field(line, "state", TRACE_STATE_EXIT);
			header()->lost = field(line, "lost", 0);
			header()->lost_why = (uint32_t)field(line, "lost_why", 0);
			header()->lost_errno = (int32_t)field(line, "lost_errno", 0);
			chunks_field = field(line, "chunks", UINT64_MAX);
			header()->anon_peak_kib = (uint32_t)field(line, "anon_kib", 0);
			header()->hwm_kib = (uint32_t)field(line, "hwm_kib", 0);
			header()->run_ns = field(line, "run_ns", 0);
			continue;
		}
		if (!strcmp(word, "chunk")) {
			chunk_close();
			if (n == MAKE_CHUNKS)
				die("more chunks than a made trace holds", NULL);
			cur = chunk(n++);
			size = TRACE_HEADER_BYTES + n * TRACE_CHUNK_BYTES;
			cur->thread = (uint32_t)field(line, "thread", 0);
			cur->base_seq = prev_seq = field(line, "base", 0);
			prev_ptr = 0;
			start = pos = (unsigned char *)cur + hb;
			explicit_used = strstr(line, " used=") != NULL;
			seal_chunk[n - 1] = (int)field(line, "seal", 0);
			if (explicit_used)
				cur->used = (uint32_t)field(line, "used", 0);
			continue;
		}
		for (unsigned k = 1; k < TRACE_KINDS; k++)
			if (!strcmp(word, kinds[k]))
				kind = k;
		if (!kind || !cur)
			die("not a header, chunk or record line (or no chunk yet)", line);
		if (kind == TRACE_FREE && strstr(line, " pages="))
			kind = TRACE_FREE_PAGES;
		{
			uint64_t seq = field(line, "seq", prev_seq + 1);

			varint(zz((int64_t)(seq - prev_seq)) << 4 | kind);
			prev_seq = seq;
		}
		switch (kind) {
		case TRACE_CALLOC:
			varint(field(line, "nmemb", 1));
			varint(field(line, "size", 0));
			ptr(field(line, "ret", 0));
			break;
		case TRACE_POSIX_MEMALIGN:
		case TRACE_ALIGNED_ALLOC:
		case TRACE_MEMALIGN:
			varint(field(line, "align", 16));
			varint(field(line, "size", 0));
			ptr(field(line, "ret", 0));
			break;
		case TRACE_REALLOC:
			ptr(field(line, "ptr", 0));
			varint(field(line, "size", 0));
			ptr(field(line, "ret", 0));
			varint(field(line, "done", 1));
			break;
		case TRACE_FREE:
			ptr(field(line, "ptr", 0));
			break;
		case TRACE_FREE_PAGES:
			ptr(field(line, "ptr", 0));
			varint(field(line, "resident", 0));
			varint(field(line, "pages", 0));
			break;
		default:
			varint(field(line, "size", 0));
			ptr(field(line, "ret", 0));
		}
	}
	chunk_close();
	header()->chunks = chunks_field != UINT64_MAX ? chunks_field : n;
	if (version == 2 && header()->state != TRACE_STATE_WRITING) {
		for (uint64_t k = 0; k < n; k++)
			chunk(k)->check = trace_chunk_checksum(chunk(k));
		header()->header_check = trace_header_checksum(header());
	}
	for (uint64_t k = 0; version == 2 && k < n; k++)
		if (seal_chunk[k])
			chunk(k)->check = trace_chunk_checksum(chunk(k));
	save(out, data, size);
}

/* ------------------------------------------------------------ v3 */

static void v3(const char *out, const char *threads, const char *lost, const char *calls,
	       const char *hex)
{
	size_t nraw = strlen(hex) / 2, at;
	unsigned char *frame;
	struct trace_block b = { 0 };
	uint32_t bh;

	if (strlen(hex) % 2 || nraw == 0 || nraw > 255)
		die("HEX: 1 to 255 bytes, two digits each", hex);
	/* A zstd frame: magic, single segment with a 1-byte content size, one raw block. */
	frame = calloc(1, 9 + nraw);
	memcpy(frame, "\x28\xb5\x2f\xfd\x20", 5);
	frame[5] = (unsigned char)nraw;
	bh = 1 | (uint32_t)nraw << 3;
	frame[6] = (unsigned char)bh;
	frame[7] = (unsigned char)(bh >> 8);
	frame[8] = (unsigned char)(bh >> 16);
	for (size_t i = 0; i < nraw; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			die("HEX: not hexadecimal", hex);
		frame[9 + i] = (unsigned char)v;
	}
	b.zbytes = (uint32_t)(9 + nraw);
	b.raw = (uint32_t)nraw;
	b.check = trace_block_checksum(&b, frame);
	size = TRACE_HEADER_BYTES + sizeof(b) + b.zbytes;
	data = calloc(size, 1);
	memcpy(header()->magic, TRACE_MAGIC, 8);
	header()->version = TRACE_VERSION_V3;
	header()->header_bytes = TRACE_HEADER_BYTES;
	header()->state = TRACE_STATE_EXIT;
	header()->chunks = 1;
	header()->threads = (uint32_t)strtoul(threads, NULL, 0);
	header()->lost = strtoull(lost, NULL, 0);
	header()->lost_why = header()->lost ? TRACE_LOST_FULL : TRACE_LOST_NONE;
	header()->v3_calls = strtoull(calls, NULL, 0);
	header()->v3_sealed = !header()->lost;
	strcpy(header()->command, "tracetool");
	header()->header_check = trace_header_checksum(header());
	at = TRACE_HEADER_BYTES;
	memcpy(data + at, &b, sizeof(b));
	memcpy(data + at + sizeof(b), frame, b.zbytes);
	free(frame);
	save(out, data, size);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "reseal")) {
		load(argv[2]);
		if (size < TRACE_HEADER_BYTES || header()->version != 2)
			die("not a version 2 trace", argv[2]);
		seal();
		save(argv[3], data, size);
	} else if (argc == 4 && !strcmp(argv[1], "v1")) {
		to_v1(argv[2], argv[3]);
	} else if (argc == 5 && !strcmp(argv[1], "flip")) {
		flip(argv[2], argv[3], argv[4], 0);
	} else if (argc == 5 && !strcmp(argv[1], "flipany")) {
		flip(argv[2], argv[3], argv[4], 1);
	} else if (argc == 5 && !strcmp(argv[1], "threads")) {
		load(argv[2]);
		if (size < TRACE_HEADER_BYTES)
			die("not a trace", argv[2]);
		header()->threads = (uint32_t)strtoul(argv[4], NULL, 0);
		header()->header_check = trace_header_checksum(header());
		save(argv[3], data, size);
	} else if (argc == 4 && !strcmp(argv[1], "make")) {
		make(argv[2], (unsigned)atoi(argv[3]));
	} else if (argc == 7 && !strcmp(argv[1], "v3")) {
		v3(argv[2], argv[3], argv[4], argv[5], argv[6]);
	} else {
		die("usage: tracetool reseal|v1 IN OUT, flip|flipany IN OUT SEED, threads IN OUT N, "
		    "make OUT VERSION, v3 OUT THREADS LOST CALLS HEX", NULL);
	}
	return 0;
}
