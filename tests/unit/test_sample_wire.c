/*
 * Unit tests for the result's encoding (child/sample_wire.c): every field
 * survives the round trip, the bytes are the same whatever the word size
 * (fixed widths, little endian, checked byte by byte), and the decoder
 * refuses a result of another protocol or length.
 */
#include "check.h"
#include "measure/sample_wire.h"
#include "measure/request.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct sample in, out;
static unsigned char wire[SAMPLE_WIRE_HEADER + sizeof(struct sample)];
static char why[256];

/* The little-endian unsigned of WIDTH bytes at P. */
static uint64_t le(const unsigned char *p, size_t width)
{
	uint64_t v = 0;

	for (size_t i = 0; i < width; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int main(void)
{
	size_t n, size = sample_wire_size();
	int same = 1;

	in.ok = 1;
	strcpy(in.error, "why not");
	in.rss_before_bytes = 0x0102030405060708ull;
	in.rss_after_bytes = UINT64_MAX;
	in.nreadings = 4;
	for (int i = 0; i < MEASURE_SEGMENTS; i++) {
		in.reading_chunks[i] = 1000u * (unsigned)(i + 1);
		in.reading_bytes[i] = ((uint64_t)1 << 40) + (unsigned)i;
	}
	in.alloc_ns = 26.75;
	in.free_ns = -0.0;
	in.alloc_faults = 204801;
	in.free_faults = 3;
	in.reserved_bytes = (uint64_t)5 << 33;
	in.peak_memory_bytes = 123456789;
	in.warm_alloc_ns = 5.125;
	in.warm_free_ns = 1e-300;
	in.warm_faults = 7;
	in.rounds = 4000000000u;
	in.churn_ns = 15.3;
	in.churn_cold_ns = 140;
	in.ops = 4609124;
	in.op_ns = 81.2;
	in.live_bytes = 51078 * 1024;
	in.peak_rss_bytes = 60236 * 1024;
	in.fragmentation = 1.18;
	in.checksum = 0x437e6d2cb37ebfc8ull;
	in.peak_live_bytes = 0x0a0b0c0d0e0f1011ull;
	in.entry_anon_bytes = 4095ull << 12;
	in.setup_bytes = 77;  /* the parent's own */
	in.nseries = SAMPLE_SERIES_POINTS;
	in.series_steps[0] = 100;
	in.series_rss_bytes[SAMPLE_SERIES_POINTS - 1] = 0x1112131415161718ull;
	in.series_live_bytes[7] = 48000;
	in.threads = 256;
	in.ops_per_s = 118e6;
	in.ops_per_s_1thread = 56.1e6;
	in.counters.n = COUNTERS_MAX;
	for (int i = 0; i < COUNTERS_MAX; i++) {
		in.counters.status[i] = i % 2 ? -25 : 0;
		in.counters.stage[i] = (uint8_t)(i + 200);
		in.counters.alloc_loop[i] = (uint64_t)i << 50;
		in.counters.free_loop[i] = (uint64_t)i * 3;
	}
	strcpy(in.allocator.name, "glibc");
	strcpy(in.allocator.version, "2.36");
	memset(in.allocator.path, 'p', sizeof(in.allocator.path));  /* not terminated */
	in.allocator.has_usable = 1;
	in.allocator.usable_bytes = 24;
	in.allocator.nstats = ALLOCINFO_MAX_STATS;
	for (int i = 0; i < ALLOCINFO_MAX_STATS; i++) {
		snprintf(in.allocator.stats[i].name, sizeof(in.allocator.stats[i].name),
			 "mallinfo2.%d", i);
		in.allocator.stats[i].bytes = (uint64_t)i + 1;
	}
	strcpy(in.child_stdout, "the parent's own: never sent");
	in.child_stderr_lines = 9;

	/* Header 16, then the fields: widths fixed, whatever the C types are. */
	CHECK("size: header and fixed-width body",
	      size == SAMPLE_WIRE_HEADER + 4 + 200 + 8 + 8 + 4 + MEASURE_SEGMENTS * 16 + 8 * 21 +
		      4 + SAMPLE_SERIES_POINTS * 3 * 8 + 4 * 2 + 4 + COUNTERS_MAX * (4 + 1 + 8 + 8) + 32 + 96 + 256 + 4 + 8 + 4 +
		      ALLOCINFO_MAX_STATS * (48 + 8));
	n = sample_wire_encode(&in, wire);
	CHECK("encode: the announced size", n == size);
	CHECK("encode: magic", !memcmp(wire, SAMPLE_WIRE_MAGIC, 8));
	CHECK("encode: protocol version, 4 bytes little endian",
	      le(wire + 8, 4) == CHILD_PROTOCOL_VERSION);
	CHECK("encode: body length", le(wire + 12, 4) == size - SAMPLE_WIRE_HEADER);
	CHECK("encode: ok as 4 bytes", le(wire + 16, 4) == 1);
	CHECK("encode: rss_before as 8 bytes little endian after the error",
	      le(wire + 16 + 4 + 200, 8) == 0x0102030405060708ull);
	CHECK("encode: nreadings as 4 bytes", le(wire + 16 + 4 + 200 + 16, 4) == 4);

	CHECK("decode", !sample_wire_decode(wire, n, &out, why, sizeof(why)));
	CHECK("round trip: status", out.ok == 1 && !strcmp(out.error, "why not"));
	CHECK("round trip: rss", out.rss_before_bytes == in.rss_before_bytes &&
	      out.rss_after_bytes == UINT64_MAX && out.nreadings == 4);
	for (int i = 0; i < MEASURE_SEGMENTS; i++)
		same &= out.reading_chunks[i] == in.reading_chunks[i] &&
			out.reading_bytes[i] == in.reading_bytes[i];
	CHECK("round trip: readings", same);
	CHECK("round trip: fill", out.alloc_ns == 26.75 && out.free_ns == 0 &&
	      out.alloc_faults == 204801 && out.free_faults == 3 &&
	      out.reserved_bytes == in.reserved_bytes && out.peak_memory_bytes == 123456789);
	CHECK("round trip: warm", out.warm_alloc_ns == 5.125 && out.warm_free_ns == 1e-300 &&
	      out.warm_faults == 7);
	CHECK("round trip: churn", out.rounds == 4000000000u && out.churn_ns == 15.3 &&
	      out.churn_cold_ns == 140);
	CHECK("round trip: random", out.ops == 4609124 && out.op_ns == 81.2 &&
	      out.live_bytes == in.live_bytes && out.peak_rss_bytes == in.peak_rss_bytes &&
	      out.fragmentation == 1.18 && out.checksum == in.checksum);
	CHECK("round trip: replay", out.peak_live_bytes == in.peak_live_bytes &&
	      out.entry_anon_bytes == in.entry_anon_bytes);
	CHECK("round trip: the series", out.nseries == in.nseries && out.series_steps[0] == 100 &&
	      out.series_rss_bytes[SAMPLE_SERIES_POINTS - 1] == in.series_rss_bytes[SAMPLE_SERIES_POINTS - 1] &&
	      out.series_live_bytes[7] == 48000);
	CHECK("round trip: threads", out.threads == 256 && out.ops_per_s == 118e6 &&
	      out.ops_per_s_1thread == 56.1e6);
	same = out.counters.n == COUNTERS_MAX;
	for (int i = 0; i < COUNTERS_MAX; i++)
		same &= out.counters.status[i] == in.counters.status[i] &&
			out.counters.stage[i] == in.counters.stage[i] &&
			out.counters.alloc_loop[i] == in.counters.alloc_loop[i] &&
			out.counters.free_loop[i] == in.counters.free_loop[i];
	CHECK("round trip: counters, a negative status included", same);
	CHECK("round trip: allocator", !strcmp(out.allocator.name, "glibc") &&
	      !strcmp(out.allocator.version, "2.36") && out.allocator.has_usable == 1 &&
	      out.allocator.usable_bytes == 24 && out.allocator.nstats == ALLOCINFO_MAX_STATS &&
	      !strcmp(out.allocator.stats[5].name, "mallinfo2.5") &&
	      out.allocator.stats[5].bytes == 6);
	CHECK("round trip: a string that filled its array comes back terminated",
	      strlen(out.allocator.path) == sizeof(out.allocator.path) - 1);
	CHECK("round trip: the parent's own fields are not sent",
	      !out.child_stdout[0] && !out.child_stderr_lines && !out.setup_bytes);

	CHECK("refused: short", sample_wire_decode(wire, n - 1, &out, why, sizeof(why)) &&
	      strstr(why, "announcing"));
	CHECK("refused: empty", sample_wire_decode(wire, 0, &out, why, sizeof(why)) &&
	      strstr(why, "without the header"));
	wire[8] = 1;
	CHECK("refused: protocol 1 (the raw struct)",
	      sample_wire_decode(wire, n, &out, why, sizeof(why)) &&
	      strstr(why, "a result of protocol 1, not 4"));
	wire[8] = CHILD_PROTOCOL_VERSION;
	wire[0] = 'X';
	CHECK("refused: no magic", sample_wire_decode(wire, n, &out, why, sizeof(why)) &&
	      strstr(why, "without the header"));
	return check_exit();
}
