#include "measure.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const touch_names[] = {
	[TOUCH_NONE] = "none",
	[TOUCH_FIRST] = "first",
	[TOUCH_PAGES] = "pages",
	[TOUCH_FULL] = "full",
};

const char *touch_name(enum touch_policy touch)
{
	if ((unsigned)touch >= sizeof(touch_names) / sizeof(touch_names[0]))
		return NULL;
	return touch_names[touch];
}

int touch_parse(const char *name, enum touch_policy *touch)
{
	for (size_t i = 0; i < sizeof(touch_names) / sizeof(touch_names[0]); i++) {
		if (!strcmp(name, touch_names[i])) {
			*touch = (enum touch_policy)i;
			return 0;
		}
	}
	return -1;
}

int sample_fail(struct sample *sample, const char *fmt, ...)
{
	va_list ap;

	sample->ok = 0;
	va_start(ap, fmt);
	vsnprintf(sample->error, sizeof(sample->error), fmt, ap);
	va_end(ap);
	return -1;
}

void **measure_map_pointers(size_t count, struct sample *sample)
{
	size_t bytes = count * sizeof(void *);
	void **ptrs;

	ptrs = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptrs == MAP_FAILED) {
		sample_fail(sample, "cannot map the array of %zu chunk pointers: %s",
			    count, strerror(errno));
		return NULL;
	}
	memset(ptrs, 0, bytes);
	return ptrs;
}

void measure_unmap_pointers(void **ptrs, size_t count)
{
	munmap(ptrs, count * sizeof(void *));
}

/*
 * The floor's "allocator": the next SIZE bytes of one fresh mapping, with no
 * alignment, no bound check and no bookkeeping. It runs in the very loop the
 * backends run (pointer array, touching, clock reads), so a backend's ratio
 * to it is the cost of the allocator alone.
 */
struct floor_region {
	unsigned char *base;
	unsigned char *next;
	size_t bytes;
};

static inline void *floor_alloc(void *ctx, size_t size)
{
	struct floor_region *r = ctx;
	unsigned char *chunk = r->next;

	r->next += size;
	return chunk;
}

static inline void floor_release(void *ctx, void *chunk)
{
	(void)ctx;
	(void)chunk;
}

static void floor_teardown(void *ctx)
{
	struct floor_region *r = ctx;

	munmap(r->base, r->bytes);
}

int measure_floor(const struct measure_params *params, struct sample *sample)
{
	struct floor_region r = { .bytes = params->count * params->size };

	r.base = mmap(NULL, r.bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r.base == MAP_FAILED)
		return sample_fail(sample, "cannot map %zu bytes for the floor: %s",
				   r.bytes, strerror(errno));
	r.next = r.base;
	sample->reserved_bytes = r.bytes;
	return measure_fill(params, sample, &r, floor_alloc, floor_release, floor_teardown);
}
