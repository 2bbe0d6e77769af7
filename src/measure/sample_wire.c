/*
 * sample_wire.c - struct sample in bytes independent of the word size (sample_wire.h).
 */
#include "measure/sample_wire.h"
#include "measure/request.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * The guard of sample_wire.h: a field added to struct sample (or to the
 * structs in it) changes its size; add it to walk() below, then the size
 * here. The sizes are those of x86-64 and i386, the ABIs the tool builds for.
 */
#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(struct sample) == 7720,
	       "struct sample changed: add the field to sample_wire.c's walk()");
#elif defined(__i386__)
_Static_assert(sizeof(struct sample) == 7676,
	       "struct sample changed: add the field to sample_wire.c's walk()");
#endif

/* A walk over the fields: encoding (buf written), decoding (buf read), or sizing (buf NULL). */
struct wire {
	unsigned char *buf;
	size_t at;      /* bytes walked */
	int decode;     /* 1: from buf into the sample */
};

static void wire_uint(struct wire *w, uint64_t *v, size_t width)
{
	if (w->buf && w->decode) {
		*v = 0;
		for (size_t i = 0; i < width; i++)
			*v |= (uint64_t)w->buf[w->at + i] << (8 * i);
	} else if (w->buf) {
		for (size_t i = 0; i < width; i++)
			w->buf[w->at + i] = (unsigned char)(*v >> (8 * i));
	}
	w->at += width;
}

static void wire_u64(struct wire *w, uint64_t *v)
{
	wire_uint(w, v, 8);
}

static void wire_unsigned(struct wire *w, unsigned *v)
{
	uint64_t x = *v;

	wire_uint(w, &x, 4);
	*v = (unsigned)x;
}

static void wire_int(struct wire *w, int *v)
{
	uint64_t x = (uint32_t)*v;

	wire_uint(w, &x, 4);
	*v = (int)(int32_t)(uint32_t)x;
}

static void wire_i32(struct wire *w, int32_t *v)
{
	uint64_t x = (uint32_t)*v;

	wire_uint(w, &x, 4);
	*v = (int32_t)(uint32_t)x;
}

static void wire_u8(struct wire *w, uint8_t *v)
{
	uint64_t x = *v;

	wire_uint(w, &x, 1);
	*v = (uint8_t)x;
}

/* A double as its binary64 bits: both ABIs use IEEE 754 doubles. */
_Static_assert(sizeof(double) == 8, "a double must be IEEE 754 binary64");

static void wire_double(struct wire *w, double *v)
{
	uint64_t x;

	memcpy(&x, v, sizeof(x));
	wire_uint(w, &x, 8);
	memcpy(v, &x, sizeof(x));
}

/* A fixed array of SIZE chars; the decoded copy is terminated. */
static void wire_chars(struct wire *w, char *s, size_t size)
{
	if (w->buf && w->decode) {
		memcpy(s, w->buf + w->at, size);
		s[size - 1] = '\0';
	} else if (w->buf) {
		memcpy(w->buf + w->at, s, size);
	}
	w->at += size;
}

#define WIRE_CHARS(w, array) wire_chars(w, array, sizeof(array))

