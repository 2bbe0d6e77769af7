/*
 * test_trace.c - the trace reader (src/trace/trace*.c) on traces this test
 * writes itself from the documented format (allocbench(1), TRACE FORMAT),
 * with an encoder of its own: calls in two threads in an interleaved
 * order, a realloc whose old address another thread gets before the
 * realloc's second place, a cross-thread free, a chunk whose last record
 * is not complete, a chunk and its copy (the recorder's window), the
 * states, and files that are not traces.
 */
#include "check.h"
#include "trace/trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char file[256 + 3 * 4096];
static size_t nchunks;

struct enc {
	unsigned char *start, *p;
	uint64_t prev_seq, prev_ptr;
};

static void varint(struct enc *e, uint64_t v)
{
	while (v >= 0x80) {
		*e->p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*e->p++ = (unsigned char)v;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void ptr(struct enc *e, uint64_t p)
{
	int64_t d;

	if (!p) {
		varint(e, 0);
		return;
	}
	d = (int64_t)(p - e->prev_ptr);
	e->prev_ptr = p;
	varint(e, ((d & 15) ? zz(d) << 1 | 1 : zz(d / 16) << 1) + 1);
}

static void head(struct enc *e, uint64_t seq, unsigned kind)
{
	varint(e, zz((int64_t)(seq - e->prev_seq)) << 4 | kind);
	e->prev_seq = seq;
}

/* Starts chunk K of THREAD; returns its encoder. */
static struct enc chunk(uint32_t thread)
{
	unsigned char *c = file + 256 + nchunks++ * 4096;
	struct enc e = { c + 16, c + 16, 0, 0 };

	memcpy(c + 4, &thread, 4);
	return e;
}

static void chunk_end(struct enc *e, uint32_t used)
{
	memcpy(e->start - 16, &used, 4);
}

static const char *write_trace(uint32_t state, const char *name, uint32_t version,
			       const char *magic)
{
	static char path[64];
	uint32_t u32;
	uint64_t u64 = nchunks;
	FILE *f;

	memcpy(file, magic, 8);
	u32 = version; memcpy(file + 8, &u32, 4);
	u32 = 256; memcpy(file + 12, &u32, 4);
	u32 = 4096; memcpy(file + 16, &u32, 4);
	memcpy(file + 20, &state, 4);
	memcpy(file + 24, &u64, 8);
	u32 = 2; memcpy(file + 68, &u32, 4);  /* threads */
	snprintf(path, sizeof(path), "/tmp/test_trace.%ld.%s", (long)getpid(), name);
	f = fopen(path, "wb");
	if (!f || fwrite(file, 1, 256 + nchunks * 4096, f) != 256 + nchunks * 4096 || fclose(f))
		return NULL;
	return path;
}

int main(void)
{
	struct trace t;
	struct trace_stats st;
	struct replay_plan plan;
	struct plan_view view = { 0 };
	const struct replay_op *ops;
	struct enc a, b;
	char why[256];
	const char *path;

	/*
	 * Thread 0 (5 calls): 1 malloc(100)=0x1000; 3 realloc(0x1000, 200)=0x2000 (second
	 * place 5); 6 free(0x2000), 1 of its 4 pages resident; 8 calloc(2, 8)=0x3008; 9 free(NULL).
	 * Thread 1 (4 calls): 2 malloc(40)=0x5000; 4 malloc(24)=0x1000 (the old address,
	 * after realloc's first place); 7 free(0x1000); 10 free(0x3008), from
	 * the other thread; then a record cut short.
	 */
	a = chunk(0);
	head(&a, 1, TRACE_MALLOC); varint(&a, 100); ptr(&a, 0x1000);
	head(&a, 3, TRACE_REALLOC); ptr(&a, 0x1000); varint(&a, 200); ptr(&a, 0x2000); varint(&a, 2);
	head(&a, 6, TRACE_FREE_PAGES); ptr(&a, 0x2000); varint(&a, 1); varint(&a, 4);
	head(&a, 8, TRACE_CALLOC); varint(&a, 2); varint(&a, 8); ptr(&a, 0x3008);
	head(&a, 9, TRACE_FREE); ptr(&a, 0);
	chunk_end(&a, (uint32_t)(a.p - a.start));
	b = chunk(1);
	head(&b, 2, TRACE_MALLOC); varint(&b, 40); ptr(&b, 0x5000);
	head(&b, 4, TRACE_MALLOC); varint(&b, 24); ptr(&b, 0x1000);
	head(&b, 7, TRACE_FREE); ptr(&b, 0x1000);
	head(&b, 10, TRACE_FREE); ptr(&b, 0x3008);
	chunk_end(&b, (uint32_t)(b.p - b.start));
	head(&b, 11, TRACE_MALLOC); varint(&b, 1u << 20);  /* no ret: never committed */

	path = write_trace(TRACE_STATE_WRITING, "a", 1, "ABTRACE");
	CHECK("a trace is written", path != NULL);
	CHECK("it reads and analyses", path && !trace_stats_load(path, &t, &st, &plan, why, sizeof(why)));
	ops = plan_view_at(&view, &plan, 0);
	CHECK("its steps are in a file, mapped", ops && view.base == 0 && view.n == plan.nops);
	if (!ops)
		return 1;
	CHECK("9 calls, the uncommitted record left out", st.calls[0] == 9);
	CHECK("in the process's order: thread 1's malloc(40), second, is the second step",
	      ops[1].thread == 1 && ops[1].size == 40 && ops[0].size == 100);
	CHECK("calloc's size is nmemb * size", ops[6].kind == REPLAY_ZALLOC && ops[6].size == 16);
	CHECK("cut short: the header's state", t.header.state == TRACE_STATE_WRITING &&
	      !strcmp(trace_state_name(t.header.state), "cut short"));
	CHECK("calls by kind", st.calls[TRACE_MALLOC] == 3 && st.calls[TRACE_REALLOC] == 1 &&
	      st.calls[TRACE_FREE] == 4 && st.calls[TRACE_CALLOC] == 1 && st.calls[0] == 9);
	CHECK("free(NULL) counted, no unknown free (the reused address resolved)",
	      st.free_null == 1 && st.unknown_frees == 0);
	/*
	 * Live, in order: 100; +40 = 140; +24 = 164; realloc's second place
	 * 100 -> 200 = 264; -200 = 64; -24 = 40; +16 = 56; -16 = 40.
	 */
	CHECK("peak live bytes 264, after call 3 (the realloc)",
	      st.peak_live_bytes == 264 && st.peak_at_call == 3);
	CHECK("peak live chunks 3", st.peak_live_chunks == 3);
	CHECK("at the end: 40 bytes in 1 chunk", st.live_bytes_end == 40 && st.live_chunks_end == 1);
	CHECK("one cross-thread free, by thread 1", st.cross_thread_frees == 1 &&
	      st.nthreads == 2 && st.threads[1].remote_frees == 1);
	CHECK("the plan: 8 steps (free(NULL) left out), 4 slots (none freed a window before)",
	      plan.nops == 8 && plan.nslots == 4);
	CHECK("the plan's peak is the report's", plan.peak_live_bytes == st.peak_live_bytes);
	CHECK("realloc is a resize of the first slot, after thread 1's malloc of the old address",
	      ops[2].kind == REPLAY_ALLOC && ops[2].size == 24 &&
	      ops[3].kind == REPLAY_RESIZE && ops[3].slot == 0 && ops[3].size == 200 &&
	      ops[3].version == 1);
	CHECK("3 of 4 pages unwritten: 150 of the 200 bytes, counted once",
	      st.paged_frees == 1 && st.unwritten_bytes == 150);
	CHECK("... on the step that made that chunk (the resize), not the malloc nor the free",
	      ops[3].unwritten == 49151 && ops[0].unwritten == 0 &&
	      ops[4].kind == REPLAY_FREE && ops[4].unwritten == 0);
	CHECK("a cross-thread free names its slot and waits for the allocation",
	      ops[7].kind == REPLAY_FREE && ops[7].thread == 1 && ops[7].version == 1);
	plan_view_close(&view);
	replay_plan_release(&plan);
	trace_stats_release(&st);
	unlink(path);

	/* A chunk whose used exceeds its payload: the trace is damaged, saying where. */
	memset(file + 256 + 4096, 0xff, 4);
	path = write_trace(TRACE_STATE_EXIT, "b", 1, "ABTRACE");
	CHECK("a bad chunk: the trace is refused, naming the chunk and the field",
	      path && trace_stats_load(path, &t, &st, NULL, why, sizeof(why)) &&
	      strstr(why, "is damaged: chunk 1 at byte 4352: used 4294967295"));
	unlink(path);

	/*
	 * The recorder's window (trace_format.h): thread 0's latest records in
	 * the file's first chunk, its earlier ones in the second, and a copy of
	 * the first in the third (the process ended between writing the copy
	 * and emptying the window). Each call is read once, in order.
	 */
	memset(file, 0, sizeof(file));
	nchunks = 0;
	a = chunk(0);
	b = chunk(0);
	{
		uint64_t base = 3;

		memcpy(a.start - 8, &base, 8);
		a.prev_seq = base;
	}
	head(&a, 4, TRACE_FREE); ptr(&a, 0x1000);
	head(&a, 5, TRACE_MALLOC); varint(&a, 8); ptr(&a, 0x1000);
	chunk_end(&a, (uint32_t)(a.p - a.start));
	head(&b, 1, TRACE_MALLOC); varint(&b, 16); ptr(&b, 0x1000);
	head(&b, 2, TRACE_MALLOC); varint(&b, 16); ptr(&b, 0x2000);
	head(&b, 3, TRACE_FREE); ptr(&b, 0x2000);
	chunk_end(&b, (uint32_t)(b.p - b.start));
	memcpy(file + 256 + 2 * 4096, file + 256, 4096);
	nchunks = 3;
	path = write_trace(TRACE_STATE_WRITING, "e", 1, "ABTRACE");
	CHECK("a window and its copy: each call once, in order",
	      path && !trace_stats_load(path, &t, &st, &plan, why, sizeof(why)) && st.calls[0] == 5 &&
	      plan.nops == 5 && (ops = plan_view_at(&view, &plan, 0)) && ops[2].kind == REPLAY_FREE && ops[2].slot == 1 &&
	      ops[3].kind == REPLAY_FREE && ops[3].slot == 0 && ops[4].size == 8 &&
	      st.unknown_frees == 0);
	plan_view_close(&view);
	replay_plan_release(&plan);
	trace_stats_release(&st);
	unlink(path);

	path = write_trace(TRACE_STATE_EXIT, "c", 4, "ABTRACE");
	CHECK("another version is refused, naming it", path && trace_stats_load(path, &t, &st, NULL, why, sizeof(why)) &&
	      strstr(why, "version is 4"));
	unlink(path);
	path = write_trace(TRACE_STATE_EXIT, "d", 1, "XYZRACE");
	CHECK("no magic: not a trace", path && trace_stats_load(path, &t, &st, NULL, why, sizeof(why)) &&
	      strstr(why, "is not an allocbench trace"));
	unlink(path);
	path = write_trace(TRACE_STATE_EXIT, "d", 1, "XBTRACE");
	CHECK("a magic one byte off: damaged", path && trace_stats_load(path, &t, &st, NULL, why, sizeof(why)) &&
	      strstr(why, "is damaged: byte 0 of its magic"));
	unlink(path);
	CHECK("a missing file: cannot read it", trace_stats_load("/nonexistent/trace", &t, &st, NULL, why, sizeof(why)) &&
	      strstr(why, "cannot read"));
	return check_exit();
}
