/*
 * fuzz_trace.c - libFuzzer target for the trace reader and what report and
 * replay make of what it accepts (trace_stats_load_buffer(), with a plan):
 * no crash, no hang, a refusal that says why, statistics whose threads'
 * calls add up, and a plan whose every step names a slot and a thread in
 * range.
 *
 * Its mutator knows the format (trace_format.h): besides libFuzzer's byte
 * mutations it sets the fields issue 25 found believed (a chunk's thread,
 * used and base, the header's threads, chunks and state), and then, most of
 * the time, seals the result again (each chunk's check and the header's), so
 * that mutations get past the checksums to the checks of every field: a
 * record's size, alignment, realloc order, a thread index. A version 3
 * trace (trace_v3.h) has its records mutated inside a block, decompressed
 * and compressed again, and then its blocks and header sealed, so that the
 * mutations reach the decoder of its records.
 */
#include "trace/trace.h"
#include "trace/trace_v3.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
/* libFuzzer's own; absent from tests/fuzz/replay.c, which never mutates. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

static volatile uint64_t walked;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct trace_stats st;
	struct replay_plan plan;
	struct plan_view view = { 0 };
	char why[512];
	uint64_t sum = 0;

	if (trace_stats_load_buffer("fuzz.trace", data, size, &t, &st, &plan, why, sizeof(why))) {
		if (!why[0])
			abort();
		return 0;
	}
	for (uint32_t i = 0; i < st.nthreads; i++)
		sum += st.threads[i].calls;
	if (sum != st.calls[0])
		abort();
	/* What the replay relies on: every slot and thread in range. */
	for (size_t i = 0; i < plan.nops; i++) {
		const struct replay_op *op = plan_view_at(&view, &plan, i);

		if (!op || op->slot >= plan.nslots || op->thread >= plan.nthreads)
			abort();
		sum += op->slot + op->align_log2;
	}
	walked = walked + sum;
	plan_view_close(&view);
	trace_stats_release(&st);
	replay_plan_release(&plan);
	return 0;
}