/* Every field the child sends, in the order of the encoding. */
static void walk(struct wire *w, struct sample *s)
{
	struct counter_values *c = &s->counters;
	struct allocator_info *a = &s->allocator;

	wire_int(w, &s->ok);
	WIRE_CHARS(w, s->error);
	wire_u64(w, &s->rss_before_bytes);
	wire_u64(w, &s->rss_after_bytes);
	wire_unsigned(w, &s->nreadings);
	for (size_t i = 0; i < MEASURE_SEGMENTS; i++) {
		wire_u64(w, &s->reading_chunks[i]);
		wire_u64(w, &s->reading_bytes[i]);
	}
	wire_double(w, &s->alloc_ns);
	wire_double(w, &s->free_ns);
	wire_u64(w, &s->alloc_faults);
	wire_u64(w, &s->free_faults);
	wire_u64(w, &s->reserved_bytes);
	wire_u64(w, &s->peak_memory_bytes);
	wire_double(w, &s->warm_alloc_ns);
	wire_double(w, &s->warm_free_ns);
	wire_u64(w, &s->warm_faults);
	wire_unsigned(w, &s->rounds);
	wire_double(w, &s->churn_ns);
	wire_double(w, &s->churn_cold_ns);
	wire_u64(w, &s->ops);
	wire_double(w, &s->op_ns);
	wire_u64(w, &s->live_bytes);
	wire_u64(w, &s->peak_rss_bytes);
	wire_double(w, &s->fragmentation);
	wire_u64(w, &s->checksum);
	wire_u64(w, &s->peak_live_bytes);
	wire_u64(w, &s->entry_anon_bytes);
	wire_unsigned(w, &s->nseries);
	for (size_t i = 0; i < SAMPLE_SERIES_POINTS; i++) {
		wire_u64(w, &s->series_steps[i]);
		wire_u64(w, &s->series_rss_bytes[i]);
		wire_u64(w, &s->series_live_bytes[i]);
	}
	wire_unsigned(w, &s->threads);
	wire_double(w, &s->ops_per_s);
	wire_double(w, &s->ops_per_s_1thread);

	{
		uint64_t n = c->n;

		wire_uint(w, &n, 4);
		c->n = (uint32_t)n;
	}
	for (size_t i = 0; i < COUNTERS_MAX; i++) {
		wire_i32(w, &c->status[i]);
		wire_u8(w, &c->stage[i]);
		wire_u64(w, &c->alloc_loop[i]);
		wire_u64(w, &c->free_loop[i]);
	}

	WIRE_CHARS(w, a->name);
	WIRE_CHARS(w, a->version);
	WIRE_CHARS(w, a->path);
	wire_int(w, &a->has_usable);
	wire_double(w, &a->usable_bytes);
	wire_unsigned(w, &a->nstats);
	for (size_t i = 0; i < ALLOCINFO_MAX_STATS; i++) {
		WIRE_CHARS(w, a->stats[i].name);
		wire_u64(w, &a->stats[i].bytes);
	}
}

/* Bytes of the body: walked once without a buffer. */
static size_t body_size(void)
{
	static struct sample none;
	struct wire w = { NULL, 0, 0 };

	walk(&w, &none);
	return w.at;
}

size_t sample_wire_size(void)
{
	return SAMPLE_WIRE_HEADER + body_size();
}

size_t sample_wire_encode(const struct sample *sample, unsigned char *buf)
{
	struct wire w = { buf, 0, 0 };
	uint64_t version = CHILD_PROTOCOL_VERSION, len = body_size();

	memcpy(buf, SAMPLE_WIRE_MAGIC, 8);
	w.at = 8;
	wire_uint(&w, &version, 4);
	wire_uint(&w, &len, 4);
	/* Encoding only reads the sample. */
	walk(&w, (struct sample *)(uintptr_t)sample);
	return w.at;
}

int sample_wire_decode(const unsigned char *buf, size_t len, struct sample *sample, char *why,
		       size_t why_size)
{
	struct wire w = { (unsigned char *)(uintptr_t)buf, 8, 1 };
	uint64_t version, body;

	memset(sample, 0, sizeof(*sample));
	if (len < SAMPLE_WIRE_HEADER || memcmp(buf, SAMPLE_WIRE_MAGIC, 8)) {
		snprintf(why, why_size, "not a result (%zu bytes without the header '%s')", len,
			 SAMPLE_WIRE_MAGIC);
		return -1;
	}
	wire_uint(&w, &version, 4);
	wire_uint(&w, &body, 4);
	if (version != CHILD_PROTOCOL_VERSION) {
		snprintf(why, why_size, "a result of protocol %llu, not %d",
			 (unsigned long long)version, CHILD_PROTOCOL_VERSION);
		return -1;
	}
	if (body != body_size() || len != SAMPLE_WIRE_HEADER + body) {
		snprintf(why, why_size, "a result of %zu bytes announcing %llu, not the %zu of "
			 "protocol %d", len, (unsigned long long)body, sample_wire_size(),
			 CHILD_PROTOCOL_VERSION);
		return -1;
	}
	walk(&w, sample);
	return 0;
}