static uint32_t rnd(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static uint32_t interesting32(unsigned *seed, uint32_t near)
{
	static const uint32_t values[] = { 0, 1, 2, 7, 8, 0x7fffffff, 0x80000000, 0xffffffff,
		TRACE_PAYLOAD_BYTES, TRACE_PAYLOAD_BYTES + 1 };

	return rnd(seed) & 1 ? values[rnd(seed) % (sizeof(values) / sizeof(values[0]))] :
	       near + (rnd(seed) % 5) - 2;
}

/* Seals a version 2 DATA (SIZE bytes) as trace_format.h says: every chunk, then the header. */
static void reseal(uint8_t *data, size_t size)
{
	struct trace_header h;
	uint64_t n;

	if (size < TRACE_HEADER_BYTES)
		return;
	memcpy(&h, data, sizeof(h));
	if (h.version != 2)
		return;
	n = (size - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES;
	if (h.chunks < n)
		n = h.chunks;
	for (uint64_t k = 0; k < n; k++) {
		uint8_t *c = data + TRACE_HEADER_BYTES + k * TRACE_CHUNK_BYTES;
		struct trace_chunk *chunk = malloc(TRACE_CHUNK_BYTES);

		if (!chunk)
			return;
		memcpy(chunk, c, TRACE_CHUNK_BYTES);
		if (chunk->used <= TRACE_PAYLOAD_BYTES)
			put64(c + offsetof(struct trace_chunk, check), trace_chunk_checksum(chunk));
		free(chunk);
	}
	if (h.state != TRACE_STATE_WRITING) {
		struct trace_header *whole = malloc(TRACE_HEADER_BYTES);

		if (!whole)
			return;
		memcpy(whole, data, TRACE_HEADER_BYTES);
		put64(data + offsetof(struct trace_header, header_check), trace_header_checksum(whole));
		free(whole);
	}
}

/* Seals a version 3 DATA: every whole block's check, then the header's. */
static void reseal_v3(uint8_t *data, size_t size)
{
	uint64_t at = TRACE_HEADER_BYTES;
	struct trace_header *whole = malloc(TRACE_HEADER_BYTES);

	while (size - at >= sizeof(struct trace_block)) {
		struct trace_block b;

		memcpy(&b, data + at, sizeof(b));
		if (b.zbytes > size - at - sizeof(b))
			break;
		put64(data + at + offsetof(struct trace_block, check),
		      trace_block_checksum(&b, data + at + sizeof(b)));
		at += sizeof(b) + b.zbytes;
	}
	if (!whole)
		return;
	memcpy(whole, data, TRACE_HEADER_BYTES);
	put64(data + offsetof(struct trace_header, header_check), trace_header_checksum(whole));
	free(whole);
}

/* A bit of the records of version 3 DATA's first block flipped, the block compressed again. */
static size_t mutate_v3(uint8_t *data, size_t size, size_t max_size, unsigned *seed)
{
	size_t zmax = ZSTD_compressBound(V3_BLOCK_RAW), got, z;
	uint8_t *raw = malloc(V3_BLOCK_RAW), *frame = malloc(zmax);
	struct trace_block b;
	uint8_t *at = data + TRACE_HEADER_BYTES;

	if (!raw || !frame || size - TRACE_HEADER_BYTES < sizeof(b))
		goto out;
	memcpy(&b, at, sizeof(b));
	if (b.zbytes > size - TRACE_HEADER_BYTES - sizeof(b))
		goto out;
	got = ZSTD_decompress(raw, V3_BLOCK_RAW, at + sizeof(b), b.zbytes);
	if (ZSTD_isError(got) || !got)
		goto out;
	raw[rnd(seed) % got] ^= (uint8_t)(1u << (rnd(seed) % 8));
	z = ZSTD_compress(frame, zmax, raw, got, 1);
	if (ZSTD_isError(z) || size - b.zbytes + z > max_size)
		goto out;
	memmove(at + sizeof(b) + z, at + sizeof(b) + b.zbytes,
		size - TRACE_HEADER_BYTES - sizeof(b) - b.zbytes);
	memcpy(at + sizeof(b), frame, z);
	size = size - b.zbytes + z;
	b.zbytes = (uint32_t)z;
	b.raw = (uint32_t)got;
	memcpy(at, &b, sizeof(b));
	reseal_v3(data, size);
out:
	free(raw);
	free(frame);
	return size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (size >= TRACE_HEADER_BYTES && data[8] == TRACE_VERSION_V3 && rnd(&seed) % 4) {
		if (rnd(&seed) % 2 || !LLVMFuzzerMutate)
			return mutate_v3(data, size, max_size, &seed);
		size = LLVMFuzzerMutate(data, size, max_size);
		if (size >= TRACE_HEADER_BYTES)
			reseal_v3(data, size);
		return size;
	}

	uint32_t choice = rnd(&seed) % 8;
	uint64_t nchunks = size > TRACE_HEADER_BYTES ? (size - TRACE_HEADER_BYTES) / TRACE_CHUNK_BYTES : 0;
	uint32_t chunk_header = size >= 12 && data[8] == 1 ? TRACE_CHUNK_HEADER_V1_BYTES :
				(uint32_t)sizeof(struct trace_chunk);

	if (choice < 3 && LLVMFuzzerMutate) {
		/* libFuzzer's bytes, in a chunk's records most of the time. */
		size = LLVMFuzzerMutate(data, size, max_size);
	} else if (choice < 6 && nchunks) {
		uint8_t *c = data + TRACE_HEADER_BYTES + (rnd(&seed) % nchunks) * TRACE_CHUNK_BYTES;
		uint32_t v;

		switch (rnd(&seed) % 4) {
		case 0:  /* thread */
			memcpy(&v, c + 4, 4);
			put32(c + 4, interesting32(&seed, v));
			break;
		case 1:  /* used */
			memcpy(&v, c, 4);
			put32(c, interesting32(&seed, v));
			break;
		case 2:  /* base_seq */
			put64(c + 8, (uint64_t)interesting32(&seed, 0));
			break;
		default: /* a byte of a record: a size, an alignment, a realloc's done */
			c[chunk_header + rnd(&seed) % (TRACE_CHUNK_BYTES - chunk_header)] ^=
				(uint8_t)(1u << (rnd(&seed) % 8));
			break;
		}
	} else if (size >= TRACE_HEADER_BYTES) {
		static const size_t fields[] = { offsetof(struct trace_header, threads),
			offsetof(struct trace_header, chunks), offsetof(struct trace_header, state),
			offsetof(struct trace_header, lost_why), offsetof(struct trace_header, version) };
		size_t at = fields[rnd(&seed) % (sizeof(fields) / sizeof(fields[0]))];
		uint32_t v;

		memcpy(&v, data + at, 4);
		put32(data + at, interesting32(&seed, v));
	}
	if (rnd(&seed) % 4)
		reseal(data, size);
	return size;
}
